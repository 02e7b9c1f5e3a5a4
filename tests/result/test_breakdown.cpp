#include <catch2/catch.hpp>

#include "result/breakdown.h"
#include "support/result_fixture.h"

using namespace mg;

TEST_CASE("breakdown shares and the parts-add-up invariant") {
  const StepBreakdown b = test::make_step(0.1, 0.2, 0.4, 0.1, 0.15, 0.2);  // total 1.0; 0.15 of backward overlapped
  const StepBreakdown s = breakdown_shares(b);
  CHECK(s.input_wait == Approx(0.1));
  CHECK(s.backward == Approx(0.4));
  CHECK(s.comm_overlapped == Approx(0.15));
  CHECK(s.input_wait + s.forward + s.backward + s.comm_exposed + s.optimizer == Approx(1.0));
  CHECK(breakdown_shares(StepBreakdown{}).forward == 0);
  CHECK(breakdown_relative_gap(b) < 1e-12);  // overlapped time is not added: it lies inside backward

  StepBreakdown off = b;
  off.total = 0.8;  // additive parts sum to 1.0: 25% more than the step time
  CHECK(breakdown_relative_gap(off) == Approx(0.25));
  CHECK(breakdown_relative_gap(StepBreakdown{}) == 0);
  StepBreakdown only_parts;
  only_parts.forward = 0.1;
  CHECK(breakdown_relative_gap(only_parts) == 1);
  CHECK(max_breakdown_relative_gap({b, off, b}) == Approx(0.25));
  CHECK(max_breakdown_relative_gap(test::make_samples(50, 0.1, 0.05, 3)) < 1e-12);
}
