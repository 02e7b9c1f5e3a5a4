// What `mgbench comm` measured: the sweep's options, where it ran and one row per size, placement and transport.
// Produced by the collective sweep (comm/bench) and cmd_comm, consumed by report and predict's link model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "result/run_result.h"  // Environment

namespace mg {

// One size, one placement. bytes follows nccl-tests: the whole buffer (for reducescatter/allgather, all ranks'
// blocks together). time_us is the mean over ranks of the per-iteration time.
struct CommRow {
  std::string op;
  std::string dtype;
  size_t bytes = 0;
  size_t count = 0;  // elements per rank, as NCCL's count argument
  bool in_place = false;
  double time_us = 0;
  int iters = 0;  // timed iterations behind time_us (0 in files written before it was recorded)
  double gap_time_us = 0;  // with gap_s > 0: mean compute-stream time of one collective issued after the gap
  int gap_iters = 0;       // collectives behind gap_time_us
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  int64_t wrong = 0;
  std::string transport;
  std::string library;  // the communicator that moved the bytes: nccl, gloo or local (shared memory)
  int devices = 0;  // ranks in the world
};

struct CommResult {
  // The sweep as asked for, in command-line spelling.
  std::string op = "allreduce";
  std::string allreduce = "ring";  // ring | ps (reduce to rank 0, then broadcast)
  std::string dtype = "fp32";
  int warmup = 0;
  int iters = 0;
  double min_time_s = 0;
  double gap_s = 0;  // > 0: rows carry gap_time_us and gap_iters
  // Captured as for a training result; env.world_size is the ranks and env.devices is not recorded.
  Environment env;
  std::string device;  // cpu | cuda
  int processes = 1;
  int replicas_per_process = 1;
  std::string gloo_iface;
  double comm_timeout_s = 0;
  std::vector<std::string> local_devices;  // rank 0's process's devices, by name
  std::map<std::string, std::map<std::string, std::string>> transport_env;  // per transport entry, what it set
  std::vector<CommRow> rows;
};

}  // namespace mg
