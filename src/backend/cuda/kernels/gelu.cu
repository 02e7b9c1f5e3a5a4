// GELU in its tanh form, the CPU backend's (cpu_layers_gelu.cpp): y = 0.5 x (1 + tanh(k (x + 0.044715 x^3))),
// k = sqrt(2/pi), in fp32 whatever the element type; backward reads the input, never the output.
#include "backend/cuda/kernels/dtype.cuh"
#include "backend/cuda/kernels/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr float kGeluK = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluA = 0.044715f;

template <typename T>
__global__ void gelu_fwd_k(const T* x, T* y, int64_t n) {
  MG_GRID_LOOP(i, n) {
    const float v = to_f32(x[i]);
    y[i] = from_f32<T>(0.5f * v * (1.f + tanhf(kGeluK * (v + kGeluA * v * v * v))));
  }
}

// Element-wise, each thread reading dy[i] before writing dx[i], so dx may be dy.
template <typename T>
__global__ void gelu_bwd_k(const T* x, const T* dy, T* dx, int64_t n) {
  MG_GRID_LOOP(i, n) {
    const float v = to_f32(x[i]);
    const float t = tanhf(kGeluK * (v + kGeluA * v * v * v));
    const float d = 0.5f * (1.f + t) + 0.5f * v * (1.f - t * t) * kGeluK * (1.f + 3.f * kGeluA * v * v);
    dx[i] = from_f32<T>(to_f32(dy[i]) * d);
  }
}

}  // namespace

void gelu_forward(const void* x, void* y, DType dt, int64_t n, cudaStream_t s) {
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    gelu_fwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n);
  });
}

void gelu_backward(const void* x, const void* dy, void* dx, DType dt, int64_t n, cudaStream_t s) {
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    gelu_bwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(dy),
                                              static_cast<T*>(dx), n);
  });
}

}  // namespace mg::kernels
