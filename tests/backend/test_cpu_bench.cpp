// Throughput probe, run by hand (hidden from the default run by the [.bench] tag):
//   build-cpu/tests/test_backend "[.bench]"
// Times ResNet-50 bottleneck-shaped conv+bn+relu stacks, forward + backward (input and parameter gradients),
// at batch 16 on this backend, then the same stacks in PyTorch (same thread count; NCHW as the torch anchor
// script trains, and channels_last) through /usr/bin/python3 when torch is importable. Prints the best of N
// iterations for each (the machine is shared, and the minimum is the least-disturbed sample) and the ratios.
// MG_BENCH_ITERS sets N (default 7).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "layer_test_util.h"

using namespace mgtest;

namespace {

struct StackSpec {
  const char* name;
  int64_t in_c, mid_c, out_c, hw, stride;
};

// Ours: conv1x1-bn-relu, conv3x3(stride)-bn-relu, conv1x1-bn-relu (a bottleneck without the shortcut).
double time_ours(const StackSpec& s, int64_t batch, int iters) {
  CpuBackend& be = backend();
  be.attach_thread();
  struct Conv {
    int64_t o, k, stride, pad;
  };
  const Conv convs[3] = {{s.mid_c, 1, 1, 0}, {s.mid_c, 3, s.stride, 1}, {s.out_c, 1, 1, 0}};
  std::vector<std::unique_ptr<LayerOp>> ops;
  std::vector<Shape> shapes{Shape{batch, s.in_c, s.hw, s.hw}};
  for (const Conv& c : convs) {
    const LayerDesc d = conv_layer("conv", c.o, c.k, c.stride, c.pad);
    for (LayerKind k : {LayerKind::Conv, LayerKind::BatchNorm, LayerKind::Relu}) {
      LayerDesc l = k == LayerKind::Conv ? d : make_desc(k, "l");
      ops.push_back(be.create_layer(l, {shapes.back()}, {}));
      shapes.push_back(ops.back()->output_shape());
    }
  }
  std::vector<std::vector<float>> params, grads;
  for (auto& op : ops) {
    std::vector<float*> pp, gg;
    for (const ParamShape& ps : op->params()) {
      params.push_back(random_vec(static_cast<size_t>(ps.shape.numel()), params.size() + 1, -0.1f, 0.1f));
      grads.emplace_back(static_cast<size_t>(ps.shape.numel()));
      pp.push_back(params.back().data());
      gg.push_back(grads.back().data());
    }
    op->bind(pp, gg);
  }
  std::vector<Tensor> act, grad;
  for (const Shape& sh : shapes) {
    const size_t bytes = static_cast<size_t>(sh.numel()) * 4;
    act.push_back(Tensor{be.device_alloc(bytes), sh, DType::F32});
    grad.push_back(Tensor{be.device_alloc(bytes), sh, DType::F32});
    be.fill_uniform(act.back(), -1.f, 1.f, 3);
    be.fill_uniform(grad.back(), -1.f, 1.f, 4);
  }
  std::vector<double> times;
  for (int it = 0; it < iters + 3; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < ops.size(); ++i) ops[i]->forward({act[i]}, act[i + 1], true);
    for (size_t i = ops.size(); i-- > 0;) {
      ops[i]->backward({act[i]}, act[i + 1], grad[i + 1], {i == 0 ? Tensor{} : grad[i]}, false);
    }
    if (it >= 3) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  for (size_t i = 0; i < act.size(); ++i) {
    be.device_free(act[i].data);
    be.device_free(grad[i].data);
  }
  return *std::min_element(times.begin(), times.end());
}

const char* kTorchScript = R"PY(
import sys, time, torch, torch.nn as nn
in_c, mid_c, out_c, hw, stride, batch, iters, threads, cl = map(int, sys.argv[1:10])
fmt = torch.channels_last if cl else torch.contiguous_format
torch.set_num_threads(threads)
def cbr(i, o, k, s, p):
    return [nn.Conv2d(i, o, k, s, p, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
m = nn.Sequential(*cbr(in_c, mid_c, 1, 1, 0), *cbr(mid_c, mid_c, 3, stride, 1), *cbr(mid_c, out_c, 1, 1, 0))
m = m.to(memory_format=fmt).train()
x = torch.randn(batch, in_c, hw, hw).to(memory_format=fmt).requires_grad_()
ts = []
for it in range(iters + 3):
    t0 = time.perf_counter()
    y = m(x)
    y.backward(torch.ones_like(y))
    if it >= 3: ts.append(time.perf_counter() - t0)
print(min(ts))
)PY";

double time_torch(const StackSpec& s, int64_t batch, int iters, int threads, bool channels_last) {
  const std::string path = "/tmp/mg_bench_torch_stack.py";
  std::ofstream(path) << kTorchScript;
  char cmd[512];
  std::snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %lld %lld %lld %lld %lld %lld %d %d %d 2>/dev/null", path.c_str(),
                static_cast<long long>(s.in_c), static_cast<long long>(s.mid_c), static_cast<long long>(s.out_c),
                static_cast<long long>(s.hw), static_cast<long long>(s.stride), static_cast<long long>(batch), iters,
                threads, channels_last ? 1 : 0);
  FILE* f = popen(cmd, "r");
  if (!f) return -1;
  double t = -1;
  if (std::fscanf(f, "%lf", &t) != 1) t = -1;
  pclose(f);
  return t;
}

}  // namespace

TEST_CASE("bench: ResNet-50 bottleneck conv+bn+relu stacks fwd+bwd, batch 16, vs PyTorch", "[.bench]") {
  const StackSpec specs[] = {{"conv2_x 56x56 256-64-256", 256, 64, 256, 56, 1},
                             {"conv3_x 56->28 256-128-512", 256, 128, 512, 56, 2},
                             {"conv4_x 14x14 1024-256-1024", 1024, 256, 1024, 14, 1},
                             {"conv5_x 7x7 2048-512-2048", 2048, 512, 2048, 7, 1}};
  const int64_t batch = 16;
  const int iters = std::getenv("MG_BENCH_ITERS") ? std::atoi(std::getenv("MG_BENCH_ITERS")) : 7;
  const int threads = backend().threads();
  double ours_total = 0, nchw_total = 0, cl_total = 0;
  bool have_torch = true;
  std::printf("best of %d, fwd+bwd, batch %lld, %d threads\n", iters, static_cast<long long>(batch), threads);
  for (const StackSpec& s : specs) {
    const double ours = time_ours(s, batch, iters);
    const double nchw = time_torch(s, batch, iters, threads, false);
    const double cl = time_torch(s, batch, iters, threads, true);
    have_torch = have_torch && nchw > 0 && cl > 0;
    ours_total += ours;
    nchw_total += nchw;
    cl_total += cl;
    std::printf("%-28s mgbench %8.2f ms | torch NCHW %8.2f ms (%.2fx) | torch channels_last %8.2f ms (%.2fx)\n",
                s.name, ours * 1e3, nchw * 1e3, nchw / ours, cl * 1e3, cl / ours);
  }
  std::printf("%-28s mgbench %8.2f ms | torch NCHW %8.2f ms (%.2fx) | torch channels_last %8.2f ms (%.2fx)\n",
              "total", ours_total * 1e3, nchw_total * 1e3, nchw_total / ours_total, cl_total * 1e3,
              cl_total / ours_total);
  if (!have_torch) WARN("torch not importable by /usr/bin/python3: printed mgbench times only");
  CHECK(ours_total > 0);
}
