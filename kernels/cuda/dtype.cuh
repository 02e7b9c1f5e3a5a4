// Device-side element access shared by the kernels: every kernel computes in fp32 and converts at the load
// and store, with round-to-nearest-even like the host conversions in core/half.h.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>

#include "backend/cuda/cuda_check.h"
#include "core/dtype.h"
#include "core/error.h"

namespace mg::kernels {

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_f32(float v);
template <>
__device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// 16 bytes of elements, loaded and stored with one vector instruction: memory-bound kernels reach full
// bandwidth only with wide accesses (8 x 16-bit or 4 x fp32 per thread).
template <typename T>
struct alignas(16) Pack {
  static constexpr int N = 16 / static_cast<int>(sizeof(T));
  T v[N];
};

// Whether every pointer is 16-byte aligned and n a whole number of packs, so the vector path applies.
template <typename T>
inline bool packable(int64_t n, std::initializer_list<const void*> ptrs) {
  if (n % Pack<T>::N != 0) return false;
  for (const void* p : ptrs)
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  return true;
}

// A grid-stride loop: thread i of the grid visits i, i + grid size, ... below n (64-bit indices), so any grid
// (grid_for's, capped) covers any n.
#define MG_GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

// Grid for a grid-stride loop over n elements: enough blocks to fill the device, no more.
inline unsigned grid_for(int64_t n, int threads = 256) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65535 * 8 ? 65535 * 8 : blocks));
}

// Calls f.template operator()<T>() with T the device type of dt (floating types only).
template <typename F>
void dispatch_float(DType dt, F&& f) {
  switch (dt) {
    case DType::F32: f(float{}); return;
    case DType::F16: f(__half{}); return;
    case DType::BF16: f(__nv_bfloat16{}); return;
    case DType::I32: break;
  }
  throw Error(std::string("CUDA kernel: unsupported element type ") + dtype_name(dt));
}

// The frame of a launcher over n elements: nothing to do for n <= 0, f(T{}) for dt's device type, the launch
// checked.
template <typename F>
void launch_float(DType dt, int64_t n, F&& f) {
  if (n <= 0) return;
  dispatch_float(dt, f);
  MG_CHECK_LAUNCH();
}

}  // namespace mg::kernels
