// gpt2-tiny trains on the CPU backend: the transformer layers, the token input path of the model graph and the
// per-token cross-entropy together, on one fixed batch (next-token labels) at every precision the CPU has, the
// loss falling as a memorising network's must.
#include <catch2/catch.hpp>

#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "core/counter_rng.h"
#include "models/registry.h"
#include "train/model_graph.h"
#include "train/param_store.h"
#include "support/skip.h"

using namespace mg;

namespace {

// Losses of 50 SGD steps of gpt2-tiny on one fixed batch of tokens at precision p.
std::vector<float> fixed_batch_losses(Backend& be, Precision p) {
  const ModelDesc m = build_model("gpt2-tiny");
  const int64_t batch = 2, seq = 32, vocab = m.num_classes;
  ModelGraph net(be, m, batch, seq, p, 1, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(3);
  net.bind(store);
  // Token ids and, for each, the next one (the last token of a row predicts the row's first).
  std::vector<int32_t> ids(static_cast<size_t>(batch * seq)), next(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(counter_uniform(5, i) * static_cast<float>(vocab));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t t = 0; t < seq; ++t) next[static_cast<size_t>(n * seq + t)] = ids[static_cast<size_t>(n * seq + (t + 1) % seq)];
  DeviceBuffer tokens(be, ids.size() * sizeof(int32_t)), labels(be, next.size() * sizeof(int32_t));
  be.copy_h2d(tokens.get(), ids.data(), ids.size() * sizeof(int32_t), StreamKind::Compute);
  be.copy_h2d(labels.get(), next.data(), next.size() * sizeof(int32_t), StreamKind::Compute);
  const Tensor x = tokens.tensor(Shape{batch, seq}, DType::I32), y = labels.tensor(Shape{batch * seq}, DType::I32);
  std::vector<float> losses;
  for (int s = 0; s < 50; ++s) {
    net.forward(x, true);
    net.loss(y, 1.0f);
    net.backward(false, {});
    be.sgd_update(store.params(), store.grads(), store.momentum(), store.size(), 0.05f, 0.9f, 0.f, 1.f);
    float loss = 0;
    be.copy_d2h(&loss, net.loss_tensor().data, sizeof(float), StreamKind::Compute);
    be.synchronize(StreamKind::Compute);
    losses.push_back(loss);
  }
  return losses;
}

void check_memorised(const std::vector<float>& losses) {
  INFO("loss " << losses.front() << " -> " << losses[24] << " -> " << losses.back());
  CHECK(std::isfinite(losses.back()));
  CHECK(losses.front() > 4.0f);  // about ln 256 = 5.5 for near-uniform predictions at the start
  CHECK(losses.back() < 0.5f * losses.front());
  // Memorised: rows share positions but not tokens, so a network blind to the ids could not go below ln 2.
  CHECK(losses.back() < 0.2f);
}

}  // namespace

TEST_CASE("gpt2-tiny: the loss on one batch of tokens falls over 50 SGD steps at fp32") {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  be->attach_thread();
  check_memorised(fixed_batch_losses(*be, Precision::FP32));
}

TEST_CASE("gpt2-tiny: the loss on one batch of tokens falls over 50 SGD steps at bf16") {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  if (!be->supports(Precision::BF16)) MG_SKIP(be->unsupported_reason(Precision::BF16));
  be->attach_thread();
  check_memorised(fixed_batch_losses(*be, Precision::BF16));
}
