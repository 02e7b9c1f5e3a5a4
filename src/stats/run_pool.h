// Pooling identical runs of one benchmark, each made in its own process (--runs), into one result whose
// step-time CI reflects run-to-run variation and not only the step noise inside one process.
#pragma once
#include <vector>

#include "result/run_result.h"

namespace mg {

// Every part must hold the same entries (device count and transport, in the same order); otherwise Error.
// Per entry: samples concatenated in part order with run_samples marking each part's share (a part that was
// itself pooled keeps its own boundaries); per-bucket all-reduce times averaged weighted by samples; peak
// memory the max; wall time, overflow steps and skipped images summed; loss and checksums from the last part;
// the parts' process runs listed in part order.
// Environment and config come from the first part. Summaries and scaling are recomputed.
RunResult pool_runs(const std::vector<RunResult>& parts);

}  // namespace mg
