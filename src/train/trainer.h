// Trains one entry of the sweep: N data-parallel replicas (threads of this process, and processes under a
// launcher), warm-up excluded, --steps timed --repeat times, and returns the raw measurements (summary
// statistics are computed by src/stats/summary.h).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "comm/rendezvous/launch.h"
#include "result/run_config.h"
#include "result/run_result.h"

namespace mg {

struct TrainRequest {
  int local_replicas = 1;          // replicas driven by this process
  // CPU: how many replicas the process's cores are divided among (device_plan.h). 0 = local_replicas.
  int cpu_core_slots = 0;
  Transport transport = Transport::Auto;  // how the communicators join the replicas (comm/transport.h)
  std::string job_key = "run0";    // distinct per sweep entry
  bool trace = false;
  // Progress of the timed steps (called on rank 0's first replica only): done, total, images/s so far.
  std::function<void(int, int, double)> progress;
};

struct TrainedReplicas {
  DeviceCountResult result;          // transport and transport_env are the sweep's to set
  std::vector<DeviceInfo> devices;   // this process's devices, as they described themselves
};

TrainedReplicas train_replicas(const RunConfig& cfg, const LaunchInfo& launch, const TrainRequest& req);

}  // namespace mg
