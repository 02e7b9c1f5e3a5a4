// --input-only: drives an input pipeline (decode, augment, stage) with no training, to measure the ceiling
// the input sets on training throughput.
#pragma once
#include <cstdint>

#include "backend/backend.h"
#include "data/input_pipeline.h"

namespace mg {

struct InputBenchResult {
  int64_t images = 0;        // delivered during the timed steps
  double seconds = 0;        // wall time of the timed steps, up to the last batch being on the device
  double images_per_s = 0;
  double input_wait_s = 0;   // sum of DeviceBatch::input_wait_s over the timed steps
  int64_t skipped_images = 0;
};

// Calls next()/release() warmup + steps times on the calling thread (which must be attached to be) and times
// the last `steps`. Run one per replica thread; the total is the sum of images_per_s.
InputBenchResult run_input_only(Backend& be, InputPipeline& in, int64_t batch_size, int warmup, int steps);

}  // namespace mg
