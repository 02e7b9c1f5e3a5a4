// Max and average pooling on NHWC with torch's window rules (padding, ceil_mode, count_include_pad=true).
// Backward passes gather rather than scatter: each input element sums the gradients of the output windows
// that used it, so there are no atomics and results are deterministic even when windows overlap.
#include <cmath>

#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

// Element i of an NHWC tensor {n, h, w, c} as its coordinates.
struct Nhwc {
  int64_t n, h, w, c;
};
__device__ __forceinline__ Nhwc nhwc_at(int64_t i, int64_t h, int64_t w, int64_t c) {
  int64_t t = i / c;
  const int64_t x = t % w;
  t /= w;
  return {t / h, t % h, x, i % c};
}

// Output windows [lo, hi] along one axis that contain input index x.
__device__ __forceinline__ void covering(int64_t x, int64_t k, int64_t s, int64_t p, int64_t out, int64_t& lo,
                                         int64_t& hi) {
  const int64_t xp = x + p;
  lo = xp < k ? 0 : (xp - k) / s + 1;
  hi = xp / s;
  if (hi > out - 1) hi = out - 1;
}

// The output windows that contain input element (h, w): rows oh_lo..oh_hi, columns ow_lo..ow_hi.
struct Covering {
  int64_t oh_lo, oh_hi, ow_lo, ow_hi;
};
__device__ __forceinline__ Covering covering(int64_t h, int64_t w, const PoolGeom& g) {
  Covering r;
  covering(h, g.kh, g.sh, g.ph, g.oh, r.oh_lo, r.oh_hi);
  covering(w, g.kw, g.sw, g.pw, g.ow, r.ow_lo, r.ow_hi);
  return r;
}

template <typename T>
__global__ void max_fwd_k(const T* x, T* y, uint8_t* argmax, PoolGeom g) {
  MG_GRID_LOOP(i, g.n * g.oh * g.ow * g.c) {
    const auto [n, oh, ow, c] = nhwc_at(i, g.oh, g.ow, g.c);
    const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
    float best = -INFINITY;
    int best_k = -1;
    for (int64_t a = 0; a < g.kh; ++a) {
      const int64_t h = h0 + a;
      if (h < 0 || h >= g.h) continue;
      for (int64_t b = 0; b < g.kw; ++b) {
        const int64_t w = w0 + b;
        if (w < 0 || w >= g.w) continue;
        const float v = to_f32(x[((n * g.h + h) * g.w + w) * g.c + c]);
        if (best_k < 0 || v > best || isnan(v)) {  // first maximum wins; NaN propagates (torch)
          best = v;
          best_k = static_cast<int>(a * g.kw + b);
          if (isnan(v)) break;
        }
      }
      if (isnan(best)) break;
    }
    y[i] = from_f32<T>(best);
    argmax[i] = static_cast<uint8_t>(best_k < 0 ? 255 : best_k);
  }
}

template <typename T>
__global__ void max_bwd_k(const T* dy, const uint8_t* argmax, T* dx, PoolGeom g) {
  MG_GRID_LOOP(i, g.n * g.h * g.w * g.c) {
    const auto [n, h, w, c] = nhwc_at(i, g.h, g.w, g.c);
    const auto [oh_lo, oh_hi, ow_lo, ow_hi] = covering(h, w, g);
    float s = 0;
    for (int64_t oh = oh_lo; oh <= oh_hi; ++oh) {
      for (int64_t ow = ow_lo; ow <= ow_hi; ++ow) {
        const int64_t o = ((n * g.oh + oh) * g.ow + ow) * g.c + c;
        const int64_t k = (h - (oh * g.sh - g.ph)) * g.kw + (w - (ow * g.sw - g.pw));
        if (argmax[o] == k) s += to_f32(dy[o]);
      }
    }
    dx[i] = from_f32<T>(s);
  }
}

// torch's avg_pool2d divisor with count_include_pad: the window clipped to the padded input.
__device__ __forceinline__ int64_t avg_divisor(int64_t oh, int64_t ow, const PoolGeom& g) {
  const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  const int64_t h1 = min(h0 + g.kh, g.h + g.ph), w1 = min(w0 + g.kw, g.w + g.pw);
  return (h1 - h0) * (w1 - w0);
}

template <typename T>
__global__ void avg_fwd_k(const T* x, T* y, PoolGeom g) {
  MG_GRID_LOOP(i, g.n * g.oh * g.ow * g.c) {
    const auto [n, oh, ow, c] = nhwc_at(i, g.oh, g.ow, g.c);
    const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
    const int64_t hs = max(h0, int64_t(0)), he = min(h0 + g.kh, g.h);
    const int64_t ws = max(w0, int64_t(0)), we = min(w0 + g.kw, g.w);
    float s = 0;
    for (int64_t h = hs; h < he; ++h)
      for (int64_t w = ws; w < we; ++w) s += to_f32(x[((n * g.h + h) * g.w + w) * g.c + c]);
    y[i] = from_f32<T>(s / static_cast<float>(avg_divisor(oh, ow, g)));
  }
}

template <typename T>
__global__ void avg_bwd_k(const T* dy, T* dx, PoolGeom g) {
  MG_GRID_LOOP(i, g.n * g.h * g.w * g.c) {
    const auto [n, h, w, c] = nhwc_at(i, g.h, g.w, g.c);
    const auto [oh_lo, oh_hi, ow_lo, ow_hi] = covering(h, w, g);
    float s = 0;
    for (int64_t oh = oh_lo; oh <= oh_hi; ++oh)
      for (int64_t ow = ow_lo; ow <= ow_hi; ++ow)
        s += to_f32(dy[((n * g.oh + oh) * g.ow + ow) * g.c + c]) / static_cast<float>(avg_divisor(oh, ow, g));
    dx[i] = from_f32<T>(s);
  }
}

}  // namespace

void max_pool_forward(const void* x, void* y, uint8_t* argmax, DType dt, const PoolGeom& g, cudaStream_t s) {
  MG_ENSURE(g.kh * g.kw <= 255, "max pool window larger than 255 elements");
  const int64_t n = g.n * g.oh * g.ow * g.c;
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    max_fwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), argmax, g);
  });
}

void max_pool_backward(const void* dy, const uint8_t* argmax, void* dx, DType dt, const PoolGeom& g,
                       cudaStream_t s) {
  const int64_t n = g.n * g.h * g.w * g.c;
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    max_bwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(dy), argmax, static_cast<T*>(dx), g);
  });
}

void avg_pool_forward(const void* x, void* y, DType dt, const PoolGeom& g, cudaStream_t s) {
  const int64_t n = g.n * g.oh * g.ow * g.c;
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    avg_fwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), g);
  });
}

void avg_pool_backward(const void* dy, void* dx, DType dt, const PoolGeom& g, cudaStream_t s) {
  const int64_t n = g.n * g.h * g.w * g.c;
  launch_float(dt, n, [&](auto t) {
    using T = decltype(t);
    avg_bwd_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(dy), static_cast<T*>(dx), g);
  });
}

}  // namespace mg::kernels
