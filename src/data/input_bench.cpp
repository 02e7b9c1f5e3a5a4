#include "data/input_bench.h"

#include <chrono>

#include "core/error.h"

namespace mg {

InputBenchResult run_input_only(Backend& be, InputPipeline& in, int64_t batch_size, int warmup, int steps) {
  if (steps < 1) throw UsageError("--steps must be at least 1 for --input-only, got " + std::to_string(steps));
  for (int i = 0; i < warmup; ++i) {
    in.next();
    in.release();
  }
  auto done = be.create_event();
  InputBenchResult r;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    r.input_wait_s += in.next().input_wait_s;
    in.release();
  }
  // Compute was ordered after every copy, so once it reaches this event all batches are on the device.
  be.record(*done, StreamKind::Compute);
  be.synchronize(*done);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.images = batch_size * steps;
  r.images_per_s = r.seconds > 0 ? static_cast<double>(r.images) / r.seconds : 0;
  r.skipped_images = in.skipped_images();
  return r;
}

}  // namespace mg
