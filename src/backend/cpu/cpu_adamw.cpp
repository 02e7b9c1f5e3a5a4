// AdamW on the CPU backend (backend.h states the update): torch.optim.AdamW's order of operations, the weight
// decay applied to the parameter before the moment step, bias corrections from the step count.
#include <cmath>

#include "backend/adam_bias_correction.h"
#include "backend/cpu/cpu_backend.h"

namespace mg {

void CpuBackend::adamw_update(float* p, const float* g, float* m, float* v, size_t n, int64_t step, float lr,
                              float beta1, float beta2, float eps, float weight_decay, float grad_scale) {
  const AdamBiasCorrection b = adam_bias_correction(beta1, beta2, step);
  const float c1 = b.c1, c2 = b.c2;
  const float decay = 1.f - lr * weight_decay;
  const int64_t count = static_cast<int64_t>(n);
#pragma omp parallel for simd
  for (int64_t i = 0; i < count; ++i) {
    const float gi = g[i] * grad_scale;
    m[i] = beta1 * m[i] + (1.f - beta1) * gi;
    v[i] = beta2 * v[i] + (1.f - beta2) * gi * gi;
    p[i] = p[i] * decay - lr * (m[i] * c1) / (std::sqrt(v[i] * c2) + eps);
  }
}

}  // namespace mg
