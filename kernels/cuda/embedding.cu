// Token plus position embedding (GPT-2's wte + wpe), the CPU backend's semantics (cpu_layers_embedding.cpp). The
// token table's gradient is a scatter where repeated ids add up: the ids are sorted stably with their row
// indices (cub's radix sort), and each run of one id is summed by one thread per column in token order, as the
// CPU does, so the result is deterministic and needs no atomics.
#include <cub/device/device_radix_sort.cuh>

#include <cmath>

#include "kernels/cuda/dtype.cuh"
#include "kernels/cuda/kernels.cuh"

namespace mg::kernels {
namespace {

constexpr int kThreads = 256;

// An id outside the vocabulary makes its row NaN, so the loss turns non-finite and the trainer stops.
template <typename T>
__global__ void emb_fwd_k(const int32_t* ids, const float* wte, const float* wpe, T* out, int64_t rows, int64_t t,
                          int64_t c, int64_t vocab) {
  MG_GRID_LOOP(i, rows * c) {
    const int64_t r = i / c, j = i - r * c;
    const int32_t id = ids[r];
    out[i] = from_f32<T>(id >= 0 && id < vocab ? wte[static_cast<int64_t>(id) * c + j] + wpe[(r % t) * c + j] : NAN);
  }
}

__global__ void iota_k(int32_t* p, int64_t n) {
  MG_GRID_LOOP(i, n) { p[i] = static_cast<int32_t>(i); }
}

// Block x: a position in the sorted ids; only the first of each run works, adding the run's rows in order.
template <typename T>
__global__ void emb_token_grad_k(const int32_t* keys, const int32_t* rows_of, const T* dy, float* dwte,
                                 int64_t rows, int64_t c, int64_t vocab) {
  const int64_t i = blockIdx.x;
  const int32_t id = keys[i];
  if ((i > 0 && keys[i - 1] == id) || id < 0 || id >= vocab) return;
  const int64_t col = static_cast<int64_t>(blockIdx.y) * kThreads + threadIdx.x;
  if (col >= c) return;
  float* g = dwte + static_cast<int64_t>(id) * c + col;
  float acc = *g;
  for (int64_t k = i; k < rows && keys[k] == id; ++k) acc += to_f32(dy[static_cast<int64_t>(rows_of[k]) * c + col]);
  *g = acc;
}

// dwpe[t, c] += the sum over the batch, in batch order.
template <typename T>
__global__ void emb_position_grad_k(const T* dy, float* dwpe, int64_t n, int64_t t, int64_t c) {
  MG_GRID_LOOP(i, t * c) {
    const int64_t tt = i / c, col = i - tt * c;
    float s = 0;
    for (int64_t b = 0; b < n; ++b) s += to_f32(dy[(b * t + tt) * c + col]);
    dwpe[i] += s;
  }
}

void check_rows(int64_t rows, int64_t c) {
  MG_ENSURE(rows > 0 && c > 0 && rows <= 0x7fffffff && (c + kThreads - 1) / kThreads <= 65535,
            "embedding: bad shape");
}

}  // namespace

void embedding_forward(const int32_t* ids, const float* wte, const float* wpe, void* out, DType dt, int64_t n,
                       int64_t t, int64_t c, int64_t vocab, cudaStream_t s) {
  const int64_t rows = n * t;
  launch_float(dt, rows * c, [&](auto tag) {
    using T = decltype(tag);
    emb_fwd_k<T><<<grid_for(rows * c), kThreads, 0, s>>>(ids, wte, wpe, static_cast<T*>(out), rows, t, c, vocab);
  });
}

size_t embedding_sort_bytes(int64_t rows) {
  check_rows(rows, 1);
  size_t bytes = 0;
  MG_CHECK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const int32_t*>(nullptr),
                                                static_cast<int32_t*>(nullptr), static_cast<const int32_t*>(nullptr),
                                                static_cast<int32_t*>(nullptr), static_cast<int>(rows)));
  return bytes;
}

void embedding_backward(const int32_t* ids, const void* dy, DType dt, float* dwte, float* dwpe, int64_t n, int64_t t,
                        int64_t c, int64_t vocab, int64_t positions, bool accumulate, const TokenSort& sort,
                        cudaStream_t s) {
  const int64_t rows = n * t;
  check_rows(rows, c);
  if (!accumulate) {
    MG_CHECK_CUDA(cudaMemsetAsync(dwte, 0, static_cast<size_t>(vocab * c) * sizeof(float), s));
    MG_CHECK_CUDA(cudaMemsetAsync(dwpe, 0, static_cast<size_t>(positions * c) * sizeof(float), s));
  }
  iota_k<<<grid_for(rows), kThreads, 0, s>>>(sort.rows_in, rows);
  MG_CHECK_LAUNCH();
  size_t temp = sort.temp_bytes;
  MG_CHECK_CUDA(cub::DeviceRadixSort::SortPairs(sort.temp, temp, ids, sort.keys, sort.rows_in, sort.rows_out,
                                                static_cast<int>(rows), 0, 32, s));
  const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((c + kThreads - 1) / kThreads));
  launch_float(dt, rows * c, [&](auto tag) {
    using T = decltype(tag);
    emb_token_grad_k<T><<<grid, kThreads, 0, s>>>(sort.keys, sort.rows_out, static_cast<const T*>(dy), dwte, rows, c,
                                                   vocab);
  });
  launch_float(dt, t * c, [&](auto tag) {
    using T = decltype(tag);
    emb_position_grad_k<T><<<grid_for(t * c), kThreads, 0, s>>>(static_cast<const T*>(dy), dwpe, n, t, c);
  });
}

}  // namespace mg::kernels
