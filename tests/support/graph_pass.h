// A model graph's forward (and, training, backward) on fixed data, on any backend: what the memory-plan and
// fusion tests compare, the CPU in tests/train and CUDA in tests/gpu. Deterministic batches come from here too.
#pragma once
#include <cstdint>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "core/counter_rng.h"
#include "models/layer_desc.h"
#include "train/model_graph.h"
#include "train/param_store.h"

namespace mg::test {

// Deterministic host data: images in [-1, 1), labels in [0, classes).
inline std::vector<float> make_images(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 2.0f * counter_uniform(seed, i) - 1.0f;
  return v;
}
inline std::vector<int32_t> make_labels(size_t n, int classes, uint64_t seed) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(counter_uniform(seed, i) * classes);
  return v;
}

struct GraphPass {
  std::vector<float> logits, grads;
  size_t buffer_bytes = 0, peak_bytes = 0;
};

// Two passes of model m at batch 2 and 32x32 images (a language model: 32 token ids in [0, vocab) a sequence,
// a label a token) with fixed parameters and data; the second runs on buffers the first left full of other
// tensors' values. reuse and fuse as ModelGraph's reuse_buffers and fuse_layers.
inline GraphPass run_graph(Backend& be, const ModelDesc& m, bool training, bool reuse, bool fuse) {
  constexpr int64_t batch = 2, image = 32;
  ModelGraph net(be, m, batch, image, Precision::FP32, 7, training, reuse, fuse);
  ParamStore store(be, net.param_shapes());
  store.initialize(42);
  net.bind(store);
  const auto classes = static_cast<int>(m.num_classes);
  const auto images = make_images(static_cast<size_t>(batch * image * image * 3), 3);
  const auto ids = make_labels(static_cast<size_t>(batch * image), classes, 3);  // a language model's input
  const int64_t rows = m.tokens ? batch * image : batch;
  const auto labels = make_labels(static_cast<size_t>(rows), classes, 4);
  const size_t in_bytes = m.tokens ? ids.size() * sizeof(int32_t) : images.size() * sizeof(float);
  DeviceBuffer img(be, in_bytes), lab(be, labels.size() * sizeof(int32_t));
  be.copy_h2d(img.get(), m.tokens ? static_cast<const void*>(ids.data()) : static_cast<const void*>(images.data()),
              in_bytes, StreamKind::Compute);
  be.copy_h2d(lab.get(), labels.data(), labels.size() * sizeof(int32_t), StreamKind::Compute);
  const Tensor input = m.tokens ? img.tensor(Shape{batch, image}, DType::I32)
                                : img.tensor(Shape{batch, 3, image, image}, DType::F32);
  for (int pass = 0; pass < 2; ++pass) {
    net.forward(input, training);
    if (training) {
      net.loss(lab.tensor(Shape{rows}, DType::I32), 1.0f);
      net.backward(false, nullptr);
    }
  }
  be.synchronize(StreamKind::Compute);
  GraphPass p;
  p.logits.resize(static_cast<size_t>(net.logits().shape.numel()));
  be.copy_d2h(p.logits.data(), net.logits().data, p.logits.size() * sizeof(float), StreamKind::Compute);
  be.synchronize(StreamKind::Compute);
  if (training) p.grads = store.download_grads();
  p.buffer_bytes = net.buffer_bytes();
  p.peak_bytes = be.peak_memory_bytes();
  return p;
}

}  // namespace mg::test
