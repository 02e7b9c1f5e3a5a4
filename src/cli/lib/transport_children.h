// NCCL reads its NCCL_* settings once per process, so comparing transports on CUDA needs one process per
// transport entry: this re-runs the current mgbench command line in a child process per entry, with that
// entry as its only --transport and a temporary --json, and hands back the children's results.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mg {

struct ChildResults {
  int status = 0;                     // first non-zero child exit status (the child printed why), else 0
  std::vector<nlohmann::json> parts;  // one parsed --json result per transport, in order
};

// quiet: the children's stdout is discarded (the parent prints one merged report).
ChildResults run_per_transport_children(const std::vector<std::string>& transports, bool quiet);

// This process's command line as typed (from /proc/self/cmdline), for results.
std::string own_command_line();

}  // namespace mg
