// Device policy: which kind of device a command runs on, how many replicas it sweeps by default, which ordinal
// each replica drives, how many CPU threads each computes with and which library joins them. `mgbench train`
// (options, sweep, trainer), `mgbench comm` and `mgbench check` all ask here, so they cannot disagree. Cores per
// process are counted in one place, comm/rendezvous/launch.h's process_core_share.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/rendezvous/launch.h"

namespace mg {

// --device auto (nullopt): cuda when a GPU is usable, cpu when none is visible, a UsageError naming the cause when
// one is visible but unusable (backend/gpu_probe.h).
DeviceKind resolve_device_kind(std::optional<DeviceKind> asked);
// --device as every command spells it: auto (or empty), cpu, cuda, or gpu (a command-line alias of cuda, never
// recorded); resolved as above. UsageError listing the choices for anything else.
DeviceKind device_kind_option(const std::string& text);

// Throws UsageError when no device of this kind can run here (cuda without a usable GPU, naming why).
void require_device_present(DeviceKind kind);

// CPU cores this process gives its replicas: --threads when set, else its share of the host.
int process_cores(int threads, const LaunchInfo& launch);

// The device counts swept when --gpus is not given: powers of two up to every GPU present, and all of them; on
// CPU {1, 2} when `cores` hold two replicas (a replica needs a core of its own), else {1}.
std::vector<int> default_device_counts(DeviceKind kind, int cores);

// The collective library that joins replicas of this kind: nccl on cuda, gloo on cpu.
std::string comm_library(DeviceKind kind);

struct DeviceRequest {
  DeviceKind kind = DeviceKind::Cpu;
  int replicas = 1;             // driven by this process
  // CPU: how many replicas the process's cores are divided among (0 = replicas). The sweep passes its largest
  // device count, so a CPU "device" is the same share of cores in every entry.
  int cpu_core_slots = 0;
  std::vector<int> gpu_ids;     // --gpu-ids: device slot k drives gpu_ids[k]; empty = slot k drives ordinal k
  int threads = 0;              // --threads (0 = this process's share of the host)
  int threads_per_replica = 0;  // --threads-per-replica (0 = derived)
  CpuConvAlgo cpu_conv_algo = CpuConvAlgo::Fastest;  // --cpu-conv-algo
};

struct DevicePlan {
  DeviceKind kind = DeviceKind::Cpu;
  std::vector<int> ordinals;   // per local replica; slots continue across the processes of a host (local_rank)
  BackendOptions backend;      // CPU: threads per replica; 0 on cuda
  std::string comm_library;
};

// Throws UsageError when --gpu-ids lists fewer devices than the slots need.
DevicePlan plan_devices(const DeviceRequest& req, const LaunchInfo& launch);

}  // namespace mg
