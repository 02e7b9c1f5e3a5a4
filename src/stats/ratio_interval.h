// A ratio NEW / BASE of throughputs with its distribution-free interval, as the rank tests' estimators give it.
#pragma once

namespace mg {

struct RatioInterval {
  double estimate = 0;  // exp(Hodges-Lehmann shift): the median over all pairs (b, n) of n / b
  double lo = 0, hi = 0;
  double coverage = 0;  // actual coverage of [lo, hi] (the exact U distribution is discrete)
};

}  // namespace mg
