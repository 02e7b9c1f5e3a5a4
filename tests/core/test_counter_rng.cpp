#include <catch2/catch.hpp>

#include <cstdint>
#include <set>

#include "core/counter_rng.h"

using namespace mg;

TEST_CASE("counter-based uniforms depend only on (seed, index), lie in 0 <= u < 1 and are spread evenly") {
  CHECK(counter_uniform(7, 123) == counter_uniform(7, 123));
  CHECK(counter_uniform(7, 123) != counter_uniform(8, 123));
  CHECK(counter_uniform(7, 123) != counter_uniform(7, 124));
  int bins[10] = {};
  std::set<float> distinct;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const float u = counter_uniform(42, static_cast<uint64_t>(i));
    REQUIRE(u >= 0.0f);
    REQUIRE(u < 1.0f);
    ++bins[static_cast<int>(u * 10)];
    distinct.insert(u);
  }
  // A fixed seed makes this deterministic; the bounds are 6 standard deviations of a binomial(n, 0.1) count.
  for (int b : bins) CHECK(std::abs(b - n / 10) < 600);
  CHECK(distinct.size() > static_cast<size_t>(n * 0.99));
}
