// The runner behind `mgbench comm`, parallel to train/sweep: the request's devices, backends and one world per
// --transport entry, each swept by run_comm_bench; or, for several entries, one child process per entry (NCCL reads
// its NCCL_* once per process) whose results are merged. Replicas are threads of this process, or one per process
// under mpirun / srun / RANK+WORLD_SIZE.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "comm/bench/comm_request.h"
#include "result/comm_result.h"

namespace mg {

// One transport entry as measured, for the table rank 0 prints.
struct CommPart {
  std::string transport;
  DeviceKind kind = DeviceKind::Cpu;
  int ranks = 0;
  std::string library;
  std::vector<CommRow> rows;
};

struct CommSweepHooks {
  std::function<void(const CommPart&)> part_measured;  // rank 0, after each entry measured in this process
};

struct CommSweepOutcome {
  CommResult result;
  bool lead = true;      // this process writes the result: rank 0, or the parent of the entries' processes
  int child_status = 0;  // an entry's process failed with this exit status and said why; nothing to write
};

CommSweepOutcome run_comm_sweep(const CommRequest& req, const CommSweepHooks& hooks);

// The entries' processes' results (one JSON result each, in entry order) as one: rows and transport settings in
// entry order, the rest from the first. UsageError naming the entry for a malformed part; Error for none.
CommResult merge_transport_parts(const std::vector<nlohmann::json>& parts, const std::vector<Transport>& transports);

}  // namespace mg
