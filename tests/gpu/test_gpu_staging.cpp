// Host staging on the GPU: batches arrive intact, and with depth 2 the next batch is produced and copied while
// compute runs, so the step waits for input only at start-up.
#include <algorithm>
#include <chrono>
#include <thread>

#include "data/data_source.h"
#include "data/input_pipeline.h"
#include "gpu_test_util.h"

using namespace gputest;

TEST_CASE("host staging delivers the source's batches and overlaps compute", "[gpu][staging]") {
  Backend& be = gpu();
  DataSpec spec;
  spec.batch_size = 32;
  spec.image_size = 64;
  spec.num_classes = 10;
  spec.seed = 5;
  const size_t pixels = static_cast<size_t>(spec.batch_size * spec.image_size * spec.image_size * 3);

  // How long the source takes per batch, so the simulated compute is clearly longer.
  auto ref = make_data_source(spec);
  std::vector<float> ref_images(pixels);
  std::vector<int32_t> ref_labels(static_cast<size_t>(spec.batch_size));
  const auto t0 = std::chrono::steady_clock::now();
  ref->next(ref_images.data(), ref_labels.data());  // batch 0, kept for the content check
  const double produce_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double compute_s = std::max(0.03, 3 * produce_s);

  auto pipe = make_stager(be, make_data_source(spec), spec, 2, 2);
  std::vector<double> waits;
  for (int step = 0; step < 10; ++step) {
    DeviceBatch b = pipe->next();
    waits.push_back(b.input_wait_s);
    if (step == 0) {
      CHECK(download(be, b.inputs.data, pixels, DType::F32) == ref_images);
      std::vector<int32_t> labels(ref_labels.size());
      be.copy_d2h(labels.data(), b.labels.data, labels.size() * 4, StreamKind::Compute);
      be.synchronize(StreamKind::Compute);
      CHECK(labels == ref_labels);
    }
    // Simulated compute: the Compute stream is busy for compute_s.
    be.host_fn(StreamKind::Compute,
               [compute_s] { std::this_thread::sleep_for(std::chrono::duration<double>(compute_s)); });
    pipe->release();
    be.synchronize(StreamKind::Compute);
  }
  std::vector<double> steady(waits.begin() + 2, waits.end());
  std::sort(steady.begin(), steady.end());
  const double median = steady[steady.size() / 2];
  INFO("median input wait " << median << " s with " << compute_s << " s of compute per step (source: " << produce_s
                            << " s per batch)");
  CHECK(median < 0.2 * compute_s);
}
