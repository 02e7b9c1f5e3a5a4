// Every CUDA layer against the CPU backend (oneDNN, fp32) on the same inputs and parameters: forward,
// backward (input and parameter gradients), gradient accumulation and the inference forward, at each
// precision the GPU supports, within that precision's expected relative error -- through src/check.
#include <map>
#include <string>

#include "check/layer_check.h"
#include "gpu_test_util.h"
#include "support/layer_of.h"

using namespace gputest;
using mg::test::layer_of;

// The very comparisons `mgbench check` makes (src/check), so a user's check is this suite's check.
TEST_CASE("every CUDA layer case matches the CPU backend at every supported precision", "[gpu][layers]") {
  for (Precision p : gpu_precisions()) {
    for (const check::LayerCase& c : check::all_layer_cases()) {
      const CheckRow row = check::check_layer(gpu(), &cpu(), c, p);
      INFO(row.name << " at " << row.precision << ": relative error " << row.error << " (tolerance " << row.tolerance
                    << "; " << row.detail << ")");
      CHECK(row.passed);
    }
  }
}

TEST_CASE("a first layer and a forward-only layer search only the passes they run", "[gpu][layers]") {
  // The network's first layer gets no input gradient; --forward-only layers get no backward at all.
  LayerOptions first, fwd_only;
  first.input_grad = false;
  fwd_only.backward = false;
  auto a = gpu().create_layer(conv_layer("first", 8, 7, 2, 3), {Shape{2, 3, 16, 16}}, first);
  auto b = gpu().create_layer(conv_layer("fwd_only", 8, 3, 1, 1), {Shape{2, 8, 8, 8}}, fwd_only);
  CHECK(a->output_shape() == Shape{2, 8, 8, 8});
  CHECK(b->output_shape() == Shape{2, 8, 8, 8});
}

TEST_CASE("the result counts each conv pass's cuDNN choice, fp32's under FMA math", "[gpu][layers]") {
  for (Precision p : {Precision::FP32, Precision::TF32}) {
    if (!gpu().unsupported_reason(p).empty()) continue;
    LayerOptions o;
    o.precision = p;
    const std::map<std::string, int> before = gpu().conv_algorithm_counts();
    auto l = gpu().create_layer(conv_layer(std::string("counted_") + precision_name(p), 16, 3, 1, 1),
                                {Shape{4, 16, 14, 14}}, o);
    const std::string fma = "/fma";
    int added = 0;
    for (const auto& [key, n] : gpu().conv_algorithm_counts()) {
      const auto was = before.find(key);
      const int d = n - (was == before.end() ? 0 : was->second);
      if (d == 0) continue;
      added += d;
      INFO(key << " at " << precision_name(p));
      const bool ends_fma = key.size() > fma.size() && key.compare(key.size() - fma.size(), fma.size(), fma) == 0;
      CHECK(ends_fma == (p == Precision::FP32));
    }
    CHECK(added == 3);  // forward, backward-data, backward-filter
  }
}

TEST_CASE("CUDA layers reject bad configurations with one-line usage errors", "[gpu][layers]") {
  LayerOptions o;
  CHECK_THROWS_AS(gpu().create_layer(conv_layer("bad_groups", 6, 3, 1, 1, 4), {Shape{1, 8, 5, 5}}, o), UsageError);
  CHECK_THROWS_AS(gpu().create_layer(conv_layer("too_small", 4, 7, 1, 0), {Shape{1, 3, 4, 4}}, o), UsageError);
  CHECK_THROWS_AS(gpu().create_layer(layer_of(LayerKind::Add, "add_mismatch"),
                                     {Shape{1, 2, 3, 3}, Shape{1, 2, 4, 4}}, o),
                  UsageError);
  CHECK_THROWS_AS(gpu().create_layer(layer_of(LayerKind::LRN, "lrn"), {Shape{1, 2, 3, 3}}, o), UsageError);
}

TEST_CASE("CUDA attention keeps one float per score row from forward to backward and recomputes P in backward",
          "[gpu][layers]") {
  const int64_t N = 5, H = 4, T = 6;
  const Shape in{N, T, 48};  // more samples than heads: the products batch over the samples
  for (Precision p : gpu_precisions()) {
    for (const bool causal : {true, false}) {
      INFO(precision_name(p) << (causal ? " causal" : " full"));
      LayerDesc d = layer_of(LayerKind::Attention, "recomputed");
      d.attention = {H, causal};
      LayerOptions opt;
      opt.precision = p;
      const DType dt = activation_dtype(p);
      auto sized = gpu().create_layer(d, {in}, opt);  // grows the shared scratch first
      gpu().reset_peak_memory();
      const size_t base = gpu().peak_memory_bytes();
      auto a = gpu().create_layer(d, {in}, opt), b = gpu().create_layer(d, {in}, opt);
      gpu().reset_peak_memory();
      // Each layer's own allocation: the rows' log-sum-exp, not P.
      CHECK(gpu().peak_memory_bytes() - base == 2 * static_cast<size_t>(N * H * T) * sizeof(float));
      a->bind({}, {});
      b->bind({}, {});
      const size_t n = static_cast<size_t>(in.numel()), on = static_cast<size_t>(a->output_shape().numel());
      Dev x1 = upload(gpu(), rounded(random_vec(n, 1), dt), dt), x2 = upload(gpu(), rounded(random_vec(n, 2), dt), dt);
      Dev dy = upload(gpu(), rounded(random_vec(on, 3), dt), dt);
      Dev y1(gpu(), on * dtype_size(dt)), y2(gpu(), on * dtype_size(dt)), dx(gpu(), n * dtype_size(dt));
      const Tensor tx1{x1.p, in, dt}, tx2{x2.p, in, dt}, ty1{y1.p, a->output_shape(), dt},
          ty2{y2.p, a->output_shape(), dt}, tdy{dy.p, a->output_shape(), dt}, tdx{dx.p, in, dt};
      a->forward({tx1}, ty1, true);
      a->backward({tx1}, ty1, tdy, {tdx}, false);
      const std::vector<float> alone = download(gpu(), dx.p, n, dt);
      a->forward({tx1}, ty1, true);
      b->forward({tx2}, ty2, true);  // another layer's P overwrites the shared scratch before a's backward
      a->backward({tx1}, ty1, tdy, {tdx}, false);
      CHECK(rel_err(download(gpu(), dx.p, n, dt), alone) < 1e-6);
    }
  }
}
