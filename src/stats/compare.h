// `mgbench compare`: decides, per pair of runs that measure the same thing, whether NEW is slower or faster than
// BASE. The unit of evidence is the process run (--runs, or several result files per side), not the step
// (docs/statistics.md says why). A verdict needs the run medians to differ by an exact
// Mann-Whitney test at alpha AND the throughput ratio to move by more than the threshold, so noise alone cannot
// fail a CI job and a real but negligible change does not either. With too few runs to test, the verdict rests on
// the threshold alone and every output says so. The report also states its own noise floor (stats/noise_floor.h).
#pragma once
#include <string>
#include <vector>

#include "result/run_result.h"
#include "stats/noise_floor.h"
#include "stats/ratio_interval.h"

namespace mg {

struct CompareOptions {
  double alpha = 0.05;                 // U-test significance level
  double threshold = 0.05;             // relative change of median images/s (0.05 = 5%)
  double efficiency_threshold = 0.05;  // absolute drop of scaling efficiency (0.05 = 5 points)
  int min_samples = 5;                 // step samples per side; fewer -> "insufficient samples", no verdict
  bool strict = false;       // exit 2 when the noise floor is above the threshold or significance is not judged
  bool across_time = false;  // BASE is a committed baseline: measured at another time, maybe another machine
  bool paired = false;  // run i of BASE and NEW made back to back (checked, stats/alternation.h): signed-rank test
};

enum class Verdict { NoChange, Regression, Improvement, InsufficientSamples };
const char* verdict_name(Verdict v);  // "no change" | "regression" | "improvement" | "insufficient samples"

// What makes two runs comparable. mode separates training from --forward-only and --input-only runs, and the
// data source distinguishes device- from host-generated synthetic data, since each measures different work.
struct RunKey {
  // What pairs two runs: the run description's compare_key fields (result/run_config_fields.h), the entry's
  // transport and device count. The names below are shown, derived from the same fields.
  std::string identity;
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
  std::string file;                  // the files this side's runs came from, ", "-joined
  int64_t samples = 0;
  int64_t runs = 0;                  // process runs behind this side
  std::vector<double> run_ips;       // global_batch / median step time of each run
  double inject_slowdown = 0;        // --inject-slowdown the side ran with (calibration)
  int threads_per_replica = 0;
  int64_t batch_per_device = 0;
  int64_t tokens_per_sample = 0;        // a language model's sequence length (its samples are sequences); 0: images
  double median_ips = 0;                // global_batch / median step time
  double ips_ci_lo = 0, ips_ci_hi = 0;  // from the 95% CI of the median step time
  double step_median_s = 0, step_ci_lo_s = 0, step_ci_hi_s = 0;
  double scaling_efficiency = 0;  // 0 = no 1-device baseline in that result
  double comm_exposed_s = 0;      // mean per step
};

struct PairComparison {
  RunKey key;
  SideSummary base, next;
  double ratio = 0;            // NEW / BASE throughput: Hodges-Lehmann over the run medians (change.estimate)
  RatioInterval change;        // with its distribution-free 95% interval
  bool paired = false;               // judged as pairs of runs (CompareOptions::paired)
  bool significance_judged = false;  // both sides have enough runs for the test to reach alpha
  std::string significance_note;     // why not, when not
  double p_value = -1;      // U test on run medians; -1 when not computed (too few runs or samples)
  bool exact = false;       // exact U distribution (else normal approximation)
  Verdict verdict = Verdict::NoChange;
  NoiseFloor noise;         // what this pair's run counts can detect
  // The method compare used before runs were the unit: a U test over all pooled step times. Kept only as a
  // labelled diagnostic (JSON), so the difference can be shown on the same data; never used for the verdict.
  double per_step_p = -1;
  Verdict per_step_verdict = Verdict::NoChange;
  bool efficiency_drop = false;      // base - next efficiency > efficiency_threshold (counts as a regression)
  bool comm_exposed_growth = false;  // significant growth by more than threshold x base step time (a hint)
  std::vector<std::string> notes;    // e.g. different batch per device
};

struct CompareReport {
  CompareOptions options;
  std::vector<std::string> base_files, new_files;
  std::vector<PairComparison> pairs;  // ordered by key
  std::vector<std::pair<RunKey, std::string>> only_base, only_new;  // key and the file it came from
  std::vector<std::string> warnings;        // environment mismatches, one line each
  std::vector<std::string> noise_warnings;  // threshold below the noise floor, significance not judged
  std::string strict_failure;               // under --strict: why the gate cannot vouch for its verdicts
  int count(Verdict v) const;
  bool regression() const;  // any regression verdict or efficiency drop
  int exit_status() const { return !strict_failure.empty() ? 2 : regression() ? 1 : 0; }
};

// Pairs runs by RunKey and judges each. The same key in several files of one side pools them as more runs.
// UsageError (nothing judged) when runs that are pooled or paired were made with different presets (model
// settings, batch, steps, warm-up, repeats, threads) or different batches per device, or, with paired, when
// the files' recorded process runs show that BASE and NEW did not alternate.
CompareReport compare_results(const std::vector<LoadedResult>& base, const std::vector<LoadedResult>& next,
                              const CompareOptions& opt);

}  // namespace mg
