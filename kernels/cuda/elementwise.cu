// Whole-tensor operations of the Backend seam: fill, counter-based uniform fill, casts, add, scale,
// non-finite count, the SGD-momentum update and low-precision-gradient accumulation into fp32.
#include "core/counter_rng.h"
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

template <typename T>
__global__ void fill_k(T* p, int64_t n, float v) {
  const T tv = from_f32<T>(v);
  MG_GRID_LOOP(i, n)
    p[i] = tv;
}

__global__ void fill_i32_k(int32_t* p, int64_t n, int32_t v) {
  MG_GRID_LOOP(i, n)
    p[i] = v;
}

// The arithmetic is spelled with explicit-rounding intrinsics so nvcc cannot fuse it into an FMA: the host
// (CpuBackend::fill_uniform) rounds the product and the sum separately, and both must give identical bits.
template <typename T>
__global__ void fill_uniform_k(T* p, int64_t n, float lo, float range, uint64_t seed) {
  MG_GRID_LOOP(i, n)
    p[i] = from_f32<T>(__fadd_rn(lo, __fmul_rn(range, counter_uniform(seed, static_cast<uint64_t>(i)))));
}

__global__ void fill_uniform_i32_k(int32_t* p, int64_t n, int32_t lo, float range, uint64_t seed) {
  MG_GRID_LOOP(i, n)
    p[i] = lo + static_cast<int32_t>(__fmul_rn(counter_uniform(seed, static_cast<uint64_t>(i)), range));
}

template <typename D, typename S>
__global__ void cast_k(D* d, const S* s, int64_t n) {
  MG_GRID_LOOP(i, n)
    d[i] = from_f32<D>(to_f32(s[i]));
}

template <typename T>
__global__ void add_k(T* d, const T* s, int64_t n) {
  MG_GRID_LOOP(i, n)
    d[i] = from_f32<T>(to_f32(d[i]) + to_f32(s[i]));
}

template <typename T>
__global__ void scale_k(T* d, int64_t n, float a) {
  MG_GRID_LOOP(i, n)
    d[i] = from_f32<T>(to_f32(d[i]) * a);
}

template <typename T>
__global__ void nonfinite_k(const T* p, int64_t n, unsigned long long* counter) {
  unsigned long long bad = 0;
  MG_GRID_LOOP(i, n)
    bad += isfinite(to_f32(p[i])) ? 0 : 1;
  for (int o = 16; o > 0; o >>= 1) bad += __shfl_down_sync(0xffffffffu, bad, o);
  if ((threadIdx.x & 31) == 0 && bad) atomicAdd(counter, bad);
}

__global__ void sgd_k(float* p, const float* g, float* v, int64_t n, float lr, float momentum, float wd,
                      float gs) {
  MG_GRID_LOOP(i, n) {
    const float pi = p[i];
    const float gi = g[i] * gs + wd * pi;
    const float vi = momentum * v[i] + gi;
    v[i] = vi;
    p[i] = pi - lr * vi;
  }
}

// torch.optim.AdamW's order: decay the parameter, then the moment step.
__global__ void adamw_k(float* p, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                        float eps, float decay, float c1, float c2, float gs) {
  MG_GRID_LOOP(i, n) {
    const float gi = g[i] * gs;
    const float mi = beta1 * m[i] + (1.f - beta1) * gi;
    const float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - lr * (mi * c1) / (sqrtf(vi * c2) + eps);
  }
}

template <typename T>
__global__ void acc_f32_k(float* d, const T* s, int64_t n, bool accumulate) {
  MG_GRID_LOOP(i, n)
    d[i] = accumulate ? d[i] + to_f32(s[i]) : to_f32(s[i]);
}

}  // namespace

void fill(void* p, DType dt, int64_t n, float value, cudaStream_t s) {
  if (n <= 0) return;
  if (dt == DType::I32) {
    fill_i32_k<<<grid_for(n), 256, 0, s>>>(static_cast<int32_t*>(p), n, static_cast<int32_t>(value));
  } else {
    dispatch_float(dt, [&](auto t) {
      using T = decltype(t);
      fill_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<T*>(p), n, value);
    });
  }
  MG_CHECK_LAUNCH();
}

void fill_uniform(void* p, DType dt, int64_t n, float lo, float hi, uint64_t seed, cudaStream_t s) {
  if (n <= 0) return;
  if (dt == DType::I32) {
    fill_uniform_i32_k<<<grid_for(n), 256, 0, s>>>(static_cast<int32_t*>(p), n, static_cast<int32_t>(lo),
                                                    hi - lo, seed);
  } else {
    dispatch_float(dt, [&](auto t) {
      using T = decltype(t);
      fill_uniform_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<T*>(p), n, lo, hi - lo, seed);
    });
  }
  MG_CHECK_LAUNCH();
}

void cast(void* dst, DType dst_dt, const void* src, DType src_dt, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  if (dst_dt == src_dt) {
    MG_CHECK_CUDA(cudaMemcpyAsync(dst, src, static_cast<size_t>(n) * dtype_size(dst_dt), cudaMemcpyDeviceToDevice, s));
    return;
  }
  dispatch_float(dst_dt, [&](auto d) {
    using D = decltype(d);
    dispatch_float(src_dt, [&](auto sv) {
      using S = decltype(sv);
      cast_k<D, S><<<grid_for(n), 256, 0, s>>>(static_cast<D*>(dst), static_cast<const S*>(src), n);
    });
  });
  MG_CHECK_LAUNCH();
}

void add_inplace(void* dst, const void* src, DType dt, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    add_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<T*>(dst), static_cast<const T*>(src), n);
  });
  MG_CHECK_LAUNCH();
}

void scale(void* p, DType dt, int64_t n, float alpha, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    scale_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<T*>(p), n, alpha);
  });
  MG_CHECK_LAUNCH();
}

void count_nonfinite(const void* p, DType dt, int64_t n, unsigned long long* counter, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    nonfinite_k<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(p), n, counter);
  });
  MG_CHECK_LAUNCH();
}

void sgd_update(float* p, const float* g, float* v, int64_t n, float lr, float momentum, float weight_decay,
                float grad_scale, cudaStream_t s) {
  if (n <= 0) return;
  sgd_k<<<grid_for(n), 256, 0, s>>>(p, g, v, n, lr, momentum, weight_decay, grad_scale);
  MG_CHECK_LAUNCH();
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2, float eps,
                  float weight_decay, float c1, float c2, float grad_scale, cudaStream_t s) {
  if (n <= 0) return;
  adamw_k<<<grid_for(n), 256, 0, s>>>(p, g, m, v, n, lr, beta1, beta2, eps, 1.f - lr * weight_decay, c1, c2, grad_scale);
  MG_CHECK_LAUNCH();
}

void accumulate_to_f32(float* dst, const void* src, DType src_dt, int64_t n, bool accumulate, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(src_dt, [&](auto t) {
    using T = decltype(t);
    acc_f32_k<T><<<grid_for(n), 256, 0, s>>>(dst, static_cast<const T*>(src), n, accumulate);
  });
  MG_CHECK_LAUNCH();
}

}  // namespace mg::kernels
