#include "backend/adam_bias_correction.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace mg {

AdamBiasCorrection adam_bias_correction(float beta1, float beta2, int64_t step) {
  MG_ENSURE(step >= 1, "adamw_update: step counts from 1, got " + std::to_string(step));
  const double s = static_cast<double>(step);
  return {static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(beta1), s))),
          static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(beta2), s)))};
}

}  // namespace mg
