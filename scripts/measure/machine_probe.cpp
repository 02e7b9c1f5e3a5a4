// What this machine can do at best, as the yardsticks for mgbench's CPU figures:
//   fma:  fp32 fused multiply-adds on every core at once, from independent AVX-512 (else AVX2) register
//         chains, GFLOP/s (2 flops per lane per FMA);
//   copy: memcpy of buffers far larger than the caches, one thread and every core at once, GB/s of bytes
//         copied (each copied byte is read once and written once; STREAM's "copy" counts both, i.e. twice this).
// Best of several repeats: the VM is shared, and a peak is what the figures are compared against. The FMA
// repeats are spread over about a second: on the 2-vCPU VM a burst of back-to-back repeats (0.2 s) now and then
// found only one core's worth for all of them (117 of 230 GFLOP/s, 1 run in 6), a state that passes.
// Built and run by scripts/measure/machine-probe.sh; prints one JSON object.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// 16 independent chains hide the FMA latency (4 cycles on Zen 4 / Skylake) on two FMA pipes. They must live in
// registers: at -O2 GCC 12 kept the loop over the array, so every FMA waited on a store and a reload and the
// probe read one third of the peak (106.6 instead of 354.8 GFLOP/s on the 2-vCPU development VM).
#if defined(__AVX512F__)
constexpr int kLanes = 16, kChains = 16;
float fma_chains(long iters) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(1.0f + i * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}
#else
constexpr int kLanes = 8;
// 12 chains, not 16: with the two constants 16 would need 18 of AVX2's 16 ymm registers, and the spills halved
// the reading (58 instead of about 100 GFLOP/s a core on an AVX2-only EPYC VM).
constexpr int kChains = 12;
float fma_chains(long iters) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(1.0f + i * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  float out[8];
  __m256 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm256_add_ps(s, acc[i]);
  _mm256_storeu_ps(out, s);
  return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}
#endif

double fma_gflops(int threads, int repeats) {
  const long iters = 2'000'000;
  double best = 0;
  volatile float sink = 0;
  for (int r = 0; r < repeats; ++r) {
    double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(threads)
    {
#pragma omp barrier
#pragma omp single
      t0 = now();
      const float v = fma_chains(iters);
#pragma omp atomic
      sink += v;
#pragma omp barrier
#pragma omp single
      t1 = now();
    }
    const double flops = 2.0 * kLanes * kChains * static_cast<double>(iters) * threads;
    best = std::max(best, flops / (t1 - t0) / 1e9);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return best;
}

double copy_GBps(int threads, size_t bytes_per_thread, int repeats) {
  std::vector<std::vector<char>> src(threads), dst(threads);
  double best = 0;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    // Each thread first-touches its own buffers (its NUMA node, if any).
    src[t].assign(bytes_per_thread, static_cast<char>(t + 1));
    dst[t].assign(bytes_per_thread, 0);
  }
  for (int r = 0; r < repeats; ++r) {
    double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
#pragma omp barrier
#pragma omp single
      t0 = now();
      std::memcpy(dst[t].data(), src[t].data(), bytes_per_thread);
#pragma omp barrier
#pragma omp single
      t1 = now();
    }
    best = std::max(best, static_cast<double>(bytes_per_thread) * threads / (t1 - t0) / 1e9);
  }
  return best;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  const int cores = omp_get_num_procs();
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  const size_t copy_bytes = 256u << 20;  // per thread: far beyond any L3 this VM has
  const double fma1 = fma_gflops(1, repeats), fma_all = fma_gflops(cores, repeats);
  const double copy1 = copy_GBps(1, copy_bytes, repeats), copy_all = copy_GBps(cores, copy_bytes, repeats);
  std::printf("{\"cpu_model\": \"%s\", \"cores\": %d, \"isa\": \"%s\", \"repeats\": %d,\n"
              " \"fma_gflops_1thread\": %.1f, \"fma_gflops_all_cores\": %.1f,\n"
              " \"copy_bytes_per_thread\": %zu, \"copy_GBps_1thread\": %.2f, \"copy_GBps_all_cores\": %.2f}\n",
              cpu_model().c_str(), cores, kLanes == 16 ? "avx512" : "avx2", repeats, fma1, fma_all, copy_bytes,
              copy1, copy_all);
  return 0;
}
