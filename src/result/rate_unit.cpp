#include "result/rate_unit.h"

#include <string_view>

namespace mg {

RateUnit rate_unit(int64_t tokens_per_sample) {
  if (tokens_per_sample <= 0) return {};
  return {static_cast<double>(tokens_per_sample), "tokens/s", "tok/s/dev", "sequences/s", "seq/s"};
}

RateUnit rate_unit(const DeviceCountResult& r) { return rate_unit(r.tokens_per_sample); }

RateUnit common_rate_unit(const std::vector<RateUnit>& units) {
  for (const RateUnit& u : units)
    if (std::string_view(u.samples) != units.front().samples)
      return {1, "images or tokens/s", "img|tok/s/dev", "images or sequences/s", "img|seq/s"};
  return units.empty() ? RateUnit{} : units.front();
}

}  // namespace mg
