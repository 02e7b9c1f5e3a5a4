// Arithmetic on a step's breakdown (kBreakdownParts): its parts as shares of the step, and how closely the
// additive parts add up to the step time.
#pragma once
#include <vector>

#include "result/run_result.h"

namespace mg {

// Each breakdown part as a fraction of the step time (total = 1); all 0 when the step time is 0. The additive
// shares sum to 1; comm_overlapped's share is a fraction of the same step, inside backward's.
StepBreakdown breakdown_shares(const StepBreakdown& b);

// The additive parts are meant to add up to the step time (kBreakdownParts). This returns
// |sum(additive parts) - total| / total for one step
// (0 when both are 0, 1 when only total is 0), and the largest such gap over many steps, so the trainer's
// tests and the reporter can hold the measurement to a stated tolerance.
double breakdown_relative_gap(const StepBreakdown& b);
double max_breakdown_relative_gap(const std::vector<StepBreakdown>& steps);

}  // namespace mg
