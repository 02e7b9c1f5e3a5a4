// Layer normalisation over the last dimension (torch.nn.LayerNorm), the CPU backend's semantics
// (cpu_layers_layernorm.cpp): fp32 statistics per row, kept for backward as mean and 1/std. The gamma/beta
// gradients are summed per chunk of rows, then over the chunks in order, so every step gives the same sums.
#include <cmath>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr int kThreads = 128;   // per row (one block a row)
constexpr int kCols = 32;       // parameter-gradient blocks: columns (one warp reads 32 consecutive of a row)
constexpr int kLanes = 8;       // and row lanes
constexpr int kChunkRows = 256; // rows one block sums into one partial

// Each thread reads then writes only its own columns after the reductions, so y may be x.
template <typename T>
__global__ void ln_fwd_k(const T* x, T* y, const float* g, const float* b, float* mean, float* rstd, int64_t c,
                         float eps) {
  const int64_t r = blockIdx.x;
  const T* xr = x + r * c;
  T* yr = y + r * c;
  float s = 0;
  for (int64_t j = threadIdx.x; j < c; j += kThreads) s += to_f32(xr[j]);
  const float m = block_reduce<kThreads>(s, SumOp{}) / static_cast<float>(c);
  float ss = 0;
  for (int64_t j = threadIdx.x; j < c; j += kThreads) {
    const float t = to_f32(xr[j]) - m;
    ss += t * t;
  }
  ss = block_reduce<kThreads>(ss, SumOp{});
  const float inv = static_cast<float>(1.0 / sqrt(static_cast<double>(ss) / static_cast<double>(c) + eps));
  if (threadIdx.x == 0) {
    mean[r] = m;
    rstd[r] = inv;
  }
  for (int64_t j = threadIdx.x; j < c; j += kThreads) yr[j] = from_f32<T>((to_f32(xr[j]) - m) * inv * g[j] + b[j]);
}

// dx = rstd (dy g - mean(dy g) - xhat mean(dy g xhat)); dx may be dy (each thread its own columns).
template <typename T>
__global__ void ln_bwd_input_k(const T* x, const T* dy, T* dx, const float* g, const float* mean, const float* rstd,
                               int64_t c) {
  const int64_t r = blockIdx.x;
  const T* xr = x + r * c;
  const T* dyr = dy + r * c;
  T* dxr = dx + r * c;
  const float mu = mean[r], inv = rstd[r];
  float s1 = 0, s2 = 0;
  for (int64_t j = threadIdx.x; j < c; j += kThreads) {
    const float d = to_f32(dyr[j]) * g[j];
    s1 += d;
    s2 += d * (to_f32(xr[j]) - mu) * inv;
  }
  const float m1 = block_reduce<kThreads>(s1, SumOp{}) / static_cast<float>(c);
  const float m2 = block_reduce<kThreads>(s2, SumOp{}) / static_cast<float>(c);
  for (int64_t j = threadIdx.x; j < c; j += kThreads) {
    const float xh = (to_f32(xr[j]) - mu) * inv;
    dxr[j] = from_f32<T>(inv * (to_f32(dyr[j]) * g[j] - m1 - xh * m2));
  }
}

// partials[chunk] = {sum dy xhat per column, then sum dy per column} over the chunk's rows.
template <typename T>
__global__ void ln_param_partials_k(const T* x, const T* dy, const float* mean, const float* rstd, int64_t rows,
                                    int64_t c, float* partials) {
  __shared__ float sg[kLanes][kCols];
  __shared__ float sb[kLanes][kCols];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x;
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kChunkRows;
  const int64_t end = first + kChunkRows < rows ? first + kChunkRows : rows;
  float pg = 0, pb = 0;
  if (col < c) {
    for (int64_t r = first + threadIdx.y; r < end; r += kLanes) {
      const float d = to_f32(dy[r * c + col]);
      pg += d * (to_f32(x[r * c + col]) - mean[r]) * rstd[r];
      pb += d;
    }
  }
  sg[threadIdx.y][threadIdx.x] = pg;
  sb[threadIdx.y][threadIdx.x] = pb;
  __syncthreads();
  if (threadIdx.y == 0 && col < c) {
    float tg = 0, tb = 0;
    for (int i = 0; i < kLanes; ++i) {
      tg += sg[i][threadIdx.x];
      tb += sb[i][threadIdx.x];
    }
    float* p = partials + static_cast<int64_t>(blockIdx.y) * 2 * c;
    p[col] = tg;
    p[c + col] = tb;
  }
}

__global__ void ln_param_sum_k(const float* partials, int64_t chunks, int64_t c, float* dg, float* db,
                               bool accumulate) {
  MG_GRID_LOOP(col, c) {
    double tg = 0, tb = 0;
    for (int64_t k = 0; k < chunks; ++k) {
      tg += partials[k * 2 * c + col];
      tb += partials[k * 2 * c + c + col];
    }
    dg[col] = static_cast<float>(accumulate ? dg[col] + tg : tg);
    db[col] = static_cast<float>(accumulate ? db[col] + tb : tb);
  }
}

int64_t chunks_for(int64_t rows) { return (rows + kChunkRows - 1) / kChunkRows; }

void check_rows(int64_t rows, int64_t c) {
  MG_ENSURE(rows > 0 && c > 0 && rows <= 0x7fffffff && chunks_for(rows) <= 65535, "layer norm: bad shape");
}

}  // namespace

void layernorm_forward(const void* x, void* y, const float* gamma, const float* beta, float* mean, float* rstd,
                       DType dt, int64_t rows, int64_t c, float eps, cudaStream_t s) {
  check_rows(rows, c);
  launch_float(dt, rows, [&](auto t) {
    using T = decltype(t);
    ln_fwd_k<T><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), gamma,
                                                                 beta, mean, rstd, c, eps);
  });
}

void layernorm_backward_input(const void* x, const void* dy, void* dx, const float* gamma, const float* mean,
                              const float* rstd, DType dt, int64_t rows, int64_t c, cudaStream_t s) {
  check_rows(rows, c);
  launch_float(dt, rows, [&](auto t) {
    using T = decltype(t);
    ln_bwd_input_k<T><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), gamma, mean, rstd, c);
  });
}

int64_t layernorm_param_partials(int64_t rows, int64_t c) { return chunks_for(rows) * 2 * c; }

void layernorm_backward_params(const void* x, const void* dy, const float* mean, const float* rstd, DType dt,
                               int64_t rows, int64_t c, float* partials, float* dgamma, float* dbeta, bool accumulate,
                               cudaStream_t s) {
  check_rows(rows, c);
  const dim3 grid(static_cast<unsigned>((c + kCols - 1) / kCols), static_cast<unsigned>(chunks_for(rows)));
  launch_float(dt, rows, [&](auto t) {
    using T = decltype(t);
    ln_param_partials_k<T><<<grid, dim3(kCols, kLanes), 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(dy),
                                                               mean, rstd, rows, c, partials);
  });
  ln_param_sum_k<<<grid_for(c), 256, 0, s>>>(partials, chunks_for(rows), c, dgamma, dbeta, accumulate);
  MG_CHECK_LAUNCH();
}

}  // namespace mg::kernels
