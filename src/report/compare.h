// `mgbench compare`: decides, per pair of runs that measure the same thing, whether NEW is slower or faster than
// BASE. A verdict is a statistical claim: the step-time samples must differ by a Mann-Whitney U test at alpha
// AND the median throughput must move by more than the threshold, so noise alone cannot fail a CI job and a
// real but negligible change does not either.
#pragma once
#include <string>
#include <vector>

#include "result/run_result.h"

namespace mg {

struct CompareOptions {
  double alpha = 0.05;                 // U-test significance level
  double threshold = 0.05;             // relative change of median images/s (0.05 = 5%)
  double efficiency_threshold = 0.05;  // absolute drop of scaling efficiency (0.05 = 5 points)
  int min_samples = 5;                 // per side; fewer -> "insufficient samples", no verdict
};

enum class Verdict { NoChange, Regression, Improvement, InsufficientSamples };
const char* verdict_name(Verdict v);  // "no change" | "regression" | "improvement" | "insufficient samples"

// What makes two runs comparable. mode separates training from --forward-only and --input-only runs, and the
// data source distinguishes device- from host-generated synthetic data, since each measures different work.
struct RunKey {
  std::string model, device, precision, mode, data, transport;
  int devices = 0;
  std::string label() const;  // "resnet50 fp32 cuda train synthetic-device nccl x4"
  bool operator<(const RunKey& o) const;
  bool operator==(const RunKey& o) const;
};
RunKey run_key(const RunConfig& c, const DeviceCountResult& r);

struct LoadedResult {
  std::string path;
  RunResult result;
};
// A result file, or every *.json file in a folder (sorted by name). UsageError naming the path for a missing
// path, an empty folder, unreadable or malformed JSON, or another schema_version.
std::vector<LoadedResult> load_results(const std::string& file_or_dir);

struct SideSummary {
  std::string file;
  int64_t samples = 0;
  int64_t batch_per_device = 0;
  double median_ips = 0;                // global_batch / median step time
  double ips_ci_lo = 0, ips_ci_hi = 0;  // from the 95% CI of the median step time
  double step_median_s = 0, step_ci_lo_s = 0, step_ci_hi_s = 0;
  double scaling_efficiency = 0;  // 0 = no 1-device baseline in that result
  double comm_exposed_s = 0;      // mean per step
};

struct PairComparison {
  RunKey key;
  SideSummary base, next;
  double ratio = 0;         // next.median_ips / base.median_ips
  double p_value = -1;      // U-test on step times; -1 when not computed (insufficient samples)
  bool exact = false;       // exact U distribution (else normal approximation)
  Verdict verdict = Verdict::NoChange;
  bool efficiency_drop = false;      // base - next efficiency > efficiency_threshold (counts as a regression)
  bool comm_exposed_growth = false;  // significant growth by more than threshold x base step time (a hint)
  std::vector<std::string> notes;    // e.g. different batch per device
};

struct CompareReport {
  CompareOptions options;
  std::vector<std::string> base_files, new_files;
  std::vector<PairComparison> pairs;  // ordered by key
  std::vector<std::pair<RunKey, std::string>> only_base, only_new;  // key and the file it came from
  std::vector<std::string> warnings;  // environment mismatches, one line each
  int count(Verdict v) const;
  bool regression() const;  // any regression verdict or efficiency drop
  int exit_status() const { return regression() ? 1 : 0; }
};

// Pairs runs by RunKey (UsageError when one side holds the same key twice, naming both files) and judges each.
CompareReport compare_results(const std::vector<LoadedResult>& base, const std::vector<LoadedResult>& next,
                              const CompareOptions& opt);

}  // namespace mg
