// Counter-based random numbers: value i of stream `seed` depends only on (seed, i), so fills are identical on
// the CPU and CUDA backends and independent of thread count. splitmix64 finaliser (Steele et al., 2014).
#pragma once
#include <cstdint>

#include "core/host_device.h"

namespace mg {

MG_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 24 random bits.
MG_HD float counter_uniform(uint64_t seed, uint64_t i) {
  return static_cast<float>(splitmix64(seed * 0xD1B54A32D192ED03ull + i) >> 40) * (1.0f / 16777216.0f);
}

}  // namespace mg
