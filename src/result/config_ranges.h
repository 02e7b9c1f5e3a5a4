// The ranges a training run accepts for the settings predict also takes: one check for both, so predict answers
// only for settings a run can use. Each rejection is a UsageError that names the option.
#pragma once
#include <cstdint>

namespace mg {

void check_bucket_mb(double bucket_mb);
void check_accum_steps(int accum_steps);
void check_batch_size(int64_t batch_size);  // per device

}  // namespace mg
