// Softmax cross-entropy, forward and gradient in one pass per row (one block per sample), then a fixed-order
// mean over rows so the loss is deterministic.
#include <cmath>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr int kThreads = 128;

template <typename T>
__global__ void xent_rows_k(const T* logits, const int32_t* labels, int64_t n, int64_t k, float* row_loss,
                            T* dlogits, float grad_scale) {
  const int64_t row = blockIdx.x;
  const T* x = logits + row * k;
  float mx = -INFINITY;
  for (int64_t j = threadIdx.x; j < k; j += kThreads) mx = fmaxf(mx, to_f32(x[j]));
  mx = block_reduce<kThreads>(mx, MaxOp{});
  float sum = 0;
  for (int64_t j = threadIdx.x; j < k; j += kThreads) sum += expf(to_f32(x[j]) - mx);
  sum = block_reduce<kThreads>(sum, SumOp{});
  const float logz = logf(sum) + mx;
  const int32_t y = labels[row];
  const bool valid = y >= 0 && y < k;
  if (threadIdx.x == 0) row_loss[row] = valid ? logz - to_f32(x[y]) : NAN;
  if (dlogits) {
    const float inv_n = grad_scale / static_cast<float>(n);
    T* d = dlogits + row * k;
    for (int64_t j = threadIdx.x; j < k; j += kThreads) {
      const float p = expf(to_f32(x[j]) - logz);
      d[j] = from_f32<T>(valid ? (p - (j == y ? 1.0f : 0.0f)) * inv_n : NAN);
    }
  }
}

__global__ void mean_k(const float* row_loss, int64_t n, float* loss) {
  __shared__ double part[kThreads];
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) s += row_loss[i];
  part[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < kThreads; ++i) t += part[i];
    *loss = static_cast<float>(t / static_cast<double>(n));
  }
}

}  // namespace

void softmax_xent(const void* logits, DType dt, const int32_t* labels, int64_t n, int64_t k, float* row_loss,
                  float* loss, void* dlogits, float grad_scale, cudaStream_t s) {
  MG_ENSURE(n > 0 && k > 0 && n <= 0x7fffffff, "softmax_xent: bad shape");
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    xent_rows_k<T><<<static_cast<unsigned>(n), kThreads, 0, s>>>(static_cast<const T*>(logits), labels, n, k,
                                                                  row_loss, static_cast<T*>(dlogits), grad_scale);
  });
  MG_CHECK_LAUNCH();
  mean_k<<<1, kThreads, 0, s>>>(row_loss, n, loss);
  MG_CHECK_LAUNCH();
}

}  // namespace mg::kernels
