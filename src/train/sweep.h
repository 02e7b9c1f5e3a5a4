// The scaling sweep: every requested device count (the 1-device baseline first) for every requested transport,
// one World each, plus the environment. Raw measurements only; reporting derives the statistics.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "comm/world.h"
#include "result/run_config.h"
#include "result/run_result.h"

namespace mg {

struct SweepHooks {
  std::function<void(const std::string&)> entry_started;  // e.g. "resnet50 x2 (gloo)"
  std::function<void(int, int, double)> progress;         // timed steps done, total, images/s
  std::function<void()> entry_finished;
};

// Device counts to run, in order: validated against the devices present and the launcher's world size.
// Throws UsageError for duplicates, non-positive counts, more devices than exist, or a world-size mismatch.
std::vector<int> resolve_device_counts(const RunConfig& cfg, const LaunchInfo& launch);

RunResult run_sweep(const RunConfig& cfg, const LaunchInfo& launch, const SweepHooks& hooks);

}  // namespace mg
