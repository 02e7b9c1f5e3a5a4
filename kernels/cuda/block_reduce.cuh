// One block-wide reduction (max or sum) shared by the per-row kernels (loss, layer norm, attention's softmax).
#pragma once
#include <cuda_runtime.h>

namespace mg::kernels {

// Reduces v over a block of Threads threads (a multiple of 32) with op; every thread gets the result. Reuses its
// shared memory, so consecutive calls in one kernel are safe.
template <int Threads, typename Op>
__device__ float block_reduce(float v, Op op) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps");
  __shared__ float warp_vals[Threads / 32];
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();
  float r = warp_vals[0];
  for (int i = 1; i < Threads / 32; ++i) r = op(r, warp_vals[i]);
  __syncthreads();  // warp_vals is reused by the next call
  return r;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

}  // namespace mg::kernels
