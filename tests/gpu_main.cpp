// The GPU test set runs only where a CUDA device is present; elsewhere it says so and reports "skipped" (77).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "backend/backend.h"
#include "backend/gpu_probe.h"

int main(int argc, char** argv) {
  if (!mg::cuda_built()) {
    std::printf("GPU tests skipped: mgbench was built without the CUDA backend\n");
    return 77;
  }
  const mg::GpuProbe probe = mg::probe_gpus(mg::gather_gpu_facts());
  if (probe.state == mg::GpuState::Unusable) {  // a GPU CUDA cannot use is a failure to report, not a skip
    std::printf("GPU tests failed: %s\n", probe.cause.c_str());
    return 1;
  }
  if (probe.count == 0) {
    std::printf("GPU tests skipped: no CUDA device is present\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
