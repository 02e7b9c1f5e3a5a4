// GELU and its derivative in fp32, one definition for the CPU backend's loops and the CUDA kernels:
//   tanh form (GPT-2's):  y = 0.5 x (1 + tanh(k (x + 0.044715 x^3))),  k = sqrt(2/pi)
//   exact form (torch's nn.GELU(), ViT's):  y = 0.5 x (1 + erf(x / sqrt 2))
#pragma once
#include <cmath>

#include "core/host_device.h"

namespace mg {

constexpr float kGeluK = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluA = 0.044715f;
constexpr float kGeluRsqrt2 = 0.7071067811865476f;    // 1/sqrt(2)
constexpr float kGeluRsqrt2Pi = 0.3989422804014327f;  // 1/sqrt(2 pi)

MG_HD float gelu_tanh(float v) { return 0.5f * v * (1.f + tanhf(kGeluK * (v + kGeluA * v * v * v))); }

MG_HD float gelu_tanh_grad(float v) {
  const float t = tanhf(kGeluK * (v + kGeluA * v * v * v));
  return 0.5f * (1.f + t) + 0.5f * v * (1.f - t * t) * kGeluK * (1.f + 3.f * kGeluA * v * v);
}

MG_HD float gelu_erf(float v) { return 0.5f * v * (1.f + erff(v * kGeluRsqrt2)); }

MG_HD float gelu_erf_grad(float v) {
  return 0.5f * (1.f + erff(v * kGeluRsqrt2)) + v * kGeluRsqrt2Pi * expf(-0.5f * v * v);
}

}  // namespace mg
