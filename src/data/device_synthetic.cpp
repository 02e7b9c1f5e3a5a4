// --synthetic-source device: one random batch (images or tokens) generated on the device once and handed out
// every step, as tf_cnn_benchmarks does, so the measurement contains no input cost at all (input_wait is 0 by
// construction).
#include "core/counter_rng.h"
#include "core/error.h"
#include "data/input_pipeline.h"

namespace mg {

namespace {

class DeviceSynthetic final : public InputPipeline {
 public:
  DeviceSynthetic(Backend& be, const DataSpec& spec) : be_(be) {
    inputs_ = batch_inputs(spec);
    labels_ = batch_labels(spec);
    inputs_.data = be_.device_alloc(inputs_.bytes());
    try {
      labels_.data = be_.device_alloc(labels_.bytes());
    } catch (...) {
      be_.device_free(inputs_.data);
      throw;
    }
    // Per-shard seeds: replicas train on different (if fixed) data, as they would on real shards.
    const uint64_t key = splitmix64(spec.seed ^ (static_cast<uint64_t>(spec.shard) << 32));
    // Pixels like normalised ones, or token ids over the vocabulary.
    if (spec.seq_len > 0) {
      be_.fill_uniform(inputs_, 0.0f, static_cast<float>(spec.num_classes), key);
    } else {
      be_.fill_uniform(inputs_, -2.0f, 2.0f, key);
    }
    be_.fill_uniform(labels_, 0.0f, static_cast<float>(spec.num_classes), splitmix64(key + 1));
  }

  ~DeviceSynthetic() override {
    try {
      be_.synchronize(StreamKind::Compute);  // work reading the batch may still be queued (CUDA)
    } catch (const std::exception&) {
      // The failure was reported where the work was checked; freeing must go on.
    }
    be_.device_free(inputs_.data);
    be_.device_free(labels_.data);
  }

  DeviceBatch next() override { return DeviceBatch{inputs_, labels_, 0.0}; }
  void release() override {}

 private:
  Backend& be_;
  Tensor inputs_, labels_;
};

}  // namespace

std::unique_ptr<InputPipeline> make_device_synthetic_input(Backend& be, const DataSpec& spec) {
  if (spec.batch_size < 1) throw UsageError("--batch-size must be at least 1, got " + std::to_string(spec.batch_size));
  if (spec.image_size < 1) throw UsageError("--image-size must be at least 1, got " + std::to_string(spec.image_size));
  if (spec.num_classes < 1) throw UsageError("--num-classes must be at least 1");
  return std::make_unique<DeviceSynthetic>(be, spec);
}

}  // namespace mg
