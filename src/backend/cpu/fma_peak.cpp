#include "backend/cpu/fma_peak.h"

#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <time.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "core/error.h"
#include "core/host_info.h"
#include "core/omp_team.h"

namespace mg {

namespace {

// Chains per kernel: at least ports x latency (2 x 4 on recent x86 cores) in registers, with room to spare.
constexpr int kChains512 = 16, kChains256 = 12, kChains128 = 12, kChainsGeneric = 32;

// The smallest and largest of a kernel's final lanes.
FmaLanes lanes_range(const float* v, size_t n, int64_t flops) {
  const auto [mn, mx] = std::minmax_element(v, v + n);
  return {*mn, *mx, flops};
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) FmaLanes fma_avx512(int64_t iters, float a, float b) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  __m512 c[kChains512];
  for (auto& x : c) x = _mm512_setzero_ps();
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (auto& x : c) x = _mm512_fmadd_ps(x, va, vb);  // unrolled: every chain stays in a register
  }
  alignas(64) float lanes[kChains512 * 16];
  for (int k = 0; k < kChains512; ++k) _mm512_store_ps(lanes + 16 * k, c[k]);
  return lanes_range(lanes, std::size(lanes), iters * kChains512 * 16 * 2);
}

__attribute__((target("avx2,fma"))) FmaLanes fma_avx2(int64_t iters, float a, float b) {
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  __m256 c[kChains256];
  for (auto& x : c) x = _mm256_setzero_ps();
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (auto& x : c) x = _mm256_fmadd_ps(x, va, vb);  // unrolled: every chain stays in a register
  }
  alignas(32) float lanes[kChains256 * 8];
  for (int k = 0; k < kChains256; ++k) _mm256_store_ps(lanes + 8 * k, c[k]);
  return lanes_range(lanes, std::size(lanes), iters * kChains256 * 8 * 2);
}

// No FMA unit: a multiply and an add per element, two roundings (the scalar reference does the same).
FmaLanes fma_sse2(int64_t iters, float a, float b) {
  const __m128 va = _mm_set1_ps(a), vb = _mm_set1_ps(b);
  __m128 c[kChains128];
  for (auto& x : c) x = _mm_setzero_ps();
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (auto& x : c) x = _mm_add_ps(_mm_mul_ps(x, va), vb);  // unrolled: every chain stays in a register
  }
  alignas(16) float lanes[kChains128 * 4];
  for (int k = 0; k < kChains128; ++k) _mm_store_ps(lanes + 4 * k, c[k]);
  return lanes_range(lanes, std::size(lanes), iters * kChains128 * 4 * 2);
}
#endif

// Other CPUs (aarch64): plain fused multiply-adds over independent chains, left to the compiler to vectorise.
FmaLanes fma_generic(int64_t iters, float a, float b) {
  float c[kChainsGeneric] = {};
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 32
    for (float& x : c) x = std::fma(x, a, b);
  }
  return lanes_range(c, std::size(c), iters * kChainsGeneric * 2);
}

// CPU time of the calling thread: time the scheduler gave other processes does not count against the cores.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

std::string fma_peak_isa() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2";
  return "sse2";
#else
  return "generic";
#endif
}

FmaLanes run_fma_kernel(const std::string& isa, int64_t iters, float a, float b) {
#if defined(__x86_64__)
  if (isa == "avx512") return fma_avx512(iters, a, b);
  if (isa == "avx2") return fma_avx2(iters, a, b);
  if (isa == "sse2") return fma_sse2(iters, a, b);
#endif
  MG_ENSURE(isa == "generic", "unknown FMA kernel " + isa);
  return fma_generic(iters, a, b);
}

FmaRound fma_round(const std::string& isa, int threads, int64_t iters) {
  std::vector<FmaLanes> out(static_cast<size_t>(threads));
  std::vector<double> cpu(static_cast<size_t>(threads), -1);  // -1: OpenMP gave the team no such thread
#pragma omp parallel num_threads(omp_team(threads))
  {
    const auto t = static_cast<size_t>(omp_get_thread_num());
    const double t0 = thread_cpu_seconds();
    // Runtime values: the compiler cannot fold the chains away.
    out[t] = run_fma_kernel(isa, iters, 0.999999f, 1e-6f * static_cast<float>(t + 1));
    cpu[t] = thread_cpu_seconds() - t0;
  }
  FmaRound r;
  int ran = 0;
  for (size_t t = 0; t < out.size(); ++t) {
    if (cpu[t] < 0) continue;
    r.min_cpu_s = ran++ ? std::min(r.min_cpu_s, cpu[t]) : cpu[t];
    r.flops_per_s += static_cast<double>(out[t].flops) / std::max(cpu[t], 1e-9);
  }
  // Threads beyond the CPUs this process may use take turns on them: each thread's CPU-time rate is a whole CPU's.
  r.flops_per_s *= std::min(1.0, static_cast<double>(cpu_core_count()) / std::max(ran, 1));
  return r;
}

FmaPeak measure_fma_peak(int threads) {
  MG_ENSURE(threads >= 1, "measure_fma_peak needs a thread");
  FmaPeak p;
  p.isa = fma_peak_isa();
  p.threads = omp_team(threads);
  int64_t iters = 1 << 14;
  // Grow the round to >= 20 ms of CPU time (the first rounds also bring the cores up to their vector clock).
  while (fma_round(p.isa, p.threads, iters).min_cpu_s < 0.02 && iters < (int64_t{1} << 34)) iters *= 2;
  for (int r = 0; r < 3; ++r) p.flops_per_s = std::max(p.flops_per_s, fma_round(p.isa, p.threads, iters).flops_per_s);
  return p;
}

}  // namespace mg
