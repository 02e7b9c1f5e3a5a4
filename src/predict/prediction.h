// `mgbench predict` as data: a 1-device profile, device counts and interconnects in; a RunResult of kind
// "prediction" out, one entry per (link, device count) with the same fields a measured sweep has (no samples),
// so the table, compare and the HTML report read it like any result. Also: measured entries matched to
// predicted ones with the error of each.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "predict/interconnect.h"
#include "predict/schedule.h"
#include "predict/step_profile.h"
#include "result/run_result.h"

namespace mg {

struct PredictRequest {
  std::vector<int> gpus;                  // device counts
  std::vector<Interconnect> interconnects;
  StepOptions step;
  std::optional<DType> allreduce_dtype;   // as --allreduce-dtype (none = fp32 gradients)
  std::string profile_path;
  std::string command_line;
};

// The casts a 16-bit wire adds, from the profile: sets o's cast costs for o.wire. Returns a one-line note when
// the wire is 16-bit and the profile has no figure for it (an older profile): the casts are then predicted as
// free, and the caller says so (predict() records the same note in the result).
std::string apply_wire_cast_costs(StepOptions& o, const StepProfile& p);

// profile: the result step_profile_from accepted; its environment and configuration are carried over (the
// configuration with this request's sweep and gradient options), so a prediction says what it was made from.
// The wire casts' costs are taken from p (apply_wire_cast_costs), whatever req.step holds.
RunResult predict(const RunResult& profile, const StepProfile& p, const PredictRequest& req);

struct MeasuredMatch {
  int devices = 0;
  std::string link;           // the prediction entry's transport
  double predicted = 0, measured = 0;  // images/s
  double error = 0;           // (predicted - measured) / measured
};
// Every prediction entry with a measured entry of the same device count (devices > 1, or the 1-device entry).
std::vector<MeasuredMatch> match_measured(const RunResult& prediction, const RunResult& measured);

}  // namespace mg
