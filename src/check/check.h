// `mgbench check`: does this device compute what mgbench measures correctly? Owns the orchestration of the
// layer, loss, optimizer, collective, staging and training checks (layer_check.h, xent_check.h, adamw_check.h,
// system_check.h) into one CheckReport, and its table. The benchmark runs the part for its own model and
// precision before timing (model_check).
#pragma once
#include <string>
#include <vector>

#include "backend/backend.h"
#include "result/check_report.h"

namespace mg::check {

struct CheckRequest {
  DeviceKind device = DeviceKind::Cpu;
  int ordinal = 0;
  std::string model;                   // "" = every layer kind of the shipped models
  std::vector<Precision> precisions;   // empty = every precision the device supports
  bool collectives = true;             // over every visible device (CPU: two replicas)
  bool staging = true;
  bool training = true;
  bool adamw = true;                   // the AdamW step's row (a benchmark's check: only when it trains with AdamW)
};

// Runs what the request asks; never throws for a failed comparison (that is a failed row). A precision the
// device does not support is a UsageError, as an unknown model is.
CheckReport run_check(const CheckRequest& req);

// The pre-run check of a benchmark: the layer kinds of `model`, its loss and the training steps at `precision`,
// and the AdamW step where `adamw`, on the first device the run uses. Not run (ran = false) when that device is
// absent or cannot run the precision: the trainer refuses such a run with its own usage error.
CheckReport model_check(DeviceKind device, int ordinal, const std::string& model, Precision precision,
                        bool adamw = false);

// A table of the rows: check, case, precision, error, tolerance, result, detail; then a summary line.
std::string format_check_table(const CheckReport& r);

}  // namespace mg::check
