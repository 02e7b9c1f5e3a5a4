// Attention's softmax between the two cuBLAS products (cuda_layers_attention.cpp), the CPU backend's semantics
// (cpu_layers_attention.cpp): per row of scores, a max-subtracted softmax over the keys the query may see (all,
// or causal: up to its own position), masked entries exactly 0 so the products after it need no mask; each
// row's log-sum-exp for backward, which rebuilds P from the recomputed scores with it rather than keep P. fp32
// throughout; a copy in the activation type feeds the products where those read half types.
#include <cmath>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr int kThreads = 128;  // per row (one block a row)

// In place over the scores: each thread rewrites only its own entries, after the reductions.
template <typename L>
__global__ void softmax_rows_k(float* s, L* low, float* lse, int64_t t, int64_t ld, bool causal) {
  const int64_t r = blockIdx.x;
  float* row = s + r * ld;
  const int64_t len = causal ? r % t + 1 : t;
  float mx = -INFINITY;
  for (int64_t j = threadIdx.x; j < len; j += kThreads) mx = fmaxf(mx, row[j]);
  mx = block_reduce<kThreads>(mx, MaxOp{});
  float sum = 0;
  for (int64_t j = threadIdx.x; j < len; j += kThreads) sum += expf(row[j] - mx);
  const float total = block_reduce<kThreads>(sum, SumOp{});
  const float inv = 1.f / total;
  for (int64_t j = threadIdx.x; j < t; j += kThreads) {
    const float p = j < len ? expf(row[j] - mx) * inv : 0.f;
    row[j] = p;
    if (low) low[r * ld + j] = from_f32<L>(p);
  }
  if (lse && threadIdx.x == 0) lse[r] = mx + logf(total);
}

// P = exp(S - lse) in place over the recomputed scores, masked entries 0 as softmax_rows_k writes them.
template <typename L>
__global__ void probs_rows_k(float* s, L* low, const float* lse, int64_t t, int64_t ld, bool causal) {
  const int64_t r = blockIdx.x;
  float* row = s + r * ld;
  const int64_t len = causal ? r % t + 1 : t;
  const float m = lse[r];
  for (int64_t j = threadIdx.x; j < t; j += kThreads) {
    const float p = j < len ? expf(row[j] - m) : 0.f;
    row[j] = p;
    if (low) low[r * ld + j] = from_f32<L>(p);
  }
}

// dS = P (dP - sum_j P dP) per row: into low when given, else over dP.
template <typename L>
__global__ void softmax_rows_bwd_k(const float* p, float* dp, L* low, int64_t t, int64_t ld) {
  const int64_t r = blockIdx.x;
  const float* pr = p + r * ld;
  float* dr = dp + r * ld;
  float dot = 0;
  for (int64_t j = threadIdx.x; j < t; j += kThreads) dot += pr[j] * dr[j];
  dot = block_reduce<kThreads>(dot, SumOp{});
  for (int64_t j = threadIdx.x; j < t; j += kThreads) {
    const float v = pr[j] * (dr[j] - dot);
    if (low) {
      low[r * ld + j] = from_f32<L>(v);
    } else {
      dr[j] = v;
    }
  }
}

void check_rows(int64_t rows, int64_t t, int64_t ld) {
  MG_ENSURE(rows > 0 && t > 0 && ld >= t && rows <= 0x7fffffff, "attention softmax: bad shape");
}

}  // namespace

void attention_softmax(float* scores, void* probs_low, float* lse, DType dt, int64_t rows, int64_t t, int64_t ld,
                       bool causal, cudaStream_t s) {
  check_rows(rows, t, ld);
  launch_float(dt, rows, [&](auto tag) {
    using L = decltype(tag);
    softmax_rows_k<L>
        <<<static_cast<unsigned>(rows), kThreads, 0, s>>>(scores, static_cast<L*>(probs_low), lse, t, ld, causal);
  });
}

void attention_probs(float* scores, void* probs_low, const float* lse, DType dt, int64_t rows, int64_t t, int64_t ld,
                     bool causal, cudaStream_t s) {
  check_rows(rows, t, ld);
  MG_ENSURE(lse, "attention probabilities: no log-sum-exp");
  launch_float(dt, rows, [&](auto tag) {
    using L = decltype(tag);
    probs_rows_k<L>
        <<<static_cast<unsigned>(rows), kThreads, 0, s>>>(scores, static_cast<L*>(probs_low), lse, t, ld, causal);
  });
}

void attention_softmax_backward(const float* probs, float* dprobs, void* ds_low, DType dt, int64_t rows, int64_t t,
                                int64_t ld, cudaStream_t s) {
  check_rows(rows, t, ld);
  launch_float(dt, rows, [&](auto tag) {
    using L = decltype(tag);
    softmax_rows_bwd_k<L>
        <<<static_cast<unsigned>(rows), kThreads, 0, s>>>(probs, dprobs, static_cast<L*>(ds_low), t, ld);
  });
}

}  // namespace mg::kernels
