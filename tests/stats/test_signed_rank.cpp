#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "stats/signed_rank.h"

using namespace mg;

namespace {

// Two-sided signed-rank p by brute force over all 2^n sign patterns: the definition, independent of the DP.
double brute_signed_rank_p(const std::vector<double>& d) {
  const int n = static_cast<int>(d.size());
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i) {
    rank[i] = 1;
    for (int j = 0; j < n; ++j) rank[i] += std::fabs(d[j]) < std::fabs(d[i]);
  }
  int w = 0;
  for (int i = 0; i < n; ++i) w += d[i] > 0 ? rank[i] : 0;
  const int top = n * (n + 1) / 2, lo = std::min(w, top - w);
  int at_most = 0;
  for (int mask = 0; mask < (1 << n); ++mask) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += (mask >> i & 1) ? rank[i] : 0;
    at_most += s <= lo;
  }
  return std::min(1.0, 2.0 * at_most / (1 << n));
}

}  // namespace

TEST_CASE("signed rank: smallest reachable p-value") {
  CHECK(smallest_signed_rank_p(5) == Approx(0.0625));
  CHECK(smallest_signed_rank_p(10) == Approx(2.0 / 1024));
}

TEST_CASE("Wilcoxon signed-rank against the definition") {
  for (const std::vector<double>& d : std::vector<std::vector<double>>{{0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8},
                                                                        {0.3, 0.1, 0.2, 0.4, 0.5, 0.6},
                                                                        {-0.05, 0.01, -0.02, 0.03, -0.04, 0.06, -0.07}}) {
    const SignedRankResult r = wilcoxon_signed_rank(d);
    CHECK(r.exact);
    CHECK(r.p_value == Approx(brute_signed_rank_p(d)));
  }
  CHECK(wilcoxon_signed_rank({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}).p_value == Approx(2.0 / 256));
  // Ties and zeros: normal approximation, and no evidence from all-zero differences.
  CHECK_FALSE(wilcoxon_signed_rank({0.1, 0.1, -0.1, 0.0}).exact);
  CHECK(wilcoxon_signed_rank({0.0, 0.0}).p_value == 1.0);
}

TEST_CASE("signed rank: paired ratio") {
  // NEW is exactly 10% slower in every pair: estimate 1/1.1 and an interval of width 0, whatever the drift.
  const std::vector<double> b = {100, 150, 80, 120, 90, 200}, n = {100 / 1.1, 150 / 1.1, 80 / 1.1, 120 / 1.1, 90 / 1.1, 200 / 1.1};
  const RatioInterval r = paired_ratio(b, n);
  CHECK(r.estimate == Approx(1 / 1.1));
  CHECK(r.lo == Approx(1 / 1.1));
  CHECK(r.hi == Approx(1 / 1.1));
}
