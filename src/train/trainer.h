// Trains one entry of the sweep: N data-parallel replicas (threads of this process, and processes under a
// launcher), warm-up excluded, --steps timed --repeat times, and returns the raw measurements (summary
// statistics are computed by src/report/summary).
#pragma once
#include <functional>
#include <map>
#include <string>

#include "comm/world.h"
#include "train/run_config.h"
#include "train/run_result.h"

namespace mg {

struct TrainRequest {
  int local_replicas = 1;          // replicas driven by this process
  std::string transport = "default";
  std::map<std::string, std::string> transport_env;
  std::string job_key = "run0";    // distinct per sweep entry
  bool trace = false;
  // Progress of the timed steps (called on rank 0's first replica only): done, total, images/s so far.
  std::function<void(int, int, double)> progress;
  std::vector<DeviceInfo>* devices_out = nullptr;  // when set, receives the local devices' descriptions
};

DeviceCountResult train_replicas(const RunConfig& cfg, const LaunchInfo& launch, const TrainRequest& req);

// Threads per CPU replica: --threads-per-replica, else this process's share of the cores.
int cpu_threads_per_replica(const RunConfig& cfg, int local_replicas);

}  // namespace mg
