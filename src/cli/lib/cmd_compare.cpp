// `mgbench compare BASE NEW [--alpha A] [--threshold P%] [--efficiency-threshold POINTS] [--strict]
// [--across-time] [--paired] [--markdown FILE] [--json FILE] [--html FILE]`: BASE and NEW are result files or folders of them
// (docs/compare.md). Exit status 0 when no run regressed, 1 when at least one did, 2 for unusable input (one line
// naming the file or option) and, under --strict, when the comparison cannot vouch for its verdicts.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cli/lib/command.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "report/compare_output.h"
#include "report/html_report.h"
#include "result/compare_result_json.h"
#include "result/result_json.h"
#include "stats/compare.h"

namespace mg {

namespace {

// "5", "5%" or "5.0 %" -> 5.0; the option name goes in the error.
double parse_percent(const std::string& text, const char* option) {
  std::string s = text;
  while (!s.empty() && (s.back() == '%' || s.back() == ' ')) s.pop_back();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size())
    throw UsageError(fmt::format("{} expects a number of percent (e.g. 5 or 5%), got '{}'", option, text));
  if (v < 0) throw UsageError(fmt::format("{} must not be negative, got '{}'", option, text));
  return v;
}

class CompareCommand final : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.description(
        "Compare two results (files or folders of them) and decide regressions. The process run is the unit "
        "(--runs, or several files per side): a change counts when a Mann-Whitney test on the run medians is "
        "significant at --alpha and the throughput ratio moves by more than --threshold; with one run per side "
        "significance cannot be judged and the threshold alone decides (labelled so). Exit 0: no regression, "
        "1: regression, 2: unusable input (or --strict and the noise floor is above the threshold)");
    sub.add_option("base", base_, "Baseline result file, or a folder of them")->required();
    sub.add_option("new", new_, "New result file, or a folder of them")->required();
    sub.add_option("--alpha", opt_.alpha, "Significance level of the U test")->capture_default_str();
    sub.add_option("--threshold", threshold_, "Smallest change of median images/s that counts, in percent")
        ->capture_default_str();
    sub.add_option("--efficiency-threshold", efficiency_threshold_,
                   "Scaling-efficiency drop that counts as a regression, in percentage points")
        ->capture_default_str();
    sub.add_option("--min-samples", opt_.min_samples,
                   "Step samples needed on each side for a verdict (fewer: 'insufficient samples')")
        ->capture_default_str();
    sub.add_flag("--strict", opt_.strict,
                 "Exit 2 with the reason when --threshold is below the smallest slowdown these runs can detect, or "
                 "significance cannot be judged (too few runs)");
    sub.add_flag("--paired", opt_.paired,
                 "Run i of BASE and of NEW were made back to back (interleaved A/B, files sorted by name): test the "
                 "per-pair ratios (Wilcoxon signed-rank), which cancels slow periods of the machine");
    sub.add_flag("--across-time", opt_.across_time,
                 "BASE is a committed baseline from another time (and maybe machine): every output says so");
    sub.add_option("--markdown", markdown_path_, "Also write the report as Markdown (a pull-request comment)");
    sub.add_option("--json", json_path_, "Also write the report as JSON");
    sub.add_option("--html", html_path_, "Also write the report as a self-contained HTML page (ratio plot)");
  }

  int run() override {
    opt_.threshold = parse_percent(threshold_, "--threshold") / 100;
    opt_.efficiency_threshold = parse_percent(efficiency_threshold_, "--efficiency-threshold") / 100;
    if (opt_.min_samples < 2)
      throw UsageError(fmt::format("--min-samples must be at least 2, got {}", opt_.min_samples));
    const std::vector<LoadedResult> base = load_results(base_);
    const std::vector<LoadedResult> next = load_results(new_);
    const CompareReport report = compare_results(base, next, opt_);
    std::fputs(format_compare_table(report).c_str(), stdout);
    std::fflush(stdout);
    if (!markdown_path_.empty()) write_file_atomic(markdown_path_, format_compare_markdown(report));
    const nlohmann::json result = to_json(compare_result(report));
    if (!json_path_.empty()) write_json_atomic(json_path_, result);
    if (!html_path_.empty()) {
      ReportInputs in;
      add_report_json(in, result, json_path_);
      in.compares.back().label = "compare";
      write_html_report(html_path_, in);
    }
    if (!report.strict_failure.empty()) std::fprintf(stderr, "mgbench: %s\n", report.strict_failure.c_str());
    return report.exit_status();
  }

 private:
  std::string base_, new_;
  CompareOptions opt_;
  std::string threshold_ = "5";
  std::string efficiency_threshold_ = "5";
  std::string markdown_path_, json_path_, html_path_;
};

}  // namespace

std::unique_ptr<Command> make_compare_command() { return std::make_unique<CompareCommand>(); }

}  // namespace mg
