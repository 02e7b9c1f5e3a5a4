#include "result/config_ranges.h"

#include <string>

#include "core/error.h"

namespace mg {

void check_bucket_mb(double bucket_mb) {
  if (!(bucket_mb > 0) || bucket_mb > 65536) throw UsageError("--bucket-mb must be in (0, 65536]");
}

void check_accum_steps(int accum_steps) {
  if (accum_steps < 1 || accum_steps > 4096)
    throw UsageError("--accum-steps " + std::to_string(accum_steps) + " must be between 1 and 4096");
}

void check_batch_size(int64_t batch_size) {
  if (batch_size < 1 || batch_size > 65536)
    throw UsageError("--batch-size " + std::to_string(batch_size) + " must be between 1 and 65536");
}

}  // namespace mg
