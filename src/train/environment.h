// Captures where a result was measured: host, CPU, library versions, topology, the NCCL_* and threading
// variables in force, launcher and world size, mgbench version and commit, the command line. The one capture
// every producer of results uses (training runs and `mgbench comm`); devices are added by the caller, which
// knows which ones it drove.
#pragma once
#include <string>

#include "comm/world.h"
#include "result/run_result.h"

namespace mg {

Environment capture_environment(const std::string& command_line, const LaunchInfo& launch, int local_replicas);

}  // namespace mg
