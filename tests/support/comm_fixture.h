// A fully populated CommResult for the result and report tests: every field set to a distinct, non-default
// value so a writer or reader that drops one is caught.
#pragma once
#include <cstddef>

#include "result/comm_result.h"

namespace mg::test {

// Two sizes x two placements of an all-reduce over `ranks` ranks; with gap_s > 0 the rows carry gap timings.
inline CommResult make_comm_result(int ranks = 2, double gap_s = 0.01) {
  CommResult c;
  c.op = "allreduce";
  c.allreduce = "ring";
  c.dtype = "bf16";
  c.warmup = 3;
  c.iters = 17;
  c.min_time_s = 0.25;
  c.gap_s = gap_s;
  c.env.host = "h2";
  c.env.cpu = "Test CPU (2 logical CPUs)";
  c.env.mgbench_version = "0.1.0";
  c.env.git_commit = "abc123";
  c.env.command_line = "mgbench comm --device cpu";
  c.env.launcher = "env";
  c.env.world_size = ranks;
  c.env.versions = {{"gloo", "0.5.0"}, {"onednn", "2.6.3"}};
  c.env.libraries = {{"gloo", {"/usr/lib/libgloo.so", "0.5.0"}}};
  c.env.env_vars = {{"OMP_NUM_THREADS", "1"}};
  c.env.topology = {{"host", "h2"}, {"gpus", nlohmann::json::array()}};
  c.device = "cpu";
  c.processes = ranks;
  c.replicas_per_process = 1;
  c.gloo_iface = "lo";
  c.comm_timeout_s = 30.5;
  c.local_devices = {"Test CPU (1 thread)"};
  c.transport_env = {{"tcp", {{"MGBENCH_TRANSPORT", "tcp"}}}, {"auto", {}}};
  int k = 0;
  for (size_t bytes : {size_t{1024}, size_t{1} << 22})
    for (bool in_place : {false, true}) {
      ++k;
      CommRow r;
      r.op = "allreduce";
      r.dtype = "bf16";
      r.bytes = bytes;
      r.count = bytes / 2;
      r.in_place = in_place;
      r.time_us = 10.5 * k;
      r.iters = 20 + k;
      r.gap_time_us = gap_s > 0 ? 30.25 * k : 0;
      r.gap_iters = gap_s > 0 ? 5 + k : 0;
      r.algbw_GBps = 0.125 * k;
      r.busbw_GBps = 0.25 * k;
      r.wrong = k == 4 ? 3 : 0;
      r.transport = "tcp";
      r.library = "gloo";
      r.devices = ranks;
      c.rows.push_back(r);
    }
  return c;
}

}  // namespace mg::test
