#include "train/sweep.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "backend/backend.h"
#include "comm/transport.h"
#include "core/error.h"
#include "core/stop.h"
#include "train/device_plan.h"
#include "train/environment.h"
#include "train/trainer.h"

namespace mg {

std::vector<int> resolve_device_counts(const RunConfig& cfg, const LaunchInfo& launch) {
  std::set<int> seen;
  for (int n : cfg.device_counts) {
    if (n <= 0) throw UsageError("--gpus: device counts must be positive (got " + std::to_string(n) + ")");
    if (!seen.insert(n).second) throw UsageError("--gpus: device count " + std::to_string(n) + " is listed twice");
  }
  if (launch.launched()) {
    // One process per device: the launcher fixes the world; a --gpus list may only restate it.
    if (!cfg.device_counts_defaulted && !cfg.device_counts.empty() && !(cfg.device_counts.size() == 1 && cfg.device_counts[0] == launch.world_size) &&
        !(cfg.device_counts.size() == 1 && cfg.device_counts[0] == 1)) {
      std::string list;
      for (int n : cfg.device_counts) list += (list.empty() ? "" : ",") + std::to_string(n);
      throw UsageError("--gpus " + list + " does not match the launcher's world size " +
                       std::to_string(launch.world_size) + " (" + launch.launcher_name() +
                       " starts one process per device; pass --gpus " + std::to_string(launch.world_size) +
                       " or omit it)");
    }
    return {launch.world_size};
  }
  std::vector<int> counts = cfg.device_counts;
  const bool has_one = std::find(counts.begin(), counts.end(), 1) != counts.end();
  if (!has_one && !cfg.no_baseline) counts.insert(counts.begin(), 1);  // efficiency needs the 1-device baseline
  std::stable_sort(counts.begin(), counts.end());
  const int max_n = counts.back();
  if (cfg.device == DeviceKind::Cuda) {
    const int present = cuda_device_count();
    const int usable = cfg.gpu_ids.empty() ? present : static_cast<int>(cfg.gpu_ids.size());
    if (max_n > usable) {
      throw UsageError("--gpus " + std::to_string(max_n) + ": only " + std::to_string(usable) + " GPU(s) " +
                       (cfg.gpu_ids.empty() ? "present" : "listed in --gpu-ids"));
    }
    for (int id : cfg.gpu_ids) {
      if (id < 0 || id >= present)
        throw UsageError("--gpu-ids: GPU " + std::to_string(id) + " does not exist (" + std::to_string(present) +
                         " present)");
    }
  } else {
    const int cores = process_cores(cfg.threads, launch);
    if (max_n > cores) {
      throw UsageError("--devices " + std::to_string(max_n) + ": only " + std::to_string(cores) +
                       " CPU cores, and each CPU replica needs at least one (replicas do not oversubscribe cores)");
    }
  }
  return counts;
}

RunResult run_sweep(const RunConfig& cfg, const LaunchInfo& launch, const SweepHooks& hooks) {
  RunResult result;
  result.config = cfg;
  const std::vector<int> counts = resolve_device_counts(cfg, launch);
  // Parsed at the CLI. No --transport: one entry as the environment is (the user's own NCCL_* are respected and
  // recorded), labelled "default" (not "auto", which the user asks for by name).
  const std::vector<std::optional<Transport>> transports =
      cfg.transports.empty() ? std::vector<std::optional<Transport>>{std::nullopt}
                             : std::vector<std::optional<Transport>>(cfg.transports.begin(), cfg.transports.end());
  int index = 0;
  std::vector<DeviceInfo> devices;
  for (const std::optional<Transport>& transport : transports) {
    const std::string name = transport ? transport_name(*transport) : "default";
    std::unique_ptr<ScopedTransport> scoped;  // sets this entry's NCCL_* before any communicator exists
    if (transport) scoped = std::make_unique<ScopedTransport>(*transport, cfg.device);
    const std::map<std::string, std::string> env = scoped ? scoped->vars() : nccl_environment();
    for (int n : counts) {
      throw_if_stopped();
      const int local = launch.launched() ? 1 : n;
      TrainRequest req;
      req.local_replicas = local;
      req.cpu_core_slots = launch.launched() ? 1 : counts.back();
      req.transport = transport.value_or(Transport::Auto);
      req.job_key = "sweep" + std::to_string(index++);
      req.trace = !cfg.trace_path.empty() && n == counts.back() && &transport == &transports.back();
      req.progress = hooks.progress;
      if (hooks.entry_started) {
        hooks.entry_started(cfg.model + " x" + std::to_string(n) + (name == "default" ? "" : " (" + name + ")"));
      }
      TrainedReplicas entry = train_replicas(cfg, launch, req);
      entry.result.transport = name;
      entry.result.transport_env = env;
      if (devices.empty()) devices = std::move(entry.devices);  // the first entry's: the 1-device baseline's
      result.runs.push_back(std::move(entry.result));
      if (hooks.entry_finished) hooks.entry_finished();
    }
  }
  result.env = capture_environment(cfg.command_line, launch, launch.launched() ? 1 : counts.back());
  result.env.devices = std::move(devices);
  return result;
}

}  // namespace mg
