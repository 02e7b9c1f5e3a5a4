// Memory-bound layers that need no library: ReLU, residual add, channel concat/split, global average pooling
// and dropout, forward and backward, on NHWC tensors of any floating element type.
#include "backend/dropout_mask.h"
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

template <typename T>
__global__ void relu_fwd_k(const T* x, T* y, int64_t n) {
  MG_GRID_LOOP(i, n) { y[i] = from_f32<T>(fmaxf(to_f32(x[i]), 0.0f)); }
}

// The mask comes from the output: y > 0 exactly where x > 0, and the output is what the layer keeps.
template <typename T>
__global__ void relu_bwd_k(const T* y, const T* dy, T* dx, int64_t n) {
  MG_GRID_LOOP(i, n) { dx[i] = to_f32(y[i]) > 0.0f ? dy[i] : from_f32<T>(0.0f); }
}

// Vector forms of the three hottest element-wise kernels (ReLU and the residual add run after every
// convolution of a ResNet); n counts packs.
template <typename T>
__global__ void relu_fwd_vec_k(const Pack<T>* x, Pack<T>* y, int64_t n) {
  MG_GRID_LOOP(i, n) {
    Pack<T> a = x[i];
#pragma unroll
    for (int k = 0; k < Pack<T>::N; ++k) a.v[k] = from_f32<T>(fmaxf(to_f32(a.v[k]), 0.0f));
    y[i] = a;
  }
}

template <typename T>
__global__ void relu_bwd_vec_k(const Pack<T>* y, const Pack<T>* dy, Pack<T>* dx, int64_t n) {
  MG_GRID_LOOP(i, n) {
    const Pack<T> a = y[i];
    Pack<T> g = dy[i];
#pragma unroll
    for (int k = 0; k < Pack<T>::N; ++k) g.v[k] = to_f32(a.v[k]) > 0.0f ? g.v[k] : from_f32<T>(0.0f);
    dx[i] = g;
  }
}

template <typename T>
__global__ void add2_vec_k(const Pack<T>* a, const Pack<T>* b, Pack<T>* o, int64_t n) {
  MG_GRID_LOOP(i, n) {
    Pack<T> p = a[i];
    const Pack<T> q = b[i];
#pragma unroll
    for (int k = 0; k < Pack<T>::N; ++k) p.v[k] = from_f32<T>(to_f32(p.v[k]) + to_f32(q.v[k]));
    o[i] = p;
  }
}

template <typename T>
__global__ void add2_k(const T* a, const T* b, T* o, int64_t n) {
  MG_GRID_LOOP(i, n) { o[i] = from_f32<T>(to_f32(a[i]) + to_f32(b[i])); }
}

template <typename T>
__global__ void copy_channels_k(const T* src, int64_t src_c, int64_t src_off, T* dst, int64_t dst_c,
                                int64_t dst_off, int64_t width, int64_t n) {
  MG_GRID_LOOP(i, n) {
    const int64_t r = i / width, j = i - r * width;
    dst[r * dst_c + dst_off + j] = src[r * src_c + src_off + j];
  }
}

template <typename T>
__global__ void gap_fwd_k(const T* x, T* y, int64_t n, int64_t hw, int64_t c) {
  MG_GRID_LOOP(i, n * c) {
    const int64_t b = i / c, ch = i - b * c;
    const T* p = x + b * hw * c + ch;
    float s = 0;
    for (int64_t k = 0; k < hw; ++k) s += to_f32(p[k * c]);
    y[i] = from_f32<T>(s / static_cast<float>(hw));
  }
}

template <typename T>
__global__ void gap_bwd_k(const T* dy, T* dx, int64_t n, int64_t hw, int64_t c) {
  const float inv = 1.0f / static_cast<float>(hw);
  MG_GRID_LOOP(i, n * hw * c) {
    const int64_t ch = i % c, b = i / (hw * c);
    dx[i] = from_f32<T>(to_f32(dy[b * c + ch]) * inv);
  }
}

template <typename T>
__global__ void dropout_k(const T* x, T* y, int64_t n, float p, float keep_scale, uint64_t seed) {
  MG_GRID_LOOP(i, n) {
    const bool keep = dropout_keeps(seed, static_cast<uint64_t>(i), p);
    y[i] = from_f32<T>(keep ? to_f32(x[i]) * keep_scale : 0.0f);
  }
}

}  // namespace

void relu_forward(const void* x, void* y, DType dt, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    if (packable<T>(n, {x, y})) {
      const int64_t m = n / Pack<T>::N;
      relu_fwd_vec_k<T><<<grid_for(m), 256, 0, s>>>(static_cast<const Pack<T>*>(x), static_cast<Pack<T>*>(y), m);
    } else {
      relu_fwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n);
    }
  });
  MG_CHECK_LAUNCH();
}

void relu_backward(const void* y, const void* dy, void* dx, DType dt, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    if (packable<T>(n, {y, dy, dx})) {
      const int64_t m = n / Pack<T>::N;
      relu_bwd_vec_k<T><<<grid_for(m), 256, 0, s>>>(static_cast<const Pack<T>*>(y), static_cast<const Pack<T>*>(dy),
                                                     static_cast<Pack<T>*>(dx), m);
    } else {
      relu_bwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(y), static_cast<const T*>(dy),
                                                static_cast<T*>(dx), n);
    }
  });
  MG_CHECK_LAUNCH();
}

void add2(const void* a, const void* b, void* out, DType dt, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    if (packable<T>(n, {a, b, out})) {
      const int64_t m = n / Pack<T>::N;
      add2_vec_k<T><<<grid_for(m), 256, 0, s>>>(static_cast<const Pack<T>*>(a), static_cast<const Pack<T>*>(b),
                                                static_cast<Pack<T>*>(out), m);
    } else {
      add2_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                            static_cast<T*>(out), n);
    }
  });
  MG_CHECK_LAUNCH();
}

void copy_channels(const void* src, int64_t src_c, int64_t src_off, void* dst, int64_t dst_c, int64_t dst_off,
                   int64_t width, DType dt, int64_t rows, cudaStream_t s) {
  const int64_t n = rows * width;
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    copy_channels_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(src), src_c, src_off, static_cast<T*>(dst),
                                                   dst_c, dst_off, width, n);
  });
  MG_CHECK_LAUNCH();
}

void global_avg_pool_forward(const void* x, void* y, DType dt, int64_t n, int64_t hw, int64_t c,
                             cudaStream_t s) {
  if (n * c <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    gap_fwd_k<T><<<grid_for(n * c), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n, hw, c);
  });
  MG_CHECK_LAUNCH();
}

void global_avg_pool_backward(const void* dy, void* dx, DType dt, int64_t n, int64_t hw, int64_t c,
                              cudaStream_t s) {
  if (n * hw * c <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    gap_bwd_k<T><<<grid_for(n * hw * c), 256, 0, s>>>(static_cast<const T*>(dy), static_cast<T*>(dx), n, hw, c);
  });
  MG_CHECK_LAUNCH();
}

void dropout_forward(const void* x, void* y, DType dt, int64_t n, float p, uint64_t seed, cudaStream_t s) {
  if (n <= 0) return;
  const float keep_scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    dropout_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n, p, keep_scale, seed);
  });
  MG_CHECK_LAUNCH();
}

// The same mask and scale applied to the incoming gradient: d(x*mask*scale)/dx = mask*scale.
void dropout_backward(const void* dy, void* dx, DType dt, int64_t n, float p, uint64_t seed, cudaStream_t s) {
  dropout_forward(dy, dx, dt, n, p, seed, s);
}

}  // namespace mg::kernels
