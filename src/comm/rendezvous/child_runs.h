// Re-running the current mgbench command line in child processes, for what one process cannot measure:
// NCCL reads its NCCL_* settings once per process, so comparing transports on CUDA needs one process per
// transport entry; and run-to-run variation (--runs) only shows between fresh processes.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comm/rendezvous/launch.h"

namespace mg {

struct ChildResults {
  int status = 0;                     // first non-zero child exit status (the child printed why), else 0
  std::vector<nlohmann::json> parts;  // one parsed --json result per child, in order
};

// Runs one child per entry of extra_args: this process's arguments without --json and without the options
// named in `replaced` (both "--opt V" and "--opt=V" forms), then extra_args[i], then a temporary --json. Stops
// at the first child that fails. quiet: the children's stdout is discarded (the parent prints one merged
// report). child_done(i, result) is called after child i succeeded, with its parsed result.
ChildResults run_children(const std::vector<std::vector<std::string>>& extra_args,
                          const std::vector<std::string>& replaced, bool quiet,
                          const std::function<void(size_t, const nlohmann::json&)>& child_done = {});

// Child processes cannot be started under mpirun/srun/torchrun (the launcher owns the world): UsageError
// naming `what` (the option that asked for them) when a launcher started this process.
void refuse_children_under_launcher(const LaunchInfo& launch, const std::string& what);

// This process's command line as typed (from /proc/self/cmdline), for results.
std::string own_command_line();

}  // namespace mg
