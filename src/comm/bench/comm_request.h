// What `mgbench comm` is asked to do, in command-line spelling: the CLI fills it from its options and the runner
// (comm_sweep.h) checks and types it, so every process of a launched world compares the same spelling.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/bench/comm_bench.h"
#include "core/transport_kind.h"

namespace mg {

struct CommRequest {
  std::string op = "allreduce";   // allreduce | reducescatter | allgather | broadcast | reduce
  std::string allreduce = "ring";  // ring | ps (reduce to rank 0, then broadcast)
  std::string min_bytes = "8";     // -b, K/M/G suffixes
  std::string max_bytes = "32M";   // -e
  double factor = 2;               // -f
  std::optional<int> devices;      // replicas in this process; none: 2 on CPU, every GPU, 1 under a launcher
  std::string device;              // cpu | cuda | gpu | auto ("" is auto)
  int warmup = 5;
  int iters = 20;
  double min_time_s = 0;
  double gap_s = 0;
  std::string dtype = "fp32";
  int root = 0;
  std::string transport;           // comma list; "" runs one entry as the environment is
  double timeout_s = 300;
  std::string gloo_iface;
  int threads_per_replica = 0;     // 0: the process's cores divided among its replicas
  // Fill the result's settings and environment; topology discovery is slow, so only when a file is written.
  bool describe = false;
};

// The request checked and typed.
struct CommSweepSettings {
  CommBenchOptions bench;
  DeviceKind kind = DeviceKind::Cpu;
  std::vector<Transport> transports;  // {Auto} when none was given
  bool transport_given = false;
};

// UsageError for the first bad option, in the order `mgbench comm` has always checked them; --devices,
// --threads-per-replica and --root need the world and are checked by the runner.
CommSweepSettings check_comm_request(const CommRequest& req);

}  // namespace mg
