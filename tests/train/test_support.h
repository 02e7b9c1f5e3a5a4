// Helpers shared by the trainer tests: CPU replicas with communicators and small deterministic batches.
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "comm/world.h"
#include "core/counter_rng.h"

namespace mgtest {

struct CpuWorld {
  std::vector<std::unique_ptr<mg::Backend>> backends;
  std::vector<std::unique_ptr<mg::Communicator>> comms;

  explicit CpuWorld(int n, const std::string& key = "test") {
    mg::BackendOptions opt;
    opt.threads = 1;
    std::vector<mg::Backend*> raw;
    for (int i = 0; i < n; ++i) {
      backends.push_back(mg::make_backend(mg::DeviceKind::Cpu, i, opt));
      raw.push_back(backends.back().get());
    }
    if (n > 1) {
      mg::CommOptions copt;
      copt.library = "gloo";
      copt.timeout_s = 60;
      copt.job_key = key;
      comms = mg::create_communicators(mg::LaunchInfo{}, raw, copt);
    }
  }
  mg::Communicator* comm(int i) { return comms.empty() ? nullptr : comms[i].get(); }
};

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
