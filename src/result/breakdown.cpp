#include "result/breakdown.h"

#include <algorithm>
#include <cmath>

namespace mg {

StepBreakdown breakdown_shares(const StepBreakdown& b) {
  StepBreakdown s;
  if (b.total <= 0) return s;
  for (const BreakdownPart& p : kBreakdownParts) s.*p.field = b.*p.field / b.total;
  s.total = 1;
  return s;
}

double breakdown_relative_gap(const StepBreakdown& b) {
  double parts = 0;
  for (const BreakdownPart& p : kBreakdownParts)
    if (p.additive) parts += b.*p.field;
  const double gap = std::fabs(parts - b.total);
  if (b.total == 0) return gap == 0 ? 0 : 1;
  return gap / std::fabs(b.total);
}

double max_breakdown_relative_gap(const std::vector<StepBreakdown>& steps) {
  double worst = 0;
  for (const StepBreakdown& s : steps) worst = std::max(worst, breakdown_relative_gap(s));
  return worst;
}

}  // namespace mg
