#include <catch2/catch.hpp>

#include "stats/distributions.h"

using namespace mg;

TEST_CASE("Student's t quantile against tables") {
  // The t quantile: 2.776 at 4 dof (tables), 1.96 far out.
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776).epsilon(0.01));
  CHECK(student_t_quantile(0.975, 1000) == Approx(1.962).epsilon(0.001));
}
