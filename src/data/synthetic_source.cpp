#include "data/synthetic_source.h"

#include <omp.h>

#include <algorithm>

#include "core/counter_rng.h"
#include "core/error.h"
#include "core/omp_team.h"

namespace mg {

namespace {

class HostSyntheticSource final : public DataSource {
 public:
  explicit HostSyntheticSource(const DataSpec& spec) : spec_(spec) {}

  void next(void* inputs, int32_t* labels) override {
    // Distinct streams per shard and batch: replicas must not all see the same numbers.
    const uint64_t key = splitmix64(spec_.seed ^ splitmix64((static_cast<uint64_t>(spec_.shard) << 40) + batch_));
    ++batch_;
    if (spec_.seq_len > 0) return tokens(static_cast<int32_t*>(inputs), labels, key);
    float* images = static_cast<float*>(inputs);
    const int64_t n = spec_.batch_size * spec_.image_size * spec_.image_size * 3;
    // Values like normalised pixels, in [-2, 2). Two floats per 64-bit draw halves the hashing cost, which is
    // what limits this generator; spec.threads workers share it like decode workers would.
#pragma omp parallel for num_threads(omp_team(spec_.threads)) schedule(static)
    for (int64_t p = 0; p < (n + 1) / 2; ++p) {
      const uint64_t r = splitmix64(key + static_cast<uint64_t>(p));
      const float a = static_cast<float>(r >> 40) * (4.0f / 16777216.0f) - 2.0f;
      const float b = static_cast<float>((r >> 8) & 0xFFFFFF) * (4.0f / 16777216.0f) - 2.0f;
      images[2 * p] = a;
      if (2 * p + 1 < n) images[2 * p + 1] = b;
    }
    const uint64_t lkey = splitmix64(key + 0xA11CE);
    for (int64_t i = 0; i < spec_.batch_size; ++i) {
      labels[i] = static_cast<int32_t>(counter_uniform(lkey, static_cast<uint64_t>(i)) *
                                       static_cast<float>(spec_.num_classes));
      if (labels[i] >= spec_.num_classes) labels[i] = static_cast<int32_t>(spec_.num_classes - 1);
    }
  }

  int64_t samples_per_epoch() const override { return 0; }
  int64_t num_classes() const override { return spec_.num_classes; }
  std::string describe() const override {
    return spec_.seq_len > 0 ? "synthetic tokens generated on the host every batch"
                             : "synthetic data generated on the host every batch";
  }

 private:
  // Rows of seq_len + 1 random tokens, as a token file's windows: each label is the next input.
  void tokens(int32_t* ids, int32_t* labels, uint64_t key) const {
    const int64_t t = spec_.seq_len;
    for (int64_t r = 0; r < spec_.batch_size; ++r) {
      for (int64_t k = 0; k <= t; ++k) {
        const auto v = std::min(static_cast<int32_t>(counter_uniform(key, static_cast<uint64_t>(r * (t + 1) + k)) *
                                                     static_cast<float>(spec_.num_classes)),
                                static_cast<int32_t>(spec_.num_classes - 1));
        if (k < t) ids[r * t + k] = v;
        if (k > 0) labels[r * t + k - 1] = v;
      }
    }
  }

  DataSpec spec_;
  uint64_t batch_ = 0;
};

}  // namespace

std::unique_ptr<DataSource> make_host_synthetic_source(const DataSpec& spec) {
  if (spec.num_classes < 1) throw UsageError("--num-classes must be at least 1");
  if (spec.threads < 1) throw UsageError("--data-threads must be at least 1, got " + std::to_string(spec.threads));
  return std::make_unique<HostSyntheticSource>(spec);
}

}  // namespace mg
