#include <catch2/catch.hpp>

#include "stats/mann_whitney.h"

using namespace mg;

// Reference values: scipy 1.10.1, scipy.stats.mannwhitneyu(x, y, alternative="two-sided") with the default
// method="auto" (exact when min(len) <= 8 and no ties, else normal approximation with tie and continuity
// correction), printed with repr() on Debian 12's python3-scipy.

TEST_CASE("U test, exact, complete separation") {
  const auto r = mann_whitney_u({1.1, 2.3, 3.5, 4.2, 5.9}, {6.1, 7.4, 8.2, 9.9, 10.5});
  CHECK(r.exact);
  CHECK(r.u == 0);
  CHECK(r.p_value == Approx(0.007936507936507936).epsilon(1e-12));  // 2 / C(10, 5)
}

TEST_CASE("U test, exact, overlapping samples of different sizes") {
  const auto r = mann_whitney_u({0.101, 0.107, 0.099, 0.112, 0.104, 0.108},
                                {0.105, 0.115, 0.111, 0.118, 0.109, 0.12, 0.113});
  CHECK(r.exact);
  CHECK(r.u == 5);
  CHECK(r.p_value == Approx(0.022144522144522144).epsilon(1e-12));

  const auto s = mann_whitney_u({3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.6, 5.3},
                                {5.8, 9.7, 9.3, 2.4, 3.8, 4.6, 2.7, 7.5, 8.0, 3.4, 6.2, 8.9});
  CHECK(s.exact);
  CHECK(s.u == 27);
  CHECK(s.p_value == Approx(0.11526553941414623).epsilon(1e-12));
}

TEST_CASE("U test, ties use the normal approximation with tie correction") {
  const auto r = mann_whitney_u({1, 2, 2, 3, 4, 5, 5, 6}, {2, 3, 5, 5, 7, 8, 8, 9});
  CHECK_FALSE(r.exact);
  CHECK(r.u == 14.5);
  CHECK(r.p_value == Approx(0.07080292269436897).epsilon(1e-9));
}

TEST_CASE("U test, larger samples use the normal approximation") {
  const std::vector<double> x = {0.0, 0.47, 0.6799999999999999, 0.6299999999999997, 1.3199999999999998, 0.75,
                                 0.9199999999999986, 0.8299999999999991, 1.4799999999999998, 1.8699999999999988,
                                 1.0, 1.8700000000000032, 1.4799999999999942, 1.829999999999994,
                                 1.9199999999999962, 1.75, 2.319999999999999, 2.630000000000007,
                                 2.6799999999999953, 2.4699999999999935};
  const std::vector<double> y = {
      0.3, 0.93, 0.6200000000000001, 1.3700000000000006, 1.1800000000000004, 1.0500000000000018,
      0.980000000000002, 1.9699999999999989, 2.020000000000002, 2.130000000000007, 1.3000000000000071,
      1.5299999999999956, 1.8200000000000076, 2.1700000000000075, 2.5799999999999956, 2.05, 2.580000000000007,
      2.1699999999999875, 2.8200000000000274, 2.5300000000000127, 2.3000000000000282, 3.130000000000018,
      3.019999999999982, 2.9700000000000046, 2.9800000000000297};
  const auto r = mann_whitney_u(x, y);
  CHECK_FALSE(r.exact);
  CHECK(r.u == 161);
  CHECK(r.p_value == Approx(0.04322984705743232).epsilon(1e-9));
}

TEST_CASE("exact U distribution: symmetric, sums to one, matches a published table") {
  // Mann & Whitney (1947) table / direct enumeration: m = n = 3, P(U <= 0) = 1/20, P(U <= 1) = 2/20,
  // P(U <= 2) = 4/20; by symmetry P(U >= 9 - k) = P(U <= k).
  CHECK(mann_whitney_exact_sf(3, 3, 9) == Approx(1.0 / 20));
  CHECK(mann_whitney_exact_sf(3, 3, 8) == Approx(2.0 / 20));
  CHECK(mann_whitney_exact_sf(3, 3, 7) == Approx(4.0 / 20));
  CHECK(mann_whitney_exact_sf(3, 3, 0) == 1.0);
  CHECK(mann_whitney_exact_sf(3, 3, 10) == 0.0);
  // m = 4, n = 6: C(10, 4) = 210 arrangements; U = 24 only one way.
  CHECK(mann_whitney_exact_sf(4, 6, 24) == Approx(1.0 / 210));
  CHECK(mann_whitney_exact_sf(6, 4, 24) == Approx(1.0 / 210));
  // Symmetry around m n / 2 for a larger pair.
  CHECK(mann_whitney_exact_sf(8, 30, 150) == Approx(1 - mann_whitney_exact_sf(8, 30, 240 - 150 + 1)));
}

TEST_CASE("U test edge cases") {
  CHECK(mann_whitney_u({}, {1, 2}).p_value == 1);
  const auto same = mann_whitney_u({1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(same.p_value == 1);
  const auto ident = mann_whitney_u({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  CHECK(ident.p_value == Approx(1.0));
}

TEST_CASE("Mann-Whitney: smallest reachable two-sided p-value") {
  CHECK(smallest_two_sided_p(3, 3) == Approx(0.1));
  CHECK(smallest_two_sided_p(5, 5) == Approx(2.0 / 252));
  CHECK(smallest_two_sided_p(1, 10) == Approx(2.0 / 11));
}

TEST_CASE("Hodges-Lehmann ratio and Moses interval") {
  // log differences log(n/b) of base {1, 2} and next {2, 4}: {log 1, log 2, log 2, log 4}: median log 2.
  CHECK(hodges_lehmann_ratio({1, 2}, {2, 4}).estimate == Approx(2.0));
  // 5 vs 5: P(U <= 2) = 4/252 <= 2.5% < P(U <= 3) = 7/252 (the tabled critical value 2), so the interval is
  // [D_(3), D_(23)] of the 25 sorted differences, covering 1 - 8/252.
  const std::vector<double> b = {1.0, 1.1, 1.2, 1.3, 1.4}, n = {1.5, 1.7, 1.9, 2.1, 2.3};
  std::vector<double> d;
  for (double x : b)
    for (double y : n) d.push_back(std::log(y / x));
  std::sort(d.begin(), d.end());
  const RatioInterval r = hodges_lehmann_ratio(b, n);
  CHECK(r.lo == Approx(std::exp(d[2])));
  CHECK(r.hi == Approx(std::exp(d[22])));
  CHECK(r.estimate == Approx(std::exp(d[12])));
  CHECK(r.coverage == Approx(1 - 8.0 / 252));
  // 2 vs 2: no pair of order statistics reaches 95%; the full range, with the coverage it has.
  const RatioInterval few = hodges_lehmann_ratio({1, 2}, {3, 4});
  CHECK(few.lo == Approx(1.5));
  CHECK(few.hi == Approx(4.0));
  CHECK(few.coverage == Approx(1 - 2.0 / 6));
}
