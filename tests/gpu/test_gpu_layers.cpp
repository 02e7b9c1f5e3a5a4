// Every CUDA layer against the CPU backend (oneDNN, fp32) on the same inputs and parameters: forward,
// backward (input and parameter gradients), gradient accumulation and the inference forward, at each
// precision the GPU supports, within that precision's expected relative error.
#include <algorithm>
#include <numeric>
#include <string>

#include "gpu_test_util.h"

using namespace gputest;

namespace {

// Distinct small integers in shuffled order: exact in fp16/bf16 and free of ties, so max pooling picks the
// same element on both backends.
std::vector<float> distinct_values(size_t n, uint64_t seed) {
  REQUIRE(n <= 512);
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](size_t a, size_t b) { return counter_uniform(seed, a) < counter_uniform(seed, b); });
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(idx[i]) - static_cast<float>(n / 2);
  return v;
}

struct Side {
  std::unique_ptr<LayerOp> op;
  std::vector<std::vector<float>> cpu_params, cpu_grads;  // CPU "device" memory is host memory
  std::vector<Dev> gpu_params, gpu_grads;
};

void check(const std::string& what, const std::vector<float>& got, const std::vector<float>& want, double tol) {
  const double e = rel_err(got, want);
  INFO(what << ": relative error " << e << " (tolerance " << tol << ")");
  CHECK(e <= tol);
}

void compare_layer(const LayerDesc& d, const std::vector<Shape>& shapes, Precision p, bool distinct = false,
                   double tol_scale = 1.0) {
  INFO("layer " << d.name << " at " << precision_name(p));
  const DType dt = activation_dtype(p);
  const double tol = tolerance(p) * tol_scale;
  LayerOptions co, go;
  co.precision = Precision::FP32;
  go.precision = p;
  co.seed = go.seed = 7;
  auto cop = cpu().create_layer(d, shapes, co);
  auto gop = gpu().create_layer(d, shapes, go);
  REQUIRE(cop->output_shape() == gop->output_shape());
  const Shape out_shape = gop->output_shape();
  const auto cps = cop->params(), gps = gop->params();
  REQUIRE(cps.size() == gps.size());

  // Parameters: the same fp32 masters on both.
  std::vector<std::vector<float>> cpu_p, cpu_g;
  std::vector<Dev> gpu_p, gpu_g;
  std::vector<float*> cpp, cgp, gpp, ggp;
  for (size_t j = 0; j < gps.size(); ++j) {
    REQUIRE(cps[j].shape == gps[j].shape);
    const size_t n = static_cast<size_t>(gps[j].shape.numel());
    const bool gamma = gps[j].name == "gamma";
    cpu_p.push_back(random_vec(n, 100 + j, gamma ? 0.5f : -0.5f, gamma ? 1.5f : 0.5f));
    cpu_g.emplace_back(n, 0.f);
    gpu_p.push_back(upload(gpu(), cpu_p.back(), DType::F32));
    gpu_g.push_back(upload(gpu(), cpu_g.back(), DType::F32));
  }
  for (size_t j = 0; j < gps.size(); ++j) {
    cpp.push_back(cpu_p[j].data());
    cgp.push_back(cpu_g[j].data());
    gpp.push_back(static_cast<float*>(gpu_p[j].p));
    ggp.push_back(static_cast<float*>(gpu_g[j].p));
  }
  cop->bind(cpp, cgp);
  gop->bind(gpp, ggp);

  // Inputs, rounded to the GPU's activation type so both sides start from identical values.
  std::vector<std::vector<float>> xs, cdx;
  std::vector<Dev> gx, gdx;
  std::vector<Tensor> cin, gin, cdin, gdin;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t n = static_cast<size_t>(shapes[i].numel());
    xs.push_back(rounded(distinct ? distinct_values(n, 11 + i) : random_vec(n, 11 + i), dt));
    cdx.emplace_back(n, 0.f);
    gx.push_back(upload(gpu(), xs.back(), dt));
    gdx.push_back(Dev(gpu(), n * dtype_size(dt)));
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    cin.push_back(Tensor{xs[i].data(), shapes[i], DType::F32});
    gin.push_back(Tensor{gx[i].p, shapes[i], dt});
    cdin.push_back(Tensor{cdx[i].data(), shapes[i], DType::F32});
    gdin.push_back(Tensor{gdx[i].p, shapes[i], dt});
  }
  const size_t on = static_cast<size_t>(out_shape.numel());
  std::vector<float> cy(on);
  Dev gy(gpu(), on * dtype_size(dt));
  const Tensor cout{cy.data(), out_shape, DType::F32}, gout{gy.p, out_shape, dt};

  cop->forward(cin, cout, true);
  gop->forward(gin, gout, true);
  check("forward output", download(gpu(), gy.p, on, dt), cy, tol);

  std::vector<float> dy = rounded(random_vec(on, 99), dt);
  Dev gdy = upload(gpu(), dy, dt);
  const Tensor cdout{dy.data(), out_shape, DType::F32}, gdout{gdy.p, out_shape, dt};
  for (int pass = 0; pass < 2; ++pass) {  // second pass accumulates parameter gradients
    const bool acc = pass == 1;
    cop->backward(cin, cout, cdout, cdin, acc);
    gop->backward(gin, gout, gdout, gdin, acc);
    const std::string tag = acc ? " (accumulated)" : "";
    for (size_t i = 0; i < shapes.size(); ++i) {
      check("input gradient " + std::to_string(i) + tag,
            download(gpu(), gdx[i].p, static_cast<size_t>(shapes[i].numel()), dt), cdx[i], tol);
    }
    for (size_t j = 0; j < gps.size(); ++j) {
      check("gradient of " + gps[j].name + tag, download(gpu(), gpu_g[j].p, cpu_g[j].size(), DType::F32), cpu_g[j],
            tol);
    }
  }

  // Inference forward: uses running statistics where the layer keeps them (updated by the training forward).
  cop->forward(cin, cout, false);
  gop->forward(gin, gout, false);
  check("inference output", download(gpu(), gy.p, on, dt), cy, tol);
}

LayerDesc conv(const std::string& name, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t groups,
               bool bias) {
  LayerDesc d;
  d.kind = LayerKind::Conv;
  d.name = name;
  d.conv.out_channels = out;
  d.conv.kh = d.conv.kw = k;
  d.conv.stride_h = d.conv.stride_w = stride;
  d.conv.pad_h = d.conv.pad_w = pad;
  d.conv.groups = groups;
  d.conv.bias = bias;
  return d;
}

LayerDesc pool(LayerKind kind, const std::string& name, int64_t k, int64_t stride, int64_t pad, bool ceil) {
  LayerDesc d;
  d.kind = kind;
  d.name = name;
  d.pool.kh = d.pool.kw = k;
  d.pool.stride_h = d.pool.stride_w = stride;
  d.pool.pad_h = d.pool.pad_w = pad;
  d.pool.ceil_mode = ceil;
  return d;
}

LayerDesc simple(LayerKind kind, const std::string& name) {
  LayerDesc d;
  d.kind = kind;
  d.name = name;
  return d;
}

}  // namespace

TEST_CASE("CUDA convolution matches the CPU backend", "[gpu][layers]") {
  for (Precision p : gpu_precisions()) {
    compare_layer(conv("conv3x3", 16, 3, 1, 1, 1, false), {Shape{2, 8, 10, 10}}, p);
    compare_layer(conv("conv7x7_s2_bias", 8, 7, 2, 3, 1, true), {Shape{2, 3, 16, 16}}, p);
    compare_layer(conv("conv1x1_s2", 32, 1, 2, 0, 1, false), {Shape{2, 16, 8, 8}}, p);
    compare_layer(conv("conv3x3_g4", 8, 3, 1, 1, 4, false), {Shape{2, 8, 6, 6}}, p);
  }
}

TEST_CASE("CUDA batch norm matches the CPU backend", "[gpu][layers]") {
  LayerDesc d = simple(LayerKind::BatchNorm, "bn");
  for (Precision p : gpu_precisions()) {
    compare_layer(d, {Shape{4, 16, 6, 6}}, p);
    compare_layer(d, {Shape{3, 40, 1, 1}}, p);  // more channels than one block row, few rows
    compare_layer(d, {Shape{2, 6, 5, 5}}, p);   // channels not a multiple of the vector width
  }
}

TEST_CASE("CUDA pooling matches the CPU backend", "[gpu][layers]") {
  for (Precision p : gpu_precisions()) {
    // distinct_values holds at most 512 elements (integers exact in bf16): 1x4x9x9 = 324.
    compare_layer(pool(LayerKind::MaxPool, "maxpool3s2p1", 3, 2, 1, false), {Shape{1, 4, 9, 9}}, p, true);
    compare_layer(pool(LayerKind::MaxPool, "maxpool2s2ceil", 2, 2, 0, true), {Shape{2, 4, 7, 7}}, p, true);
    compare_layer(pool(LayerKind::AvgPool, "avgpool3s2p1ceil", 3, 2, 1, true), {Shape{2, 4, 8, 8}}, p);
    compare_layer(pool(LayerKind::AvgPool, "avgpool3s1p1", 3, 1, 1, false), {Shape{2, 4, 6, 6}}, p);
    compare_layer(simple(LayerKind::GlobalAvgPool, "gap"), {Shape{2, 16, 7, 7}}, p);
  }
}

TEST_CASE("CUDA linear matches the CPU backend", "[gpu][layers]") {
  LayerDesc d = simple(LayerKind::Linear, "fc");
  for (Precision p : gpu_precisions()) {
    d.linear.out_features = 24;
    d.linear.bias = true;
    compare_layer(d, {Shape{4, 40}}, p);
    d.linear.out_features = 10;
    d.linear.bias = false;
    compare_layer(d, {Shape{3, 17}}, p);
  }
}

TEST_CASE("CUDA element-wise layers match the CPU backend", "[gpu][layers]") {
  LayerDesc drop = simple(LayerKind::Dropout, "dropout");
  drop.dropout.p = 0.3f;
  for (Precision p : gpu_precisions()) {
    compare_layer(simple(LayerKind::Relu, "relu"), {Shape{2, 8, 5, 5}}, p);
    compare_layer(simple(LayerKind::Add, "add"), {Shape{2, 8, 5, 5}, Shape{2, 8, 5, 5}}, p);
    // Sizes that are not a whole number of 16-byte vectors take the scalar kernels.
    compare_layer(simple(LayerKind::Relu, "relu_odd"), {Shape{1, 3, 5, 5}}, p);
    compare_layer(simple(LayerKind::Add, "add_odd"), {Shape{1, 3, 5, 5}, Shape{1, 3, 5, 5}}, p);
    compare_layer(simple(LayerKind::Concat, "concat"), {Shape{2, 4, 5, 5}, Shape{2, 8, 5, 5}, Shape{2, 3, 5, 5}}, p);
    compare_layer(simple(LayerKind::Flatten, "flatten"), {Shape{2, 4, 3, 3}}, p);
    compare_layer(drop, {Shape{2, 8, 6, 6}}, p);
  }
}

TEST_CASE("CUDA layers reject bad configurations with one-line usage errors", "[gpu][layers]") {
  LayerOptions o;
  CHECK_THROWS_AS(gpu().create_layer(conv("bad_groups", 6, 3, 1, 1, 4, false), {Shape{1, 8, 5, 5}}, o), UsageError);
  CHECK_THROWS_AS(gpu().create_layer(conv("too_small", 4, 7, 1, 0, 1, false), {Shape{1, 3, 4, 4}}, o), UsageError);
  CHECK_THROWS_AS(gpu().create_layer(simple(LayerKind::Add, "add_mismatch"), {Shape{1, 2, 3, 3}, Shape{1, 2, 4, 4}}, o),
                  UsageError);
  CHECK_THROWS_AS(gpu().create_layer(simple(LayerKind::LRN, "lrn"), {Shape{1, 2, 3, 3}}, o), UsageError);
}
