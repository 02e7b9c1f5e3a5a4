#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "stats/distributions.h"
#include "stats/noise_floor.h"

using namespace mg;

TEST_CASE("noise floor of paired runs") {
  // NEW is exactly 10% slower in every pair: no spread, so any slowdown is detectable.
  const std::vector<double> b = {100, 150, 80, 120, 90, 200}, n = {100 / 1.1, 150 / 1.1, 80 / 1.1, 120 / 1.1, 90 / 1.1, 200 / 1.1};
  const NoiseFloor f = paired_noise_floor(b, n, 0.05);
  CHECK(f.known);
  CHECK(f.test_can_reject);
  CHECK(f.run_spread == Approx(0).margin(1e-12));
  CHECK(f.min_detectable == Approx(0).margin(1e-12));
  // Five pairs cannot reach p < 0.05 (2/32): no slowdown is detectable.
  CHECK(std::isinf(paired_noise_floor({1, 2, 3, 4, 5}, {1.1, 2, 3.2, 4, 5.1}, 0.05).min_detectable));
}

TEST_CASE("the unpaired noise floor follows its formula") {
  // log spreads: within each side sd of logs; here both sides are {e^-s, 1, e^s}: pooled sd s exactly.
  const double s = 0.05;
  const std::vector<double> side = {std::exp(-s), 1.0, std::exp(s)};
  const NoiseFloor f = noise_floor(side, side, 0.2);
  REQUIRE(f.known);
  CHECK(f.run_spread == Approx(s));
  const double se = s * std::sqrt(2.0 / 3);
  CHECK(f.a_vs_a_band == Approx(std::exp(student_t_quantile(0.975, 4) * se) - 1));
  CHECK(f.test_can_reject);  // 3 vs 3: smallest p 0.1 < alpha 0.2
  CHECK(f.min_detectable ==
        Approx(1 - std::exp(-(student_t_quantile(0.9, 4) + student_t_quantile(0.8, 4)) * se / std::sqrt(3 / M_PI))));
  CHECK_FALSE(noise_floor({1.0}, {1.0}, 0.05).known);
}
