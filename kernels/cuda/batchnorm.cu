// Per-channel reductions over NHWC rows and training-mode batch normalization built on them. Statistics are
// accumulated in fp32 per thread over a bounded number of rows and combined in double, so they stay accurate
// for the millions of rows an ImageNet batch has, and running statistics follow torch.nn.BatchNorm2d.
#include <cmath>

#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr int kCols = 32;        // channels per block (one warp reads 32 consecutive channels of a row)
constexpr int kRows = 8;         // row lanes per block
constexpr int kRowsPerLane = 64; // rows one thread sums in fp32 before the double combine

template <typename T>
__global__ void channel_sums_k(const T* a, const T* b, const float* center, int64_t rows, int64_t channels,
                               double* sums) {
  __shared__ float s1[kRows][kCols];
  __shared__ float s2[kRows][kCols];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x;
  float acc1 = 0, acc2 = 0;
  if (c < channels) {
    const float mu = (b && center) ? center[c] : 0.0f;
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * kRows + threadIdx.y; r < rows;
         r += static_cast<int64_t>(gridDim.y) * kRows) {
      const float av = to_f32(a[r * channels + c]);
      acc1 += av;
      if (b) acc2 += av * (to_f32(b[r * channels + c]) - mu);
    }
  }
  s1[threadIdx.y][threadIdx.x] = acc1;
  s2[threadIdx.y][threadIdx.x] = acc2;
  __syncthreads();
  if (threadIdx.y == 0 && c < channels) {
    double t1 = 0, t2 = 0;
    for (int i = 0; i < kRows; ++i) {
      t1 += s1[i][threadIdx.x];
      t2 += s2[i][threadIdx.x];
    }
    atomicAdd(&sums[c], t1);
    if (b) atomicAdd(&sums[channels + c], t2);
  }
}

__global__ void sums_to_grad_k(float* dst, const double* sums, int64_t channels, bool accumulate) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c < channels) dst[c] = static_cast<float>(accumulate ? dst[c] + sums[c] : sums[c]);
}

// Per-channel element-wise kernels run on a (channel, row) grid: each thread owns one channel, so its
// coefficients stay in registers and no index is divided by C (a 64-bit modulo per element would make these
// memory-bound kernels compute-bound); a warp still reads 32 consecutive channels of a row.
constexpr int kRowsPerThread = 16;

dim3 channel_grid(int64_t rows, int64_t channels) {
  int64_t gy = (rows + kRows * kRowsPerThread - 1) / (kRows * kRowsPerThread);
  if (gy > 65535) gy = 65535;
  if (gy < 1) gy = 1;
  return dim3(static_cast<unsigned>((channels + kCols - 1) / kCols), static_cast<unsigned>(gy));
}

#define MG_CHANNEL_ROWS(r, rows)                                                     \
  for (int64_t r = static_cast<int64_t>(blockIdx.y) * kRows + threadIdx.y; r < (rows); \
       r += static_cast<int64_t>(gridDim.y) * kRows)

template <typename T>
__global__ void add_bias_k(T* out, const T* in, const float* bias, int64_t rows, int64_t channels) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x;
  if (c >= channels) return;
  const float b = bias[c];
  MG_CHANNEL_ROWS(r, rows) {
    const int64_t i = r * channels + c;
    out[i] = from_f32<T>(to_f32(in[i]) + b);
  }
}

__global__ void bn_stats_k(const double* sums, int64_t rows, int64_t channels, const float* gamma,
                           const float* beta, float eps, float momentum, float* rmean, float* rvar, float* smean,
                           float* sinvstd, float* coef) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= channels) return;
  const double m = static_cast<double>(rows);
  const double mean = sums[c] / m;
  const double var = fmax(sums[channels + c] / m - mean * mean, 0.0);
  const double invstd = 1.0 / sqrt(var + static_cast<double>(eps));
  const double unbiased = rows > 1 ? var * m / (m - 1.0) : var;
  rmean[c] = static_cast<float>((1.0 - momentum) * rmean[c] + momentum * mean);
  rvar[c] = static_cast<float>((1.0 - momentum) * rvar[c] + momentum * unbiased);
  smean[c] = static_cast<float>(mean);
  sinvstd[c] = static_cast<float>(invstd);
  const double sc = gamma[c] * invstd;
  coef[c] = static_cast<float>(sc);
  coef[channels + c] = static_cast<float>(beta[c] - mean * sc);
}

__global__ void bn_infer_coef_k(const float* rmean, const float* rvar, const float* gamma, const float* beta,
                                float eps, int64_t channels, float* coef) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= channels) return;
  const double sc = gamma[c] / sqrt(static_cast<double>(rvar[c]) + eps);
  coef[c] = static_cast<float>(sc);
  coef[channels + c] = static_cast<float>(beta[c] - rmean[c] * sc);
}

template <typename T>
__global__ void bn_apply_k(const T* x, T* y, const float* coef, int64_t rows, int64_t channels) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x;
  if (c >= channels) return;
  const float a = coef[c], b = coef[channels + c];
  MG_CHANNEL_ROWS(r, rows) {
    const int64_t i = r * channels + c;
    y[i] = from_f32<T>(to_f32(x[i]) * a + b);
  }
}

__global__ void bn_bwd_finalize_k(const double* sums, int64_t rows, int64_t channels, const float* gamma,
                                  const float* invstd, float* dgamma, float* dbeta, bool accumulate, float* coef) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= channels) return;
  const double sdy = sums[c], sdyx = sums[channels + c], is = invstd[c], m = static_cast<double>(rows);
  const float dg = static_cast<float>(sdyx * is), db = static_cast<float>(sdy);
  dgamma[c] = accumulate ? dgamma[c] + dg : dg;
  dbeta[c] = accumulate ? dbeta[c] + db : db;
  coef[c] = static_cast<float>(gamma[c] * is);
  coef[channels + c] = static_cast<float>(sdy / m);
  coef[2 * channels + c] = static_cast<float>(is * is * sdyx / m);
}

template <typename T>
__global__ void bn_bwd_apply_k(const T* x, const T* dy, T* dx, const float* mean, const float* coef, int64_t rows,
                               int64_t channels) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kCols + threadIdx.x;
  if (c >= channels) return;
  const float mu = mean[c], k1 = coef[c], k2 = coef[channels + c], k3 = coef[2 * channels + c];
  MG_CHANNEL_ROWS(r, rows) {
    const int64_t i = r * channels + c;
    dx[i] = from_f32<T>(k1 * (to_f32(dy[i]) - k2 - (to_f32(x[i]) - mu) * k3));
  }
}

#undef MG_CHANNEL_ROWS

// Vector forms for C a multiple of the pack width (every ResNet/VGG/Inception layer): a thread owns one pack of
// consecutive channels; a block is (packs across, rows down), narrowed to the channel count so small C still
// reads whole contiguous rows.
struct PackGrid {
  dim3 grid, block;
};

PackGrid pack_grid(int64_t rows, int64_t cpacks) {
  unsigned bx = 1;
  while (bx < 32 && bx < cpacks) bx *= 2;
  const unsigned by = 256 / bx;
  int64_t gy = (rows + by * kRowsPerThread - 1) / (by * kRowsPerThread);
  gy = gy < 1 ? 1 : (gy > 65535 ? 65535 : gy);
  return {dim3(static_cast<unsigned>((cpacks + bx - 1) / bx), static_cast<unsigned>(gy)), dim3(bx, by)};
}

#define MG_PACK_ROWS(r, rows)                                                                          \
  for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < (rows);          \
       r += static_cast<int64_t>(gridDim.y) * blockDim.y)

template <typename T>
__global__ void bn_apply_vec_k(const Pack<T>* x, Pack<T>* y, const float* coef, int64_t rows, int64_t cpacks,
                               int64_t channels) {
  constexpr int N = Pack<T>::N;
  const int64_t cp = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (cp >= cpacks) return;
  float a[N], b[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    a[k] = coef[cp * N + k];
    b[k] = coef[channels + cp * N + k];
  }
  MG_PACK_ROWS(r, rows) {
    Pack<T> p = x[r * cpacks + cp];
#pragma unroll
    for (int k = 0; k < N; ++k) p.v[k] = from_f32<T>(to_f32(p.v[k]) * a[k] + b[k]);
    y[r * cpacks + cp] = p;
  }
}

template <typename T>
__global__ void bn_bwd_apply_vec_k(const Pack<T>* x, const Pack<T>* dy, Pack<T>* dx, const float* mean,
                                   const float* coef, int64_t rows, int64_t cpacks, int64_t channels) {
  constexpr int N = Pack<T>::N;
  const int64_t cp = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (cp >= cpacks) return;
  float mu[N], k1[N], k2[N], k3[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int64_t c = cp * N + k;
    mu[k] = mean[c];
    k1[k] = coef[c];
    k2[k] = coef[channels + c];
    k3[k] = coef[2 * channels + c];
  }
  MG_PACK_ROWS(r, rows) {
    const Pack<T> xv = x[r * cpacks + cp];
    Pack<T> g = dy[r * cpacks + cp];
#pragma unroll
    for (int k = 0; k < N; ++k)
      g.v[k] = from_f32<T>(k1[k] * (to_f32(g.v[k]) - k2[k] - (to_f32(xv.v[k]) - mu[k]) * k3[k]));
    dx[r * cpacks + cp] = g;
  }
}

#undef MG_PACK_ROWS

// channel_sums for C a multiple of the pack width: a thread owns a pack of consecutive channels and
// accumulates them in registers; the block's row lanes are combined in shared memory, then in double.
template <typename T>
__global__ void channel_sums_vec_k(const Pack<T>* a, const Pack<T>* b, const float* center, int64_t rows,
                                   int64_t cpacks, int64_t channels, double* sums) {
  constexpr int N = Pack<T>::N;
  extern __shared__ float part[];  // [blockDim.y][blockDim.x * N] twice
  const int64_t cp = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float acc1[N], acc2[N], mu[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    acc1[k] = acc2[k] = 0.0f;
    mu[k] = (cp < cpacks && b && center) ? center[cp * N + k] : 0.0f;
  }
  if (cp < cpacks) {
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
         r += static_cast<int64_t>(gridDim.y) * blockDim.y) {
      const Pack<T> av = a[r * cpacks + cp];
      if (b) {
        const Pack<T> bv = b[r * cpacks + cp];
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const float x = to_f32(av.v[k]);
          acc1[k] += x;
          acc2[k] += x * (to_f32(bv.v[k]) - mu[k]);
        }
      } else {
#pragma unroll
        for (int k = 0; k < N; ++k) acc1[k] += to_f32(av.v[k]);
      }
    }
  }
  const int width = blockDim.x * N;
  float* p1 = part;
  float* p2 = part + blockDim.y * width;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    p1[threadIdx.y * width + threadIdx.x * N + k] = acc1[k];
    p2[threadIdx.y * width + threadIdx.x * N + k] = acc2[k];
  }
  __syncthreads();
  // Row lane 0 of each column finishes its pack's channels.
  if (threadIdx.y == 0 && cp < cpacks) {
#pragma unroll
    for (int k = 0; k < N; ++k) {
      double t1 = 0, t2 = 0;
      for (unsigned y = 0; y < blockDim.y; ++y) {
        t1 += p1[y * width + threadIdx.x * N + k];
        t2 += p2[y * width + threadIdx.x * N + k];
      }
      atomicAdd(&sums[cp * N + k], t1);
      if (b) atomicAdd(&sums[channels + cp * N + k], t2);
    }
  }
}

unsigned channel_blocks(int64_t channels) { return static_cast<unsigned>((channels + 255) / 256); }

}  // namespace

void channel_sums(const void* a, const void* b, const float* center, DType dt, int64_t rows, int64_t channels,
                  double* sums, cudaStream_t s) {
  MG_CHECK_CUDA(cudaMemsetAsync(sums, 0, 2 * static_cast<size_t>(channels) * sizeof(double), s));
  if (rows <= 0 || channels <= 0) return;
  const int64_t col_blocks = (channels + kCols - 1) / kCols;
  int64_t row_blocks = (rows + kRows * kRowsPerLane - 1) / (kRows * kRowsPerLane);
  if (row_blocks > 65535) row_blocks = 65535;
  MG_ENSURE(col_blocks <= 0x7fffffff, "channel_sums: too many channels");
  const dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(row_blocks));
  const dim3 block(kCols, kRows);
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    constexpr int N = Pack<T>::N;
    if (packable<T>(channels, {a, b ? b : a})) {
      const int64_t cpacks = channels / N;
      unsigned bx = 1;
      while (bx < 32 && bx < cpacks) bx *= 2;
      const unsigned by = 256 / bx;
      int64_t gy = (rows + by * kRowsPerLane - 1) / (by * kRowsPerLane);
      gy = gy > 65535 ? 65535 : gy;
      const dim3 vgrid(static_cast<unsigned>((cpacks + bx - 1) / bx), static_cast<unsigned>(gy));
      const size_t shmem = 2 * sizeof(float) * by * bx * N;
      channel_sums_vec_k<T><<<vgrid, dim3(bx, by), shmem, s>>>(static_cast<const Pack<T>*>(a),
                                                               static_cast<const Pack<T>*>(b), center, rows, cpacks,
                                                               channels, sums);
    } else {
      channel_sums_k<T><<<grid, block, 0, s>>>(static_cast<const T*>(a), static_cast<const T*>(b), center, rows,
                                               channels, sums);
    }
  });
  MG_CHECK_LAUNCH();
}

void sums_to_grad(float* dst, const double* sums, int64_t channels, bool accumulate, cudaStream_t s) {
  sums_to_grad_k<<<channel_blocks(channels), 256, 0, s>>>(dst, sums, channels, accumulate);
  MG_CHECK_LAUNCH();
}

void add_channel_bias(void* out, const void* in, const float* bias, DType dt, int64_t rows, int64_t channels,
                      cudaStream_t s) {
  if (rows <= 0 || channels <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    add_bias_k<T><<<channel_grid(rows, channels), dim3(kCols, kRows), 0, s>>>(
        static_cast<T*>(out), static_cast<const T*>(in), bias, rows, channels);
  });
  MG_CHECK_LAUNCH();
}

void bn_finalize_stats(const double* sums, int64_t rows, int64_t channels, const float* gamma, const float* beta,
                       float eps, float momentum, float* running_mean, float* running_var, float* save_mean,
                       float* save_invstd, float* coef, cudaStream_t s) {
  bn_stats_k<<<channel_blocks(channels), 256, 0, s>>>(sums, rows, channels, gamma, beta, eps, momentum,
                                                      running_mean, running_var, save_mean, save_invstd, coef);
  MG_CHECK_LAUNCH();
}

void bn_inference_coef(const float* running_mean, const float* running_var, const float* gamma,
                       const float* beta, float eps, int64_t channels, float* coef, cudaStream_t s) {
  bn_infer_coef_k<<<channel_blocks(channels), 256, 0, s>>>(running_mean, running_var, gamma, beta, eps, channels,
                                                           coef);
  MG_CHECK_LAUNCH();
}

void bn_apply(const void* x, void* y, const float* coef, DType dt, int64_t rows, int64_t channels,
              cudaStream_t s) {
  if (rows <= 0 || channels <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    if (packable<T>(channels, {x, y})) {
      const int64_t cpacks = channels / Pack<T>::N;
      const PackGrid g = pack_grid(rows, cpacks);
      bn_apply_vec_k<T><<<g.grid, g.block, 0, s>>>(static_cast<const Pack<T>*>(x), static_cast<Pack<T>*>(y), coef,
                                                   rows, cpacks, channels);
    } else {
      bn_apply_k<T><<<channel_grid(rows, channels), dim3(kCols, kRows), 0, s>>>(
          static_cast<const T*>(x), static_cast<T*>(y), coef, rows, channels);
    }
  });
  MG_CHECK_LAUNCH();
}

void bn_backward_finalize(const double* sums, int64_t rows, int64_t channels, const float* gamma,
                          const float* save_invstd, float* dgamma, float* dbeta, bool accumulate, float* coef,
                          cudaStream_t s) {
  bn_bwd_finalize_k<<<channel_blocks(channels), 256, 0, s>>>(sums, rows, channels, gamma, save_invstd, dgamma,
                                                             dbeta, accumulate, coef);
  MG_CHECK_LAUNCH();
}

void bn_backward_apply(const void* x, const void* dy, void* dx, const float* mean, const float* coef, DType dt,
                       int64_t rows, int64_t channels, cudaStream_t s) {
  if (rows <= 0 || channels <= 0) return;
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    if (packable<T>(channels, {x, dy, dx})) {
      const int64_t cpacks = channels / Pack<T>::N;
      const PackGrid g = pack_grid(rows, cpacks);
      bn_bwd_apply_vec_k<T><<<g.grid, g.block, 0, s>>>(static_cast<const Pack<T>*>(x),
                                                       static_cast<const Pack<T>*>(dy), static_cast<Pack<T>*>(dx),
                                                       mean, coef, rows, cpacks, channels);
    } else {
      bn_bwd_apply_k<T><<<channel_grid(rows, channels), dim3(kCols, kRows), 0, s>>>(
          static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), mean, coef, rows, channels);
    }
  });
  MG_CHECK_LAUNCH();
}

}  // namespace mg::kernels
