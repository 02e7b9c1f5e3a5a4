// The runner behind `mgbench comm`, driven without the CLI: its request checks, a sweep in this process, and the
// merge of the transport entries' processes' results.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "comm/bench/comm_sweep.h"
#include "core/error.h"
#include "result/comm_result_json.h"

using namespace mg;

namespace {

// A request that runs quickly on two CPU replica threads of this process.
CommRequest small_cpu_request() {
  CommRequest r;
  r.device = "cpu";
  r.devices = 2;
  r.threads_per_replica = 1;
  r.transport = "local";
  r.min_bytes = r.max_bytes = "1K";
  r.warmup = 1;
  r.iters = 2;
  r.timeout_s = 60;
  return r;
}

CommRow sweep_row(const std::string& transport, size_t bytes) {
  CommRow row;
  row.op = "allreduce";
  row.dtype = "fp32";
  row.bytes = bytes;
  row.count = bytes / 4;
  row.time_us = 10;
  row.transport = transport;
  row.library = "gloo";
  row.devices = 2;
  return row;
}

}  // namespace

TEST_CASE("comm request: each bad option is one usage error naming it, in the order mgbench comm checks them") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<std::function<void(CommRequest&)>, std::string>> cases = {
      {[](CommRequest& r) { r.op = "alltoall"; },
       "--op 'alltoall' is not one of: allreduce, reducescatter, allgather, broadcast, reduce"},
      {[](CommRequest& r) { r.dtype = "int8"; }, "--dtype 'int8' is not one of: fp32, fp16, bf16"},
      {[](CommRequest& r) { r.min_bytes = "12Q"; },
       "-b '12Q' is not a size: use bytes with an optional K, M or G suffix"},
      {[](CommRequest& r) { r.max_bytes = "4"; }, "-b 1024 is larger than -e 4: the size range is reversed"},
      {[](CommRequest& r) { r.warmup = -1; }, "--warmup must be >= 0"},
      {[](CommRequest& r) { r.iters = 0; }, "--iters must be >= 1"},
      {[=](CommRequest& r) { r.min_time_s = nan; }, "--min-time must be a number of seconds >= 0"},
      {[](CommRequest& r) { r.allreduce = "tree"; }, "--allreduce 'tree' is not one of: ring, ps"},
      {[](CommRequest& r) { r.allreduce = "ps", r.op = "broadcast"; }, "--allreduce ps applies to --op allreduce"},
      {[](CommRequest& r) { r.timeout_s = 0; }, "--comm-timeout must be positive"},
      {[](CommRequest& r) { r.gap_s = INFINITY; }, "--gap must be a number of seconds >= 0"},
      {[](CommRequest& r) { r.device = "tpu"; }, "--device tpu is not one of: auto, cpu, cuda (gpu means cuda)"},
      {[](CommRequest& r) { r.transport = "p2p"; }, "--transport 'p2p' does not apply to --device cpu"},
      {[](CommRequest& r) { r.device = "cuda", r.transport = "", r.gloo_iface = "eth0"; },
       "--gloo-iface applies to --device cpu (Gloo); NCCL reads NCCL_SOCKET_IFNAME"},
      // Two bad options: the first checked is the one named.
      {[](CommRequest& r) { r.iters = 0, r.warmup = -1; }, "--warmup must be >= 0"},
      {[](CommRequest& r) { r.timeout_s = -1, r.allreduce = "tree"; }, "--allreduce 'tree' is not one of: ring, ps"},
  };
  for (const auto& [spoil, message] : cases) {
    CommRequest r = small_cpu_request();
    spoil(r);
    INFO(message);
    CHECK_THROWS_AS(check_comm_request(r), UsageError);
    CHECK_THROWS_WITH(check_comm_request(r), Catch::StartsWith(message));
  }
}

TEST_CASE("comm request: a good request is typed as asked") {
  CommRequest r = small_cpu_request();
  r.op = "reducescatter";
  r.dtype = "bf16";
  r.min_bytes = "64K";
  r.max_bytes = "1M";
  r.factor = 4;
  r.root = 1;
  r.transport = "tcp,local";
  CommSweepSettings s = check_comm_request(r);
  CHECK(s.bench.op == CollectiveOp::ReduceScatter);
  CHECK(s.bench.dtype == DType::BF16);
  CHECK(s.bench.min_bytes == 64u << 10);
  CHECK(s.bench.max_bytes == 1u << 20);
  CHECK(s.bench.factor == 4);
  CHECK(s.bench.warmup == 1);
  CHECK(s.bench.iters == 2);
  CHECK(s.bench.root == 1);
  CHECK_FALSE(s.bench.ps);
  CHECK(s.kind == DeviceKind::Cpu);
  CHECK(s.transports == std::vector<Transport>{Transport::Tcp, Transport::Local});
  CHECK(s.transport_given);

  r = small_cpu_request();
  r.transport = "";
  r.allreduce = "ps";
  s = check_comm_request(r);
  CHECK(s.bench.ps);
  CHECK(s.transports == std::vector<Transport>{Transport::Auto});
  CHECK_FALSE(s.transport_given);
}

TEST_CASE("comm sweep: replicas, threads and --root are checked against the world before it is built") {
  CommRequest r = small_cpu_request();
  r.devices = 0;
  CHECK_THROWS_WITH(run_comm_sweep(r, {}), "--devices must be at least 1");
  r = small_cpu_request();
  r.threads_per_replica = -1;
  CHECK_THROWS_WITH(run_comm_sweep(r, {}), "--threads-per-replica must be >= 0");
  for (const char* op : {"broadcast", "reduce"}) {
    r = small_cpu_request();
    r.op = op;
    r.root = 2;
    r.transport = "tcp";
    r.gloo_iface = "mg-no-such0";  // a world built first would fail on this instead
    CHECK_THROWS_WITH(run_comm_sweep(r, {}), "--root 2 is outside the world of 2 ranks");
  }
}

TEST_CASE("comm sweep: one entry in this process gives rank 0 its table and, asked to describe, the settings") {
  CommRequest r = small_cpu_request();
  r.op = "allgather";
  std::vector<CommPart> parts;
  CommSweepHooks hooks;
  hooks.part_measured = [&](const CommPart& p) { parts.push_back(p); };
  CommSweepOutcome out = run_comm_sweep(r, hooks);
  CHECK(out.lead);
  CHECK(out.child_status == 0);
  REQUIRE(out.result.rows.size() == 2);  // one size, out of place and in place
  CHECK_FALSE(out.result.rows[0].in_place);
  CHECK(out.result.rows[1].in_place);
  for (const CommRow& row : out.result.rows) {
    CHECK(row.op == "allgather");
    CHECK(row.wrong == 0);
    CHECK(row.transport == "local");
    CHECK(row.devices == 2);
  }
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].transport == "local");
  CHECK(parts[0].kind == DeviceKind::Cpu);
  CHECK(parts[0].ranks == 2);
  CHECK(parts[0].library == "local");
  CHECK(parts[0].rows.size() == 2);
  CHECK(out.result.transport_env.count("local") == 1);
  CHECK(out.result.device.empty());  // not described: no file is written

  r.describe = true;
  r.timeout_s = 45;
  out = run_comm_sweep(r, {});
  CHECK(out.result.op == "allgather");
  CHECK(out.result.allreduce == "ring");
  CHECK(out.result.warmup == 1);
  CHECK(out.result.iters == 2);
  CHECK(out.result.device == "cpu");
  CHECK(out.result.processes == 1);
  CHECK(out.result.replicas_per_process == 2);
  CHECK(out.result.comm_timeout_s == 45);
  CHECK(out.result.local_devices.size() == 2);
  CHECK(out.result.env.world_size == 2);
  CHECK_FALSE(out.result.env.mgbench_version.empty());
}

TEST_CASE("comm sweep: the entries' results merge in entry order, the first entry's settings kept") {
  CommResult a;
  a.op = "allreduce";
  a.device = "cpu";
  a.replicas_per_process = 2;
  a.rows = {sweep_row("tcp", 8), sweep_row("tcp", 16)};
  a.transport_env["tcp"] = {};
  CommResult b = a;
  b.replicas_per_process = 3;  // never in one run; shows whose settings the merge keeps
  b.rows = {sweep_row("local", 8)};
  b.transport_env = {{"local", {{"X", "1"}}}};
  const CommResult m = merge_transport_parts({to_json(a), to_json(b)}, {Transport::Tcp, Transport::Local});
  REQUIRE(m.rows.size() == 3);
  CHECK(m.rows[0].transport == "tcp");
  CHECK(m.rows[1].bytes == 16);
  CHECK(m.rows[2].transport == "local");
  CHECK(m.replicas_per_process == 2);
  REQUIRE(m.transport_env.size() == 2);
  CHECK(m.transport_env.at("local").at("X") == "1");

  nlohmann::json broken = to_json(b);
  broken.erase("results");
  CHECK_THROWS_WITH(merge_transport_parts({to_json(a), broken}, {Transport::Tcp, Transport::Local}),
                    Catch::StartsWith("transport local"));
  CHECK_THROWS_WITH(merge_transport_parts({}, {}), "comm: the transport entries' processes wrote no results");
}
