#include "train/device_plan.h"

#include <algorithm>

#include "backend/gpu_probe.h"
#include "core/error.h"

namespace mg {

DeviceKind resolve_device_kind(std::optional<DeviceKind> asked) {
  if (asked) return *asked;  // an explicit cuda is checked by require_device_present, with the cause
  return resolve_device(std::nullopt, probe_gpus(gather_gpu_facts()));
}

DeviceKind device_kind_option(const std::string& text) {
  if (text.empty() || text == "auto") return resolve_device_kind(std::nullopt);
  DeviceKind k{};
  if (!kDeviceKindNames.find(text == "gpu" ? "cuda" : text, k))
    throw UsageError("--device " + text + " is not one of: auto, " + kDeviceKindNames.list() + " (gpu means cuda)");
  return k;
}

void require_device_present(DeviceKind kind) {
  if (kind == DeviceKind::Cuda) resolve_device(kind, probe_gpus(gather_gpu_facts()));
}

int process_cores(int threads, const LaunchInfo& launch) {
  return threads > 0 ? threads : process_core_share(launch);
}

std::vector<int> default_device_counts(DeviceKind kind, int cores) {
  if (kind == DeviceKind::Cpu) return cores >= 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
  const int gpus = cuda_device_count();
  std::vector<int> counts;
  for (int n = 1; n <= gpus; n *= 2) counts.push_back(n);
  if (counts.empty() || counts.back() != gpus) counts.push_back(gpus);
  return counts;
}

std::string comm_library(DeviceKind kind) { return kind == DeviceKind::Cuda ? "nccl" : "gloo"; }

DevicePlan plan_devices(const DeviceRequest& req, const LaunchInfo& launch) {
  DevicePlan plan;
  plan.kind = req.kind;
  plan.comm_library = comm_library(req.kind);
  if (req.kind == DeviceKind::Cpu) {
    const int slots = std::max({1, req.replicas, req.cpu_core_slots});
    plan.backend.threads = req.threads_per_replica > 0
                               ? req.threads_per_replica
                               : std::max(1, process_cores(req.threads, launch) / slots);
    plan.backend.cpu_conv_algo = req.cpu_conv_algo;
  }
  for (int i = 0; i < req.replicas; ++i) {
    const int slot = launch.local_rank * req.replicas + i;
    if (req.gpu_ids.empty()) {
      plan.ordinals.push_back(slot);
      continue;
    }
    if (slot >= static_cast<int>(req.gpu_ids.size())) {
      throw UsageError("--gpu-ids lists " + std::to_string(req.gpu_ids.size()) + " devices but " +
                       std::to_string(slot + 1) + " are needed");
    }
    plan.ordinals.push_back(req.gpu_ids[static_cast<size_t>(slot)]);
  }
  return plan;
}

}  // namespace mg
