// gpt2 end to end on the GPU: the transformer layers, the token input path and the per-token loss together, at
// every precision the GPU supports. The first step's loss must agree with the CPU backend's (fp32, the same
// initialisation and tokens) within the precision's layer tolerance, and AdamW on one fixed batch must make the
// loss fall (fp16 with the trainer's dynamic loss scaling).
#include <cmath>
#include <vector>

#include "backend/device_buffer.h"
#include "core/counter_rng.h"
#include "gpu_test_util.h"
#include "models/registry.h"

using namespace gputest;

namespace {

constexpr int64_t kBatch = 2, kSeq = 64;
constexpr int kSteps = 50;  // the loss falls over 50 steps on one fixed batch, at every precision

// gpt2's loss at each of `steps` AdamW steps (lr 1e-3) on one fixed batch of random ids, each labelled with the
// next one of its row.
std::vector<float> gpt2_losses(Backend& be, Precision p, int steps) {
  be.attach_thread();
  const ModelDesc m = build_model("gpt2");
  const int64_t vocab = m.num_classes;
  ModelGraph net(be, m, kBatch, kSeq, p, 1, true);
  ParamStore store(be, net.param_shapes(), /*second_moment=*/true);
  store.initialize(3);
  net.bind(store);
  std::vector<int32_t> ids(static_cast<size_t>(kBatch * kSeq)), next(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<int32_t>(counter_uniform(5, i) * static_cast<float>(vocab));
  for (int64_t n = 0; n < kBatch; ++n)
    for (int64_t t = 0; t < kSeq; ++t)
      next[static_cast<size_t>(n * kSeq + t)] = ids[static_cast<size_t>(n * kSeq + (t + 1) % kSeq)];
  DeviceBuffer tokens(be, ids.size() * sizeof(int32_t)), labels(be, next.size() * sizeof(int32_t));
  be.copy_h2d(tokens.get(), ids.data(), ids.size() * sizeof(int32_t), StreamKind::Compute);
  be.copy_h2d(labels.get(), next.data(), next.size() * sizeof(int32_t), StreamKind::Compute);
  const Tensor x = tokens.tensor(Shape{kBatch, kSeq}, DType::I32), y = labels.tensor(Shape{kBatch * kSeq}, DType::I32);
  return adamw_losses(be, net, store, x, y, p, steps);
}

}  // namespace

TEST_CASE("gpt2 trains on the GPU at every precision and starts where the CPU backend does", "[gpu][training]") {
  const float cpu_first = gpt2_losses(cpu(), Precision::FP32, 1).front();
  REQUIRE(std::isfinite(cpu_first));
  for (Precision p : gpu_precisions()) {
    const std::vector<float> l = gpt2_losses(gpu(), p, kSteps);
    INFO(precision_name(p) << ": loss " << l.front() << " -> " << l.back() << ", CPU's first " << cpu_first);
    for (float v : l) CHECK(std::isfinite(v));
    CHECK(std::abs(l.front() - cpu_first) <= tolerance(p) * cpu_first);
    CHECK(l.back() < 0.9f * l.front());
  }
}
