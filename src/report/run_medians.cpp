#include "report/run_medians.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "report/mann_whitney.h"
#include "result/stats.h"

namespace mg {

namespace {

template <class F>
void for_each_run(const DeviceCountResult& r, F&& f) {
  std::vector<int64_t> sizes = r.run_samples;
  if (sizes.empty()) sizes.push_back(static_cast<int64_t>(r.samples.size()));
  size_t at = 0;
  for (int64_t k : sizes) {
    const size_t end = std::min(r.samples.size(), at + static_cast<size_t>(std::max<int64_t>(0, k)));
    if (end > at) f(at, end);
    at = end;
  }
}

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - 0.02425) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// Number of sign patterns of ranks 1..n whose positive ranks sum to w, for w = 0..n(n+1)/2.
std::vector<long double> signed_rank_counts(int64_t n) {
  const int64_t top = n * (n + 1) / 2;
  std::vector<long double> c(static_cast<size_t>(top + 1), 0.0L);
  c[0] = 1;
  for (int64_t r = 1; r <= n; ++r)
    for (int64_t w = top; w >= r; --w) c[w] += c[w - r];
  return c;
}

// P(W+ <= w) under the null, exact.
double signed_rank_cdf(int64_t n, int64_t w) {
  const std::vector<long double> c = signed_rank_counts(n);
  long double below = 0, total = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    total += c[i];
    if (static_cast<int64_t>(i) <= w) below += c[i];
  }
  return static_cast<double>(below / total);
}

std::vector<double> log_ratios(const std::vector<double>& base, const std::vector<double>& next) {
  MG_ENSURE(base.size() == next.size(), "paired runs: both sides need the same number of runs");
  std::vector<double> d;
  for (size_t i = 0; i < base.size(); ++i) d.push_back(std::log(next[i]) - std::log(base[i]));
  return d;
}

// P(U <= c) under the null, exact (no ties in the null distribution of ranks).
double u_cdf(int64_t m, int64_t n, int64_t c) { return 1.0 - mann_whitney_exact_sf(m, n, c + 1); }

}  // namespace

std::vector<double> run_median_step_times(const DeviceCountResult& r) {
  std::vector<double> out;
  for_each_run(r, [&](size_t b, size_t e) {
    std::vector<double> v;
    for (size_t i = b; i < e; ++i) v.push_back(r.samples[i].total);
    std::sort(v.begin(), v.end());
    out.push_back(quantile_sorted(v, 0.5));
  });
  return out;
}

std::vector<double> run_means(const DeviceCountResult& r, double StepBreakdown::*field) {
  std::vector<double> out;
  for_each_run(r, [&](size_t b, size_t e) {
    double s = 0;
    for (size_t i = b; i < e; ++i) s += r.samples[i].*field;
    out.push_back(s / static_cast<double>(e - b));
  });
  return out;
}

double smallest_two_sided_p(int64_t m, int64_t n) {
  if (m <= 0 || n <= 0) return 1;
  double log_c = std::lgamma(static_cast<double>(m + n + 1)) - std::lgamma(static_cast<double>(m + 1)) -
                 std::lgamma(static_cast<double>(n + 1));
  return std::min(1.0, 2 * std::exp(-log_c));
}

RatioInterval hodges_lehmann_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                   double confidence) {
  RatioInterval out;
  const int64_t m = static_cast<int64_t>(base.size()), n = static_cast<int64_t>(next.size());
  if (m == 0 || n == 0) return out;
  std::vector<double> d;
  d.reserve(static_cast<size_t>(m * n));
  for (double b : base)
    for (double x : next) d.push_back(std::log(x) - std::log(b));
  std::sort(d.begin(), d.end());
  out.estimate = std::exp(quantile_sorted(d, 0.5));
  const int64_t mn = m * n;
  const double tail = (1 - confidence) / 2;
  int64_t c = -1;  // largest count with P(U <= c) <= tail
  if (std::min(m, n) <= 50) {
    while (c + 1 < mn / 2 && u_cdf(m, n, c + 1) <= tail) ++c;
  } else {  // normal approximation of U with continuity correction
    const double sd = std::sqrt(static_cast<double>(mn) * static_cast<double>(m + n + 1) / 12);
    c = static_cast<int64_t>(std::floor(static_cast<double>(mn) / 2 + normal_quantile(tail) * sd - 0.5));
    c = std::clamp<int64_t>(c, -1, mn / 2 - 1);
  }
  if (c < 0) {
    out.lo = std::exp(d.front());
    out.hi = std::exp(d.back());
    out.coverage = std::max(0.0, 1 - 2 * u_cdf(m, n, 0));  // one pair: 0, a point
    return out;
  }
  out.lo = std::exp(d[static_cast<size_t>(c)]);  // D_(c+1), 1-based
  out.hi = std::exp(d[static_cast<size_t>(mn - 1 - c)]);  // D_(mn-c)
  out.coverage = std::min(1.0, 1 - 2 * (std::min(m, n) <= 50 ? u_cdf(m, n, c) : tail));
  return out;
}

double student_t_quantile(double p, int64_t dof) {
  MG_ENSURE(dof >= 1 && p > 0 && p < 1, "student_t_quantile: dof >= 1 and p in (0, 1)");
  const double z = normal_quantile(p), v = static_cast<double>(dof);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

NoiseFloor noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha) {
  NoiseFloor f;
  const int64_t m = static_cast<int64_t>(base.size()), n = static_cast<int64_t>(next.size());
  const int64_t dof = m + n - 2;
  f.test_can_reject = smallest_two_sided_p(m, n) < alpha;
  if (m < 1 || n < 1 || dof < 1) return f;
  double ss = 0;
  for (const std::vector<double>* side : {&base, &next}) {
    double mean = 0;
    for (double x : *side) mean += std::log(x);
    mean /= static_cast<double>(side->size());
    for (double x : *side) ss += (std::log(x) - mean) * (std::log(x) - mean);
  }
  f.known = true;
  f.run_spread = std::sqrt(ss / static_cast<double>(dof));
  const double se = f.run_spread * std::sqrt(1.0 / static_cast<double>(m) + 1.0 / static_cast<double>(n));
  f.a_vs_a_band = std::exp(student_t_quantile(0.975, dof) * se) - 1;
  if (!f.test_can_reject) {
    f.min_detectable = std::numeric_limits<double>::infinity();
  } else {
    const double shift = (student_t_quantile(1 - alpha / 2, dof) + student_t_quantile(0.80, dof)) * se /
                         std::sqrt(3 / M_PI);
    f.min_detectable = 1 - std::exp(-shift);
  }
  return f;
}

SignedRankResult wilcoxon_signed_rank(const std::vector<double>& d_in) {
  SignedRankResult r;
  std::vector<double> d;
  bool zeros = false;
  for (double x : d_in) {
    if (x == 0) zeros = true;
    else d.push_back(x);
  }
  const int64_t n = static_cast<int64_t>(d.size());
  if (n == 0) return r;
  std::vector<std::pair<double, bool>> a;  // |d|, positive
  for (double x : d) a.push_back({std::fabs(x), x > 0});
  std::sort(a.begin(), a.end());
  double tie_term = 0;
  for (size_t i = 0; i < a.size();) {
    size_t j = i;
    while (j < a.size() && a[j].first == a[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2, t = static_cast<double>(j - i);
    for (size_t k = i; k < j; ++k)
      if (a[k].second) r.w_plus += rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double top = static_cast<double>(n) * static_cast<double>(n + 1) / 2;
  if (tie_term == 0 && !zeros && n <= 60) {
    r.exact = true;
    const int64_t w = std::llround(std::min(r.w_plus, top - r.w_plus));
    r.p_value = std::min(1.0, 2 * signed_rank_cdf(n, w));
  } else {
    const double dn = static_cast<double>(n);
    const double sd = std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24 - tie_term / 48);
    const double z = sd > 0 ? (std::fabs(r.w_plus - top / 2) - 0.5) / sd : 0;
    r.p_value = std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
  }
  return r;
}

double smallest_signed_rank_p(int64_t n) { return n <= 0 ? 1 : std::min(1.0, 2 * std::pow(0.5, static_cast<double>(n))); }

RatioInterval paired_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence) {
  RatioInterval out;
  const std::vector<double> d = log_ratios(base, next);
  const int64_t n = static_cast<int64_t>(d.size());
  if (n == 0) return out;
  std::vector<double> walsh;
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  out.estimate = std::exp(quantile_sorted(walsh, 0.5));
  const int64_t N = static_cast<int64_t>(walsh.size());
  const double tail = (1 - confidence) / 2;
  int64_t c = -1;  // largest count with P(W+ <= c) <= tail
  if (n <= 60) {
    while (c + 1 < N / 2 && signed_rank_cdf(n, c + 1) <= tail) ++c;
  } else {
    const double dn = static_cast<double>(n);
    const double sd = std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24);
    c = std::clamp<int64_t>(static_cast<int64_t>(std::floor(static_cast<double>(N) / 2 + normal_quantile(tail) * sd - 0.5)),
                            -1, N / 2 - 1);
  }
  const int64_t k = std::max<int64_t>(c, 0);
  out.lo = std::exp(walsh[static_cast<size_t>(k)]);
  out.hi = std::exp(walsh[static_cast<size_t>(N - 1 - k)]);
  out.coverage = std::max(0.0, 1 - 2 * (n <= 60 ? signed_rank_cdf(n, k) : tail));
  return out;
}

NoiseFloor paired_noise_floor(const std::vector<double>& base, const std::vector<double>& next, double alpha) {
  NoiseFloor f;
  const std::vector<double> d = log_ratios(base, next);
  const int64_t n = static_cast<int64_t>(d.size());
  f.test_can_reject = smallest_signed_rank_p(n) < alpha;
  if (n < 2) return f;
  double mean = 0, ss = 0;
  for (double x : d) mean += x / static_cast<double>(n);
  for (double x : d) ss += (x - mean) * (x - mean);
  f.known = true;
  const double sd_d = std::sqrt(ss / static_cast<double>(n - 1));
  f.run_spread = sd_d / std::sqrt(2.0);  // one run's share of the pair difference
  const double se = sd_d / std::sqrt(static_cast<double>(n));
  f.a_vs_a_band = std::exp(student_t_quantile(0.975, n - 1) * se) - 1;
  if (!f.test_can_reject) {
    f.min_detectable = std::numeric_limits<double>::infinity();
  } else {
    const double shift =
        (student_t_quantile(1 - alpha / 2, n - 1) + student_t_quantile(0.80, n - 1)) * se / std::sqrt(3 / M_PI);
    f.min_detectable = 1 - std::exp(-shift);
  }
  return f;
}

}  // namespace mg
