#include "cli/lib/train_run.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "check/check.h"
#include "comm/rendezvous/child_runs.h"
#include "comm/world.h"
#include "core/error.h"
#include "models/registry.h"
#include "report/html_report.h"
#include "report/layer_times_table.h"
#include "report/progress.h"
#include "report/table.h"
#include "report/trace.h"
#include "result/result_json.h"
#include "stats/run_pool.h"
#include "stats/summary.h"
#include "train/sweep.h"

namespace mg {

namespace {

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// with_trace: false where a child process already wrote the --trace (results read back from JSON carry none).
void report(const RunResult& result, const RunConfig& cfg, bool with_trace, const std::string& html_path) {
  std::fputs(format_table(result).c_str(), stdout);
  std::fputs(format_layer_times(result).c_str(), stdout);
  std::fflush(stdout);
  if (with_trace && !cfg.trace_path.empty()) write_trace(cfg.trace_path, result.runs.back());
  if (!cfg.json_path.empty()) write_json_atomic(cfg.json_path, to_json(result));
  if (!html_path.empty()) {
    ReportInputs in;
    in.results.push_back({cfg.model, cfg.json_path, result});
    write_html_report(html_path, in);
  }
}

// CUDA transports compared one child process each (NCCL fixes its transport settings per process); the
// children's results are merged into one report here.
int run_transports_in_children(const RunConfig& cfg, const LaunchInfo& launch, const std::string& html_path) {
  refuse_children_under_launcher(launch, "--transport with several entries");
  std::vector<std::vector<std::string>> extra;
  for (Transport t : cfg.transports) extra.push_back({"--transport", transport_name(t)});
  const ChildResults children = run_children(extra, {"--transport", "--html"}, /*quiet=*/true);
  if (children.status != 0) return children.status;
  RunResult merged;
  for (const nlohmann::json& part : children.parts) {
    RunResult r = result_from_json(part, "transport child");
    if (merged.runs.empty()) {
      merged = r;
    } else {
      merged.runs.insert(merged.runs.end(), r.runs.begin(), r.runs.end());
      merged.process_runs.insert(merged.process_runs.end(), r.process_runs.begin(), r.process_runs.end());
    }
  }
  merged.config = cfg;
  merged.env.command_line = cfg.command_line;
  report(merged, cfg, /*with_trace=*/false, html_path);
  return 0;
}

// --progress: on stderr whatever it is, for a log that follows the run; otherwise on stdout when it is a terminal.
// The rate is labelled as the table labels it: images, or a language model's sequences.
std::unique_ptr<Progress> make_progress(const std::string& label, const std::string& model, bool always) {
  auto p = always ? std::make_unique<Progress>(label, stderr, true) : std::make_unique<Progress>(label);
  p->set_rate_label(rate_unit(build_model(model).tokens ? 1 : 0).samples_short);
  return p;
}

// --runs P: the whole benchmark P times, each in a fresh process (docs/statistics.md: only separate processes
// show how much a re-run moves), pooled into one result whose CI comes from the runs' medians. The first run
// writes the --trace.
int run_pooled_in_children(const RunConfig& cfg, const LaunchInfo& launch, const std::string& html_path,
                           bool progress_always) {
  refuse_children_under_launcher(launch, "--runs");
  std::vector<std::vector<std::string>> extra;
  for (int i = 0; i < cfg.runs; ++i) extra.push_back({"--runs", "1", "--trace", i == 0 ? cfg.trace_path : ""});
  std::unique_ptr<Progress> progress;
  if (cfg.progress) {
    progress = make_progress(cfg.model, cfg.model, progress_always);
    progress->set_unit("run");
  }
  const auto done = [&](size_t i, const nlohmann::json& part) {
    // Throughput of the run's largest device count, as the step progress shows it.
    const double ips = part.value("runs", nlohmann::json::array()).empty()
                           ? 0
                           : part["runs"].back().value("images_per_sec", 0.0);
    if (progress) progress->update(static_cast<int64_t>(i + 1), cfg.runs, ips);
  };
  const ChildResults children = run_children(extra, {"--runs", "--trace", "--html"}, /*quiet=*/true, done);
  if (progress) progress->finish();
  if (children.status != 0) return children.status;
  std::vector<RunResult> parts;
  for (size_t i = 0; i < children.parts.size(); ++i)
    parts.push_back(result_from_json(children.parts[i], fmt::format("run {}", i + 1)));
  RunResult pooled = pool_runs(parts);
  pooled.config = cfg;
  pooled.env.command_line = cfg.command_line;
  report(pooled, cfg, /*with_trace=*/false, html_path);
  return 0;
}

}  // namespace

int run_training(const RunConfig& cfg, const std::string& html_path, bool progress_always) {
  const double started = unix_now_s();
  if (cfg.nccl_algo) setenv("NCCL_ALGO", kNcclAlgoNames.name(*cfg.nccl_algo), 1);  // read by NCCL at init
  const LaunchInfo launch = detect_launch();
  const bool lead = launch.rank == 0;
  if (cfg.runs > 1) return run_pooled_in_children(cfg, launch, html_path, progress_always);
  if (cfg.device == DeviceKind::Cuda && cfg.transports.size() > 1) return run_transports_in_children(cfg, launch, html_path);

  std::unique_ptr<Progress> progress;
  std::string label;
  SweepHooks hooks;
  if (lead && cfg.progress) {
    hooks.entry_started = [&](const std::string& l) {
      label = l;
      progress = make_progress(label, cfg.model, progress_always);
    };
    hooks.progress = [&](int done, int total, double ips) {
      if (progress) progress->update(done, total, ips);
    };
    hooks.entry_finished = [&] {
      if (progress) progress->finish();
    };
  }
  CheckReport checked;
  if (cfg.check && !cfg.input_only) {
    // Seconds, before anything is timed: a figure from a device that computes the model wrongly is worthless.
    const int ordinal = cfg.device == DeviceKind::Cuda && !cfg.gpu_ids.empty() ? cfg.gpu_ids[0] : 0;
    checked = check::model_check(cfg.device, ordinal, cfg.model, cfg.precision, cfg.optimizer == Optimizer::AdamW);
    if (checked.ran && !checked.passed()) {
      std::fputs(check::format_check_table(checked).c_str(), stderr);
      throw Error(fmt::format("the correctness check of {} at {} failed on {} (table above); `mgbench check` runs the "
                              "full check, --no-check skips it",
                              cfg.model, precision_name(cfg.precision), checked.device));
    }
  }
  RunResult result = run_sweep(cfg, launch, hooks);
  result.check = checked;
  for (auto& r : result.runs) summarize(r);
  compute_scaling(result.runs);
  if (!lead) return 0;  // rank 0 reports for every rank

  result.process_runs = {{started, unix_now_s()}};
  report(result, cfg, /*with_trace=*/true, html_path);
  return 0;
}

}  // namespace mg
