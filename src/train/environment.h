// Captures where a result was measured: host, CPU, devices, library versions, topology, the NCCL_* and
// threading variables in force, launcher and world size, mgbench version and commit, the command line.
#pragma once
#include "comm/world.h"
#include "result/run_config.h"
#include "result/run_result.h"

namespace mg {

Environment capture_environment(const RunConfig& cfg, const LaunchInfo& launch, int local_replicas);

}  // namespace mg
