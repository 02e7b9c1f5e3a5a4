// What the trainer pulls device batches from: a Stager over a DataSource (pinned host ring -> device buffers
// filled on the Copy stream, staging_depth deep), or device-resident synthetic data generated once.
#pragma once
#include <cstdint>
#include <memory>

#include "backend/backend.h"
#include "core/tensor.h"
#include "data/data_source.h"

namespace mg {

struct DeviceBatch {
  Tensor inputs;  // on the device, laid out as data_source.h's batch_inputs: images or token ids
  Tensor labels;  // int32, as batch_labels
  double input_wait_s = 0;  // host time the step waited for this batch to be ready
  // Copy-stream events around this batch's host->device copy (nullptr when nothing was copied); valid until
  // `held` (make_stager) more batches were taken.
  Event* copy_begin = nullptr;
  Event* copy_end = nullptr;
};

class InputPipeline {
 public:
  virtual ~InputPipeline() = default;
  // The next batch; the Compute stream is ordered after its copy. Valid until release() is called.
  virtual DeviceBatch next() = 0;
  // Compute has enqueued all work reading the batch from next(); its buffer can be refilled once that
  // work completes (tracked with an event recorded now on the Compute stream).
  virtual void release() = 0;
  virtual int64_t skipped_images() const { return 0; }
};

// synthetic_on_device: one random batch generated on the device once and reused (no copies).
std::unique_ptr<InputPipeline> make_device_synthetic_input(Backend& be, const DataSpec& spec);
// Stages batches from src through `depth` pinned host buffers and device buffers on the Copy stream. `held`:
// how many batches, counting the one just taken, the consumer may still read copy events of (a trainer that
// reads a step's timing one step late with K micro-batches per step holds 2K).
std::unique_ptr<InputPipeline> make_stager(Backend& be, std::unique_ptr<DataSource> src, const DataSpec& spec,
                                           int depth, int held);

}  // namespace mg
