#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
// y = max((x-mean)*scale+shift, 0) over rows x c, plain vs streaming stores
template <bool NT>
__attribute__((target("avx512f"))) void norm(const float* x, float* y, long rows, long c, const float* m, const float* s, const float* sh) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    long b = rows * t / nt, e = rows * (t + 1) / nt;
    for (long r = b; r < e; ++r) {
      const float* xr = x + r * c; float* yr = y + r * c;
      for (long j = 0; j < c; j += 16) {
        __m512 v = _mm512_fmadd_ps(_mm512_sub_ps(_mm512_load_ps(xr + j), _mm512_load_ps(m + j)), _mm512_load_ps(s + j), _mm512_load_ps(sh + j));
        v = _mm512_max_ps(v, _mm512_setzero_ps());
        if (NT) _mm512_stream_ps(yr + j, v); else _mm512_store_ps(yr + j, v);
      }
    }
    if (NT) _mm_sfence();
  }
}
int main(int argc, char** argv) {
  long c = atol(argv[1]), hw = atol(argv[2]), rows = 16 * hw;
  float* x = (float*)aligned_alloc(64, rows * c * 4); float* y = (float*)aligned_alloc(64, rows * c * 4);
  float *m = (float*)aligned_alloc(64, c * 4), *s = (float*)aligned_alloc(64, c * 4), *sh = (float*)aligned_alloc(64, c * 4);
  for (long i = 0; i < rows * c; ++i) x[i] = (i % 7) * 0.1f; memset(y, 0, rows * c * 4);
  for (long j = 0; j < c; ++j) m[j] = 0.3f, s[j] = 1.1f, sh[j] = 0.01f;
  for (int round = 0; round < 3; ++round)
    for (int nt = 0; nt < 2; ++nt) {
      auto t0 = std::chrono::steady_clock::now();
      for (int it = 0; it < 10; ++it) nt ? norm<true>(x, y, rows, c, m, s, sh) : norm<false>(x, y, rows, c, m, s, sh);
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 10;
      printf("c=%ld hw=%ld MB=%.0f %s %.2f ms %.1f GB/s(r+w)\n", c, hw, rows * c * 4 / 1e6, nt ? "stream" : "store ", dt * 1e3, 2 * rows * c * 4 / dt / 1e9);
    }
}
