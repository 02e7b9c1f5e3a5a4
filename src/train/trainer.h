// Trains one entry of the sweep: N data-parallel replicas (threads of this process, and processes under a
// launcher), warm-up excluded, --steps timed --repeat times, and returns the raw measurements (summary
// statistics are computed by src/report/summary).
#pragma once
#include <functional>
#include <map>
#include <string>

#include "comm/world.h"
#include "result/run_config.h"
#include "result/run_result.h"

namespace mg {

struct TrainRequest {
  int local_replicas = 1;          // replicas driven by this process
  // CPU: how many replicas the process's cores are divided among. The sweep passes its largest device count, so
  // a CPU "device" is the same share of cores in every entry (the 1-replica baseline included) and scaling
  // efficiency measures what communication and sharing cost, as it does across GPUs. 0 = local_replicas.
  int cpu_core_slots = 0;
  std::string transport = "default";
  std::map<std::string, std::string> transport_env;
  std::string job_key = "run0";    // distinct per sweep entry
  bool trace = false;
  // Progress of the timed steps (called on rank 0's first replica only): done, total, images/s so far.
  std::function<void(int, int, double)> progress;
  std::vector<DeviceInfo>* devices_out = nullptr;  // when set, receives the local devices' descriptions
};

DeviceCountResult train_replicas(const RunConfig& cfg, const LaunchInfo& launch, const TrainRequest& req);

// Threads per CPU replica: --threads-per-replica, else this process's cores (--threads, or its share of the
// host: process_core_share) divided among `slots` replicas.
int cpu_threads_per_replica(const RunConfig& cfg, const LaunchInfo& launch, int slots);

}  // namespace mg
