// Helpers shared by the trainer tests: small deterministic batches (replica worlds: support/cpu_world.h).
#pragma once
#include <memory>
#include <vector>

#include "core/counter_rng.h"
#include "core/run_on_threads.h"
#include "support/cpu_world.h"

namespace mgtest {


// Deterministic host data: images in [-1, 1), labels in [0, classes).
inline std::vector<float> make_images(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 2.0f * mg::counter_uniform(seed, i) - 1.0f;
  return v;
}
inline std::vector<int32_t> make_labels(size_t n, int classes, uint64_t seed) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(mg::counter_uniform(seed, i) * classes);
  return v;
}

}  // namespace mgtest
