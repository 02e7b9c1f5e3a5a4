// Throughput probe, run by hand (hidden from the default run by the [.bench] tag):
//   build-cpu/tests/test_backend "[.bench]"
// Times ResNet-50 bottleneck-shaped conv+bn+relu stacks, forward + backward (input and parameter gradients),
// at batch 16 on this backend, then the same stacks in PyTorch (channels_last, same thread count) through
// /usr/bin/python3 when torch is importable, and prints both medians and the ratio.
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
    LayerDesc d = make_desc(LayerKind::Conv, "conv");
    d.conv.out_channels = c.o;
    d.conv.kh = d.conv.kw = c.k;
    d.conv.stride_h = d.conv.stride_w = c.stride;
    d.conv.pad_h = d.conv.pad_w = c.pad;
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
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

const char* kTorchScript = R"PY(
import sys, time, torch, torch.nn as nn
in_c, mid_c, out_c, hw, stride, batch, iters, threads = map(int, sys.argv[1:9])
torch.set_num_threads(threads)
def cbr(i, o, k, s, p):
    return [nn.Conv2d(i, o, k, s, p, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
m = nn.Sequential(*cbr(in_c, mid_c, 1, 1, 0), *cbr(mid_c, mid_c, 3, stride, 1), *cbr(mid_c, out_c, 1, 1, 0))
m = m.to(memory_format=torch.channels_last).train()
x = torch.randn(batch, in_c, hw, hw).to(memory_format=torch.channels_last).requires_grad_()
ts = []
for it in range(iters + 3):
    t0 = time.perf_counter()
    y = m(x)
    y.backward(torch.ones_like(y))
    if it >= 3: ts.append(time.perf_counter() - t0)
ts.sort()
print(ts[len(ts) // 2])
)PY";

double time_torch(const StackSpec& s, int64_t batch, int iters, int threads) {
  const std::string path = "/tmp/mg_bench_torch_stack.py";
  std::ofstream(path) << kTorchScript;
  char cmd[512];
  std::snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %lld %lld %lld %lld %lld %lld %d %d 2>/dev/null", path.c_str(),
                static_cast<long long>(s.in_c), static_cast<long long>(s.mid_c), static_cast<long long>(s.out_c),
                static_cast<long long>(s.hw), static_cast<long long>(s.stride), static_cast<long long>(batch), iters,
                threads);
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
  double ours_total = 0, torch_total = 0;
  bool have_torch = true;
  for (const StackSpec& s : specs) {
    const double ours = time_ours(s, batch, iters);
    const double ref = time_torch(s, batch, iters, threads);
    have_torch = have_torch && ref > 0;
    ours_total += ours;
    torch_total += ref;
    std::printf("%-30s mgbench %8.2f ms   torch %8.2f ms   speed-up %.2fx\n", s.name, ours * 1e3, ref * 1e3,
                ref > 0 ? ref / ours : 0.0);
  }
  std::printf("%-30s mgbench %8.2f ms   torch %8.2f ms   speed-up %.2fx  (%d threads)\n", "total", ours_total * 1e3,
              torch_total * 1e3, have_torch ? torch_total / ours_total : 0.0, threads);
  if (!have_torch) WARN("torch not importable by /usr/bin/python3: printed mgbench times only");
  CHECK(ours_total > 0);
}
