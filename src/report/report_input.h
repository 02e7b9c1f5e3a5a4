// What `mgbench report` reads: training results, predictions (the same result type, kind "prediction"),
// `mgbench comm --json` output and `mgbench compare --json` output, recognised by their contents and
// labelled for the page. Each is read through its typed reader (src/result/).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/comm_result.h"
#include "result/compare_result.h"
#include "result/run_result.h"

namespace mg {

struct ResultInput {
  std::string label, path;
  RunResult result;
};

struct CommInput {
  std::string label, path;
  CommResult result;
};

// A pair as the comparison plot draws it.
struct ComparePair {
  std::string label, verdict;
  double ratio = 0;
  double lo = 0, hi = 0;            // interval of the ratio (0, 0 when neither the file nor the sides give one)
  bool interval_from_sides = false;  // derived from the two sides' throughput intervals, not from the file
  bool regression = false;           // verdict regression or efficiency drop
  double base_ips = 0, new_ips = 0;  // samples/s: images, or a language model's sequences
  std::string notes;
  int64_t tokens_per_sample = 0;  // a language model's sequence length; 0: an image model
};

struct CompareInput {
  std::string label, path;
  CompareResult result;
  std::vector<ComparePair> pairs;  // result.pairs, as drawn
};

struct ReportInputs {
  std::vector<ResultInput> results;
  std::vector<CommInput> comms;
  std::vector<CompareInput> compares;
  bool empty() const { return results.empty() && comms.empty() && compares.empty(); }
};

// One file into `in`, by content: a result (schema_version + runs), comm output (tool "mgbench comm") or
// compare output (compare_schema_version). UsageError naming the file for anything else.
void add_report_json(ReportInputs& in, const nlohmann::json& j, const std::string& path);

// Every path, in order (a folder: the *.json files directly inside it, by name); labels are the file names
// without ".json" (with the folder when two names clash). UsageError for an empty list, a folder without
// .json files, or a file that is none of the above.
ReportInputs load_report_inputs(const std::vector<std::string>& paths);

// One compared pair as drawn: the ratio and its interval (ratio_ci95); without a usable one, the interval from the
// sides' throughput intervals (new lo / base hi .. new hi / base lo, conservative).
ComparePair compare_pair_view(const CompareResult::Pair& p);

}  // namespace mg
