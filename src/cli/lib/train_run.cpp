#include "cli/lib/train_run.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/lib/transport_children.h"
#include "comm/world.h"
#include "core/error.h"
#include "report/progress.h"
#include "report/result_json.h"
#include "report/summary.h"
#include "report/table.h"
#include "report/trace.h"
#include "train/sweep.h"

namespace mg {

namespace {

// CUDA transports compared one child process each (NCCL fixes its transport settings per process); the
// children's results are merged into one report here.
int run_transports_in_children(const RunConfig& cfg, const LaunchInfo& launch) {
  if (launch.launcher != "none") {
    throw UsageError("--transport with several entries re-runs mgbench once per entry, which " + launch.launcher +
                     " cannot do: launch once per transport instead");
  }
  const ChildResults children = run_per_transport_children(cfg.transports, /*quiet=*/true);
  if (children.status != 0) return children.status;
  RunResult merged;
  for (const nlohmann::json& part : children.parts) {
    RunResult r = result_from_json(part, "transport child");
    if (merged.runs.empty()) merged = r;
    else merged.runs.insert(merged.runs.end(), r.runs.begin(), r.runs.end());
  }
  merged.config = cfg;
  merged.env.command_line = cfg.command_line;
  std::fputs(format_table(merged).c_str(), stdout);
  if (!cfg.json_path.empty()) write_json_atomic(cfg.json_path, to_json(merged));
  return 0;
}

}  // namespace

int run_training(const RunConfig& cfg) {
  if (!cfg.nccl_algo.empty()) setenv("NCCL_ALGO", cfg.nccl_algo.c_str(), 1);  // read by NCCL at init
  const LaunchInfo launch = detect_launch();
  const bool lead = launch.rank == 0;
  if (cfg.device == DeviceKind::Cuda && cfg.transports.size() > 1) return run_transports_in_children(cfg, launch);

  std::unique_ptr<Progress> progress;
  std::string label;
  SweepHooks hooks;
  if (lead && cfg.progress) {
    hooks.entry_started = [&](const std::string& l) {
      label = l;
      progress = std::make_unique<Progress>(label);
    };
    hooks.progress = [&](int done, int total, double ips) {
      if (progress) progress->update(done, total, ips);
    };
    hooks.entry_finished = [&] {
      if (progress) progress->finish();
    };
  }
  RunResult result = run_sweep(cfg, launch, hooks);
  for (auto& r : result.runs) summarize(r);
  compute_scaling(result.runs);
  if (!lead) return 0;  // rank 0 reports for every rank

  std::fputs(format_table(result).c_str(), stdout);
  std::fflush(stdout);
  if (!cfg.trace_path.empty()) write_trace(cfg.trace_path, result.runs.back());
  if (!cfg.json_path.empty()) write_json_atomic(cfg.json_path, to_json(result));
  return 0;
}

}  // namespace mg
