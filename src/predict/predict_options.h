// What `mgbench predict` is asked, as given, and how it merges with the profile into the PredictRequest that
// predict() runs: a setting given wins over the profile's, the profile's over the default. Every rejection is a
// one-line UsageError naming the option.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "predict/prediction.h"
#include "predict/step_profile.h"
#include "result/run_result.h"

namespace mg {

struct PredictOptions {
  std::string profile_path;                    // a 1-device training result
  std::vector<int> gpus = {1, 2, 4, 8};        // device counts
  std::string links;                           // links within a node, a comma list (split_link_list)
  std::optional<int> gpus_per_node;            // unset: every GPU in one node
  std::string inter_node;                      // the link between nodes; "": none
  std::optional<int> nics_per_node;            // unset: one per GPU
  std::optional<double> bucket_mb;             // unset: the profile's, as are the next four
  std::optional<bool> overlap;
  std::optional<std::string> allreduce_dtype;  // fp32 | fp16 | bf16
  std::optional<int> accum_steps;
  std::optional<std::string> allreduce;        // ring | ps | none
  std::optional<double> input_rate;            // images/s per node; unset: as fast as the profile saw
  std::optional<int64_t> batch_size;           // per device; unset: the profile's (its times scale with it)
  std::optional<double> profile_rate;          // images/s of the device predicted for; unset: the profile's
  std::string measured_path;                   // a measured sweep to compare with; "": none
  std::string command_line;
};

// The checks that need no file: device counts, node sizes, --inter-node without --gpus-per-node, the input rate.
void check_predict_options(const PredictOptions& o);

// The request for options that passed check_predict_options: gradient settings from o where given, else from the
// profile's configuration, else the defaults; the wire casts' costs from p (the profile after --profile-rate);
// one interconnect per link. Rejects settings a training run would not take, unknown names or links, and a
// transport=gloo-tcp link where its ring is not what runs (--inter-node, --allreduce ps).
PredictRequest merge_predict_options(const PredictOptions& o, const RunResult& profile, const StepProfile& p);

}  // namespace mg
