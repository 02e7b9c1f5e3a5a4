#include "backend/cpu/bn_kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

#include <omp.h>

#include "core/omp_team.h"

// The row loops are built for AVX-512 and AVX2 besides the baseline the rest of the build targets, picked once
// by the CPU the process runs on, since a layer small enough to sit in cache is bound by arithmetic, not memory.
// The pick is an explicit table rather than target_clones: a clone's ifunc resolver runs while the dynamic
// loader relocates, before a sanitizer's runtime is set up, and under ThreadSanitizer every test binary died
// there before main.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MG_BN_X86 1
#define MG_BN_INLINE inline __attribute__((always_inline))
#else
#define MG_BN_X86 0
#define MG_BN_INLINE inline
#endif

namespace mg::cpu::bn {

namespace {

// Rows summed in fp32 before the run is added to the double totals.
constexpr int64_t kRun = 64;
// Below this many values a pass stays on one thread: waking the team costs more than it saves.
constexpr int64_t kParallelMin = int64_t{1} << 15;

int team_for(int64_t values) { return values < kParallelMin ? 1 : omp_team(omp_get_max_threads()); }

// The per-thread split of rows [0, rows) among nt threads.
int64_t split(int64_t rows, int t, int nt) { return rows * t / nt; }

// The normalised value, the one expression forward's output and backward's ReLU gate both come from.
MG_BN_INLINE float normalized(float x, float mean, float scale, float shift) { return (x - mean) * scale + shift; }

// dy where the forward's ReLU passed its element, else 0.
template <bool kRelu>
MG_BN_INLINE float gated(float dy, float x, float mean, float scale, float shift) {
  if constexpr (kRelu) return normalized(x, mean, scale, shift) > 0.f ? dy : 0.f;
  return dy;
}

// One thread's sums over rows [b, e): S[j] += f(x, dy)[j], Q[j] += h(x, dy)[j], via fp32 runs in s and q.
// mode 0: f = x - k, h = (x - k)^2 (statistics about a shift k near the mean, so the variance does not cancel);
// mode 1: f = g, h = g * (x - k) with g = dy, gated by (x - k) * scale + shift > 0 when relu (backward, k = mean).
template <int kMode, bool kRelu>
MG_BN_INLINE void sum_rows(const float* __restrict x, const float* __restrict dy, int64_t b, int64_t e, int64_t c,
                           const float* __restrict k, const float* __restrict scale, const float* __restrict shift,
                           float* __restrict s, float* __restrict q, double* __restrict S, double* __restrict Q) {
  for (int64_t r0 = b; r0 < e; r0 += kRun) {
    const int64_t r1 = std::min(e, r0 + kRun);
    std::fill(s, s + c, 0.f);
    std::fill(q, q + c, 0.f);
    for (int64_t r = r0; r < r1; ++r) {
      const float* __restrict xr = x + r * c;
      if constexpr (kMode == 0) {
#pragma omp simd
        for (int64_t j = 0; j < c; ++j) {
          const float d = xr[j] - k[j];
          s[j] += d;
          q[j] += d * d;
        }
      } else {
        const float* __restrict gr = dy + r * c;
#pragma omp simd
        for (int64_t j = 0; j < c; ++j) {
          const float g = gated<kRelu>(gr[j], xr[j], k[j], scale[j], shift[j]);
          s[j] += g;
          q[j] += g * (xr[j] - k[j]);
        }
      }
    }
    for (int64_t j = 0; j < c; ++j) {
      S[j] += s[j];
      Q[j] += q[j];
    }
  }
}

// The residual, when there is one, is added after the normalised value is rounded, as a separate add would.
template <bool kRelu, bool kResidual>
MG_BN_INLINE void normalize_rows(const float* x, float* y, const float* res, int64_t b, int64_t e, int64_t c,
                                 const float* __restrict mean, const float* __restrict scale,
                                 const float* __restrict shift) {
  for (int64_t r = b; r < e; ++r) {
    const float* xr = x + r * c;
    const float* rr = res + (kResidual ? r * c : 0);
    float* yr = y + r * c;
#pragma omp simd
    for (int64_t j = 0; j < c; ++j) {
      float v = normalized(xr[j], mean[j], scale[j], shift[j]);
      if constexpr (kResidual) v += rr[j];
      if constexpr (kRelu) {
        yr[j] = v > 0.f ? v : 0.f;
      } else {
        yr[j] = v;
      }
    }
  }
}

// dx = g * A + (x - mean) * B + D per channel, g as in sum_rows' mode 1 (centred, so B's term does not cancel
// against D's when the mean is large).
template <bool kRelu>
MG_BN_INLINE void input_grad_rows(const float* __restrict x, const float* __restrict dy, float* __restrict dx,
                                  int64_t b, int64_t e, int64_t c, const float* __restrict mean,
                                  const float* __restrict scale, const float* __restrict shift,
                                  const float* __restrict A,
                                  const float* __restrict B, const float* __restrict D) {
  for (int64_t r = b; r < e; ++r) {
    const float* __restrict xr = x + r * c;
    const float* __restrict gr = dy + r * c;
    float* __restrict dr = dx + r * c;
#pragma omp simd
    for (int64_t j = 0; j < c; ++j) {
      const float g = gated<kRelu>(gr[j], xr[j], mean[j], scale[j], shift[j]);
      dr[j] = g * A[j] + (xr[j] - mean[j]) * B[j] + D[j];
    }
  }
}

// One thread's share of a call: rows [b, e) of x (and dy), and the per-channel operands the loop reads.
struct Rows {
  const float* x;
  const float* dy;   // sums in mode 1, input gradient
  const float* res;  // normalize: added before the ReLU, or null
  float* out;       // y of normalize, dx of the input gradient
  int64_t b, e, c;
  const float* k;  // the statistics' shift, else the mean
  const float* scale;
  const float* shift;
  const float *A, *B, *D;  // input gradient
  float *s, *q;            // sums: fp32 runs
  double *S, *Q;           // sums: totals
  int mode;                // sums
  bool relu;
};

MG_BN_INLINE void sum_any(const Rows& r) {
  if (r.mode == 0) {
    sum_rows<0, false>(r.x, r.dy, r.b, r.e, r.c, r.k, r.scale, r.shift, r.s, r.q, r.S, r.Q);
  } else if (r.relu) {
    sum_rows<1, true>(r.x, r.dy, r.b, r.e, r.c, r.k, r.scale, r.shift, r.s, r.q, r.S, r.Q);
  } else {
    sum_rows<1, false>(r.x, r.dy, r.b, r.e, r.c, r.k, r.scale, r.shift, r.s, r.q, r.S, r.Q);
  }
}

MG_BN_INLINE void normalize_any(const Rows& r) {
  if (r.res) {
    if (r.relu) {
      normalize_rows<true, true>(r.x, r.out, r.res, r.b, r.e, r.c, r.k, r.scale, r.shift);
    } else {
      normalize_rows<false, true>(r.x, r.out, r.res, r.b, r.e, r.c, r.k, r.scale, r.shift);
    }
  } else if (r.relu) {
    normalize_rows<true, false>(r.x, r.out, nullptr, r.b, r.e, r.c, r.k, r.scale, r.shift);
  } else {
    normalize_rows<false, false>(r.x, r.out, nullptr, r.b, r.e, r.c, r.k, r.scale, r.shift);
  }
}

MG_BN_INLINE void input_grad_any(const Rows& r) {
  if (r.relu) {
    input_grad_rows<true>(r.x, r.dy, r.out, r.b, r.e, r.c, r.k, r.scale, r.shift, r.A, r.B, r.D);
  } else {
    input_grad_rows<false>(r.x, r.dy, r.out, r.b, r.e, r.c, r.k, r.scale, r.shift, r.A, r.B, r.D);
  }
}

struct Loops {
  const char* isa;
  void (*sum)(const Rows&);
  void (*normalize)(const Rows&);
  void (*input_grad)(const Rows&);
};

// The three loops compiled for one instruction set (the inlined templates take the caller's target).
#define MG_BN_LOOPS(isa, attr)                                     \
  attr void sum_##isa(const Rows& r) { sum_any(r); }               \
  attr void normalize_##isa(const Rows& r) { normalize_any(r); }   \
  attr void input_grad_##isa(const Rows& r) { input_grad_any(r); } \
  constexpr Loops k_##isa{#isa, sum_##isa, normalize_##isa, input_grad_##isa};

MG_BN_LOOPS(baseline, )
#if MG_BN_X86
MG_BN_LOOPS(avx2, __attribute__((target("avx2"))))
MG_BN_LOOPS(avx512, __attribute__((target("avx512f"))))
#endif

// Best first: the variants this CPU runs.
std::vector<const Loops*> runnable() {
  std::vector<const Loops*> v;
#if MG_BN_X86
  if (__builtin_cpu_supports("avx512f")) v.push_back(&k_avx512);
  if (__builtin_cpu_supports("avx2")) v.push_back(&k_avx2);
#endif
  v.push_back(&k_baseline);
  return v;
}

std::atomic<const Loops*>& chosen() {
  static std::atomic<const Loops*> c{runnable().front()};
  return c;
}

const Loops& loops() { return *chosen().load(std::memory_order_relaxed); }

// Where a call's values sit in its scratch: per thread 2c double totals, then per thread 2c fp32 runs, then the
// 2c double sums over threads, then 4c floats (the statistics' shift, or backward's coefficients).
struct Layout {
  double* totals;  // [thread][2c]
  float* runs;     // [thread][2c]
  double* sums;    // [2c]
  float* coef;     // [4c]
};

Layout carve(const Scratch& s, int64_t c) {
  char* p = static_cast<char*>(s.p);
  const size_t threads = static_cast<size_t>(s.threads), cc = static_cast<size_t>(c);
  Layout l{};
  l.totals = reinterpret_cast<double*>(p);
  l.runs = reinterpret_cast<float*>(p + threads * 2 * cc * sizeof(double));
  l.sums = reinterpret_cast<double*>(p + threads * 2 * cc * (sizeof(double) + sizeof(float)));
  l.coef = reinterpret_cast<float*>(reinterpret_cast<char*>(l.sums) + 2 * cc * sizeof(double));
  return l;
}

// Both sums of every row, per thread, then added over threads into l.sums (S, then Q).
void sum_all(int mode, bool relu, const float* x, const float* dy, int64_t rows, int64_t c, const float* k,
             const float* scale, const float* shift, const Scratch& scratch, const Layout& l) {
  const int team = std::min(team_for(rows * c), std::max(scratch.threads, 1));
  const size_t per = 2 * static_cast<size_t>(c);
  std::fill(l.totals, l.totals + per * static_cast<size_t>(team), 0.0);
  const Loops& loop = loops();
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    double* mine = l.totals + per * static_cast<size_t>(t);
    float* runs = l.runs + per * static_cast<size_t>(t);
    Rows r{};
    r.x = x, r.dy = dy, r.b = split(rows, t, nt), r.e = split(rows, t + 1, nt), r.c = c, r.k = k;
    r.scale = scale, r.shift = shift, r.s = runs, r.q = runs + c, r.S = mine, r.Q = mine + c;
    r.mode = mode, r.relu = relu;
    loop.sum(r);
  }
  double *S = l.sums, *Q = S + c;
  std::fill(S, S + per, 0.0);
  for (int t = 0; t < team; ++t) {  // a thread the runtime did not start left its zeros
    const double* mine = l.totals + per * static_cast<size_t>(t);
    for (int64_t j = 0; j < c; ++j) {
      S[j] += mine[j];
      Q[j] += mine[c + j];
    }
  }
}

}  // namespace

std::vector<std::string> runnable_isas() {
  std::vector<std::string> v;
  for (const Loops* l : runnable()) v.emplace_back(l->isa);
  return v;
}

std::string current_isa() { return loops().isa; }

void use_isa(const std::string& isa) {
  for (const Loops* l : runnable()) {
    if (isa == l->isa) {
      chosen().store(l);
      return;
    }
  }
  throw std::invalid_argument("bn::use_isa: no loops for " + isa + " on this CPU");
}

size_t scratch_bytes(int64_t c, int threads) {
  const size_t cc = static_cast<size_t>(c), t = static_cast<size_t>(std::max(threads, 1));
  return t * 2 * cc * (sizeof(double) + sizeof(float)) + 2 * cc * sizeof(double) + 4 * cc * sizeof(float);
}

void statistics(const float* x, int64_t rows, int64_t c, float* mean, float* var, Scratch scratch) {
  const Layout l = carve(scratch, c);
  // The shift: the mean of the first rows, near the channel's mean unless the data are ordered by it.
  float* k = l.coef;
  const int64_t head = std::min(rows, kRun);
  std::fill(k, k + c, 0.f);
  for (int64_t r = 0; r < head; ++r) {
    for (int64_t j = 0; j < c; ++j) k[j] += x[r * c + j];
  }
  for (int64_t j = 0; j < c; ++j) k[j] /= static_cast<float>(head);
  sum_all(0, false, x, nullptr, rows, c, k, nullptr, nullptr, scratch, l);
  const double *S = l.sums, *Q = S + c;
  const double n = static_cast<double>(rows);
  for (int64_t j = 0; j < c; ++j) {
    const double m = S[j] / n;  // mean of x - k
    mean[j] = static_cast<float>(k[j] + m);
    var[j] = static_cast<float>(std::max(Q[j] / n - m * m, 0.0));
  }
}

void normalize(const float* x, float* y, int64_t rows, int64_t c, const float* mean, const float* scale,
               const float* shift, bool relu, const float* residual) {
  const int team = team_for(rows * c);
  const Loops& loop = loops();
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    Rows r{};
    r.x = x, r.out = y, r.b = split(rows, t, nt), r.e = split(rows, t + 1, nt), r.c = c, r.k = mean;
    r.scale = scale, r.shift = shift, r.relu = relu, r.res = residual;
    loop.normalize(r);
  }
}

void backward(const BackwardArgs& a) {
  const int64_t rows = a.rows, c = a.c;
  const Layout l = carve(a.scratch, c);
  sum_all(1, a.relu, a.x, a.dy, rows, c, a.mean, a.scale, a.shift, a.scratch, l);
  const double *S = l.sums, *Q = S + c;
  const double n = static_cast<double>(rows);
  float *A = l.coef, *B = A + c, *D = B + c;
  for (int64_t j = 0; j < c; ++j) {
    const double rstd = 1.0 / std::sqrt(static_cast<double>(a.var[j]) + a.eps);
    a.dgamma[j] = static_cast<float>(Q[j] * rstd);
    a.dbeta[j] = static_cast<float>(S[j]);
    // dx = gamma * rstd * (g - mean(g) - (x - mean) * rstd^2 * mean(g * (x - mean)))
    const double ga = a.gamma[j] * rstd, bb = -ga * rstd * rstd * Q[j] / n;
    A[j] = static_cast<float>(ga);
    B[j] = static_cast<float>(bb);
    D[j] = static_cast<float>(-ga * S[j] / n);
  }
  if (!a.dx) return;
  const Loops& loop = loops();
#pragma omp parallel num_threads(team_for(rows * c))
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    Rows r{};
    r.x = a.x, r.dy = a.dy, r.out = a.dx, r.b = split(rows, t, nt), r.e = split(rows, t + 1, nt), r.c = c;
    r.k = a.mean, r.scale = a.scale, r.shift = a.shift, r.A = A, r.B = B, r.D = D, r.relu = a.relu;
    loop.input_grad(r);
  }
}

}  // namespace mg::cpu::bn
