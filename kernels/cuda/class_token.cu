// ViT's class token in and out, the CPU backend's semantics (cpu_layers_class_token.cpp). PatchTokens puts the
// class token in front of the patch rows and adds the position table; its parameter gradients are sums over the
// batch, taken by one thread per (token, channel) in batch order, so every step gives the same sums without
// atomics. ClassToken reads each sequence's row 0. Pure copies keep their element type; sums are fp32.
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr int kThreads = 256;

// y[b,t,:] = (t == 0 ? cls : x[b,t-1,:]) + pos[t,:]; the grid's NHWC memory is {N,p,c} rows already.
template <typename T>
__global__ void patch_fwd_k(const T* x, const float* cls, const float* pos, T* y, int64_t n, int64_t p, int64_t c) {
  const int64_t t = p + 1;
  MG_GRID_LOOP(i, n * t * c) {
    const int64_t row = i / c, col = i - row * c;
    const int64_t b = row / t, tt = row - b * t;
    const float v = tt == 0 ? cls[col] : to_f32(x[(b * p + tt - 1) * c + col]);
    y[i] = from_f32<T>(v + pos[tt * c + col]);
  }
}

// One thread per (t, c): dpos[t,c] (=|+=) sum_b dy[b,t,c], and the class token's from row 0.
template <typename T>
__global__ void patch_param_grad_k(const T* dy, float* dcls, float* dpos, int64_t n, int64_t t, int64_t c,
                                   bool accumulate) {
  MG_GRID_LOOP(i, t * c) {
    float s = 0;
    for (int64_t b = 0; b < n; ++b) s += to_f32(dy[b * t * c + i]);
    dpos[i] = accumulate ? dpos[i] + s : s;
    if (i < c) dcls[i] = accumulate ? dcls[i] + s : s;
  }
}

// dx[b,j,:] = dy[b,1+j,:]: the patch rows' gradient, as they were added.
template <typename T>
__global__ void patch_input_grad_k(const T* dy, T* dx, int64_t n, int64_t p, int64_t c) {
  MG_GRID_LOOP(i, n * p * c) {
    const int64_t b = i / (p * c);
    dx[i] = dy[i + (b + 1) * c];
  }
}

template <typename T>
__global__ void class_fwd_k(const T* x, T* y, int64_t n, int64_t t, int64_t c) {
  MG_GRID_LOOP(i, n * c) {
    const int64_t b = i / c;
    y[i] = x[i + b * (t - 1) * c];
  }
}

// Every element of dx written once (row 0 from dy, the rest zero), so dx needs no clearing first.
template <typename T>
__global__ void class_bwd_k(const T* dy, T* dx, int64_t n, int64_t t, int64_t c) {
  MG_GRID_LOOP(i, n * t * c) {
    const int64_t row = i / c, col = i - row * c;
    const int64_t b = row / t;
    dx[i] = row - b * t == 0 ? dy[b * c + col] : from_f32<T>(0.f);
  }
}

}  // namespace

void patch_tokens_forward(const void* x, const float* cls, const float* pos, void* y, DType dt, int64_t n, int64_t p,
                          int64_t c, cudaStream_t s) {
  const int64_t total = n * (p + 1) * c;
  launch_float(dt, total, [&](auto tag) {
    using T = decltype(tag);
    patch_fwd_k<T><<<grid_for(total, kThreads), kThreads, 0, s>>>(static_cast<const T*>(x), cls, pos,
                                                                  static_cast<T*>(y), n, p, c);
  });
}

void patch_tokens_backward(const void* dy, void* dx, float* dcls, float* dpos, DType dt, int64_t n, int64_t p,
                           int64_t c, bool accumulate, cudaStream_t s) {
  const int64_t t = p + 1;
  launch_float(dt, t * c, [&](auto tag) {
    using T = decltype(tag);
    patch_param_grad_k<T><<<grid_for(t * c, kThreads), kThreads, 0, s>>>(static_cast<const T*>(dy), dcls, dpos, n, t,
                                                                          c, accumulate);
  });
  if (!dx) return;
  launch_float(dt, n * p * c, [&](auto tag) {
    using T = decltype(tag);
    patch_input_grad_k<T><<<grid_for(n * p * c, kThreads), kThreads, 0, s>>>(static_cast<const T*>(dy),
                                                                              static_cast<T*>(dx), n, p, c);
  });
}

void class_token_forward(const void* x, void* y, DType dt, int64_t n, int64_t t, int64_t c, cudaStream_t s) {
  launch_float(dt, n * c, [&](auto tag) {
    using T = decltype(tag);
    class_fwd_k<T><<<grid_for(n * c, kThreads), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n, t,
                                                                  c);
  });
}

void class_token_backward(const void* dy, void* dx, DType dt, int64_t n, int64_t t, int64_t c, cudaStream_t s) {
  launch_float(dt, n * t * c, [&](auto tag) {
    using T = decltype(tag);
    class_bwd_k<T><<<grid_for(n * t * c, kThreads), kThreads, 0, s>>>(static_cast<const T*>(dy), static_cast<T*>(dx),
                                                                      n, t, c);
  });
}

}  // namespace mg::kernels
