// What `mgbench compare` decided, as its --json file holds it: the options, each side's files, one entry per
// pair of runs (both sides' figures, the ratio, the test and the verdict), runs on one side only, warnings and
// the exit status. Produced from a CompareReport (report/compare_output), consumed by report.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mg {

struct CompareResult {
  struct Options {
    double alpha = 0;
    double threshold = 0;             // relative change of median throughput (0.05 = 5%)
    double efficiency_threshold = 0;  // absolute drop of scaling efficiency (0.05 = 5 points)
    int min_samples = 0;
    bool strict = false;
    bool across_time = false;
    bool paired = false;
  };

  // What paired two runs, by name; label joins them ("resnet50 fp32 cuda train synthetic-device nccl x4").
  struct Key {
    std::string model, device, precision, mode, data, transport;
    int devices = 0;
    std::string label;
  };

  // One side of a pair. Rates count samples (images, or a language model's sequences) per second.
  struct Side {
    std::string file;  // the files behind this side, ", "-joined
    int64_t samples = 0;
    int64_t runs = 0;
    std::vector<double> run_images_per_sec;  // one per process run, from its median step time
    int threads_per_replica = 0;
    double inject_slowdown = 0;
    int64_t batch_per_device = 0;
    int64_t tokens_per_sample = 0;  // a language model's sequence length: its rates count sequences; 0: images
    double median_images_per_sec = 0;
    double images_per_sec_ci95_lo = 0, images_per_sec_ci95_hi = 0;
    double step_time_median_s = 0;
    double step_time_ci95_lo_s = 0, step_time_ci95_hi_s = 0;
    double scaling_efficiency = 0;
    double comm_exposed_s = 0;
  };

  struct Noise {
    bool known = false;
    double run_spread = 0;
    double a_vs_a_band = 0;
    std::optional<double> min_detectable_slowdown;  // none: the test cannot reject at these run counts
    bool test_can_reject = false;
  };

  // The pooled-steps U test compare used before runs were the unit; shown, never the verdict.
  struct PerStepDiagnostic {
    std::string note;
    std::optional<double> p_value;
    std::string verdict;
  };

  struct Pair {
    Key key;
    Side base, next;
    double ratio = 0;
    double ratio_ci95_lo = 0, ratio_ci95_hi = 0;
    double ratio_ci_coverage = 0;  // 0: no interval of the ratio
    std::string method;
    bool significance_judged = false;
    std::string significance_note;
    std::optional<double> p_value;  // none when significance was not tested
    bool exact = false;
    std::string verdict;  // "no change" | "regression" | "improvement" | "insufficient samples"
    Noise noise;
    PerStepDiagnostic per_step_diagnostic;
    bool efficiency_drop = false;
    bool comm_exposed_growth = false;
    std::vector<std::string> notes;
  };

  struct OneSided {
    Key key;
    std::string file;
  };

  Options options;
  std::vector<std::string> base_files, new_files;
  std::vector<Pair> pairs;
  std::vector<OneSided> only_base, only_new;
  std::vector<std::string> warnings, noise_warnings;
  std::string strict_failure;
  bool regression = false;
  int exit_status = 0;
};

}  // namespace mg
