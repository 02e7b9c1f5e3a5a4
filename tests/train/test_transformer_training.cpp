// The transformer test networks train on the CPU backend, on one fixed batch at every precision the CPU has, the
// loss falling as a memorising network's must. gpt2-tiny: the transformer layers, the token input path of the
// model graph and the per-token cross-entropy (next-token labels); vit-tiny: the patch convolution, the class
// token and position table, full attention, exact GELU and the head on the class token (one label an image).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "core/counter_rng.h"
#include "models/registry.h"
#include "train/fixed_batch_training.h"
#include "train/model_graph.h"
#include "train/param_store.h"
#include "support/skip.h"

using namespace mg;

namespace {

// One batch a network is trained on again and again.
struct FixedBatch {
  std::string model;
  int64_t batch = 0, size = 0;  // size: a language model's sequence length, else the image size
  std::vector<uint8_t> inputs;  // int32 token ids {N,T}, or fp32 images {N,3,H,W} NHWC in memory
  std::vector<int32_t> labels;
};

// gpt2-tiny's: token ids and, for each, the next one (the last token of a row predicts the row's first).
FixedBatch token_batch() {
  FixedBatch b{"gpt2-tiny", 2, 32, {}, {}};
  const int64_t vocab = build_model(b.model).num_classes;
  std::vector<int32_t> ids(static_cast<size_t>(b.batch * b.size));
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<int32_t>(counter_uniform(5, i) * static_cast<float>(vocab));
  b.labels.resize(ids.size());
  for (int64_t n = 0; n < b.batch; ++n)
    for (int64_t t = 0; t < b.size; ++t)
      b.labels[static_cast<size_t>(n * b.size + t)] = ids[static_cast<size_t>(n * b.size + (t + 1) % b.size)];
  b.inputs.resize(ids.size() * sizeof(int32_t));
  std::memcpy(b.inputs.data(), ids.data(), b.inputs.size());
  return b;
}

// vit-tiny's: eight 32x32 images, each a colour of its own plus as much uniform noise (pixels in [-1, 1]), with
// random labels. The colour is what tells the images apart quickly: the class token starts blind to the patches
// (N(0, 0.02) projections), and noise alone, averaged over the patches it attends to, leaves SGD for tens of
// steps at ln 8, predicting only which labels the batch has.
FixedBatch image_batch() {
  FixedBatch b{"vit-tiny", 8, 32, {}, {}};
  const int64_t classes = build_model(b.model).num_classes;
  std::vector<float> pixels(static_cast<size_t>(b.batch * b.size * b.size * 3));  // NHWC
  for (size_t i = 0; i < pixels.size(); ++i) {
    const size_t image = i / static_cast<size_t>(b.size * b.size * 3), channel = i % 3;
    pixels[i] = (counter_uniform(7, image * 3 + channel) - 0.5f) + (counter_uniform(5, i) - 0.5f);
  }
  for (uint64_t n = 0; n < static_cast<uint64_t>(b.batch); ++n)
    b.labels.push_back(static_cast<int32_t>(counter_uniform(6, n) * static_cast<float>(classes)));
  b.inputs.resize(pixels.size() * sizeof(float));
  std::memcpy(b.inputs.data(), pixels.data(), b.inputs.size());
  return b;
}

// Losses of 50 SGD steps of b.model on the batch b at precision p.
std::vector<float> losses_on(Backend& be, const FixedBatch& b, Precision p) {
  const ModelDesc m = build_model(b.model);
  ModelGraph net(be, m, b.batch, b.size, p, 1, true);
  ParamStore store(be, net.param_shapes());
  store.initialize(3);
  net.bind(store);
  DeviceBuffer inputs(be, b.inputs.size()), labels(be, b.labels.size() * sizeof(int32_t));
  be.copy_h2d(inputs.get(), b.inputs.data(), b.inputs.size(), StreamKind::Compute);
  be.copy_h2d(labels.get(), b.labels.data(), b.labels.size() * sizeof(int32_t), StreamKind::Compute);
  const Tensor x = m.tokens ? inputs.tensor(Shape{b.batch, b.size}, DType::I32)
                            : inputs.tensor(Shape{b.batch, 3, b.size, b.size}, DType::F32);
  const Tensor y = labels.tensor(Shape{static_cast<int64_t>(b.labels.size())}, DType::I32);
  return fixed_batch_sgd_losses(be, net, store, x, y, 50, 0.05f);
}

// From about ln(classes), near-uniform predictions, to memorised: below 0.05, where a network blind to the inputs
// could not go (gpt2-tiny's rows share positions but not tokens: ln 2 at best; vit-tiny's eight images' labels:
// ln 8, where they differ), nor vit-tiny's head alone on its initial features (0.13 after 50 steps, with backward
// stopped at the class token).
void check_memorised(const std::vector<float>& losses, int64_t classes) {
  INFO("loss " << losses.front() << " -> " << losses[24] << " -> " << losses.back());
  CHECK(std::isfinite(losses.back()));
  CHECK(losses.front() > 0.75f * std::log(static_cast<float>(classes)));
  CHECK(losses.back() < 0.5f * losses.front());
  CHECK(losses.back() < 0.05f);
}

// b's model memorises b at precision p on this machine's CPU (skipped where the CPU lacks p).
void check_trains(const FixedBatch& b, Precision p) {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  if (!be->supports(p)) MG_SKIP(be->unsupported_reason(p));
  be->attach_thread();
  const std::vector<float> losses = losses_on(*be, b, p);
  check_memorised(losses, build_model(b.model).num_classes);
}

}  // namespace

TEST_CASE("gpt2-tiny: the loss on one batch of tokens falls over 50 SGD steps at fp32") {
  check_trains(token_batch(), Precision::FP32);
}

TEST_CASE("gpt2-tiny: the loss on one batch of tokens falls over 50 SGD steps at bf16") {
  check_trains(token_batch(), Precision::BF16);
}

TEST_CASE("vit-tiny: the loss on one batch of images falls over 50 SGD steps at fp32") {
  check_trains(image_batch(), Precision::FP32);
}

TEST_CASE("vit-tiny: the loss on one batch of images falls over 50 SGD steps at bf16") {
  check_trains(image_batch(), Precision::BF16);
}
