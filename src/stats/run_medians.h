// Each process run of an entry reduced to one number, the unit `mgbench compare` judges (docs/statistics.md
// says why steps are not).
#pragma once
#include <vector>

#include "result/run_result.h"

namespace mg {

// Median step time of each process run of an entry, split by run_samples (a single run when it is empty).
std::vector<double> run_median_step_times(const DeviceCountResult& r);

// Mean of field over the steps of each process run, split like run_median_step_times.
std::vector<double> run_means(const DeviceCountResult& r, double StepBreakdown::*field);

}  // namespace mg
