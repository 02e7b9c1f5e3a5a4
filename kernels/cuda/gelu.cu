// GELU, the CPU backend's two forms (cpu_layers_gelu.cpp) from the same functions (backend/gelu_math.h): GPT-2's
// tanh approximation and the exact form torch's nn.GELU() computes (ViT's). fp32 whatever the element type;
// backward reads the input, never the output.
#include "backend/gelu_math.h"
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

// The form is a template parameter so each kernel's inner loop has no branch.
template <bool Tanh>
__device__ __forceinline__ float gelu_f(float v) {
  if constexpr (Tanh) return gelu_tanh(v);
  else return gelu_erf(v);
}

template <bool Tanh>
__device__ __forceinline__ float gelu_grad_f(float v) {
  if constexpr (Tanh) return gelu_tanh_grad(v);
  else return gelu_erf_grad(v);
}

template <bool Tanh, typename T>
__global__ void gelu_fwd_k(const T* x, T* y, int64_t n) {
  MG_GRID_LOOP(i, n) { y[i] = from_f32<T>(gelu_f<Tanh>(to_f32(x[i]))); }
}

// Element-wise, each thread reading dy[i] before writing dx[i], so dx may be dy.
template <bool Tanh, typename T>
__global__ void gelu_bwd_k(const T* x, const T* dy, T* dx, int64_t n) {
  MG_GRID_LOOP(i, n) { dx[i] = from_f32<T>(to_f32(dy[i]) * gelu_grad_f<Tanh>(to_f32(x[i]))); }
}

}  // namespace

void gelu_forward(const void* x, void* y, DType dt, int64_t n, bool tanh_form, cudaStream_t s) {
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    const auto* xp = static_cast<const T*>(x);
    auto* yp = static_cast<T*>(y);
    if (tanh_form) gelu_fwd_k<true, T><<<grid_for(n), 256, 0, s>>>(xp, yp, n);
    else gelu_fwd_k<false, T><<<grid_for(n), 256, 0, s>>>(xp, yp, n);
  });
}

void gelu_backward(const void* x, const void* dy, void* dx, DType dt, int64_t n, bool tanh_form, cudaStream_t s) {
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    const auto* xp = static_cast<const T*>(x);
    const auto* dyp = static_cast<const T*>(dy);
    auto* dxp = static_cast<T*>(dx);
    if (tanh_form) gelu_bwd_k<true, T><<<grid_for(n), 256, 0, s>>>(xp, dyp, dxp, n);
    else gelu_bwd_k<false, T><<<grid_for(n), 256, 0, s>>>(xp, dyp, dxp, n);
  });
}

}  // namespace mg::kernels
