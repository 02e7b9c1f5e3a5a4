// AdamW's bias corrections, computed one way for every backend's update (backend.h states the update).
#pragma once
#include <cstdint>

namespace mg {

// For a step counted from 1: c1 = 1 / (1 - beta1^step), c2 = 1 / (1 - beta2^step), in double before rounding.
struct AdamBiasCorrection {
  float c1, c2;
};
AdamBiasCorrection adam_bias_correction(float beta1, float beta2, int64_t step);

}  // namespace mg
