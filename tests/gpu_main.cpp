// The GPU test set runs only where a CUDA device is present; elsewhere it says so and reports "skipped" (77).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "backend/backend.h"

int main(int argc, char** argv) {
  if (!mg::cuda_built()) {
    std::printf("GPU tests skipped: mgbench was built without the CUDA backend\n");
    return 77;
  }
  if (mg::cuda_device_count() == 0) {
    std::printf("GPU tests skipped: no CUDA device is present\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
