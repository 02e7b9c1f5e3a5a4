// The comm sweep's table of collectives, checked against each collective's definition rather than its own rows.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "comm/bench/collective_table.h"
#include "comm/bench/comm_bench.h"
#include "core/error.h"
#include "support/cpu_world.h"

using namespace mg;

namespace {

const std::vector<CollectiveOp> kEveryOp = {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                                            CollectiveOp::AllGather, CollectiveOp::Broadcast, CollectiveOp::Reduce};

// What rank `rank` holds after `op` when rank q sent inputs[q], written from the collective's definition.
std::vector<float> defined_result(CollectiveOp op, const std::vector<std::vector<float>>& inputs, size_t count,
                                  int rank, int root) {
  const int n = static_cast<int>(inputs.size());
  std::vector<float> out;
  switch (op) {
    case CollectiveOp::AllReduce:
    case CollectiveOp::Reduce:
      out.assign(count, 0);
      for (int q = 0; q < n; ++q)
        for (size_t i = 0; i < count; ++i) out[i] += inputs[q][i];
      break;
    case CollectiveOp::ReduceScatter:
      out.assign(count, 0);
      for (int q = 0; q < n; ++q)
        for (size_t i = 0; i < count; ++i) out[i] += inputs[q][count * static_cast<size_t>(rank) + i];
      break;
    case CollectiveOp::AllGather:
      for (int q = 0; q < n; ++q) out.insert(out.end(), inputs[q].begin(), inputs[q].begin() + count);
      break;
    case CollectiveOp::Broadcast: out.assign(inputs[root].begin(), inputs[root].begin() + count); break;
  }
  return out;
}

}  // namespace

TEST_CASE("collective table: one row per collective, in the order --op lists them") {
  std::set<CollectiveOp> seen;
  for (const CollectiveSpec& spec : collective_table()) CHECK(seen.insert(spec.op).second);
  CHECK(seen.size() == kEveryOp.size());
  for (CollectiveOp op : kEveryOp) {
    CHECK(collective_spec(op).op == op);
    CHECK(parse_collective(collective_name(op)) == op);
  }
  CHECK_THROWS_WITH(parse_collective("alltoall"),
                    "--op 'alltoall' is not one of: allreduce, reducescatter, allgather, broadcast, reduce");
}

TEST_CASE("collective table: bus-bandwidth factors are nccl-tests' for every world size") {
  for (int n : {1, 2, 3, 4, 7, 8, 64}) {
    INFO("ranks " << n);
    CHECK(collective_spec(CollectiveOp::AllReduce).bus_factor(n) == Approx(2.0 * (n - 1) / n));
    CHECK(collective_spec(CollectiveOp::ReduceScatter).bus_factor(n) == Approx(double(n - 1) / n));
    CHECK(collective_spec(CollectiveOp::AllGather).bus_factor(n) == Approx(double(n - 1) / n));
    CHECK(collective_spec(CollectiveOp::Broadcast).bus_factor(n) == 1.0);
    CHECK(collective_spec(CollectiveOp::Reduce).bus_factor(n) == 1.0);
    for (CollectiveOp op : kEveryOp) CHECK(bus_factor(op, n) == collective_spec(op).bus_factor(n));
  }
}

TEST_CASE("collective table: buffers hold one block per rank only where NCCL's do") {
  const size_t count = 10;
  const int n = 4;
  for (CollectiveOp op : kEveryOp) {
    INFO(collective_name(op));
    const CollectiveSpec& s = collective_spec(op);
    CHECK(s.send_elems(count, n) == (op == CollectiveOp::ReduceScatter ? 40u : 10u));
    CHECK(s.recv_elems(count, n) == (op == CollectiveOp::AllGather ? 40u : 10u));
    CHECK(s.rooted == (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce));
    CHECK((s.ps_form != nullptr) == (op == CollectiveOp::AllReduce));
  }
}

TEST_CASE("collective table: every row's expected result is what its collective computes from the inputs sent") {
  const size_t count = 6;
  for (int n : {2, 3, 5}) {
    for (CollectiveOp op : kEveryOp) {
      const int root = n - 1;
      INFO(collective_name(op) << " over " << n << " ranks");
      const CollectiveSpec& spec = collective_spec(op);
      std::vector<std::vector<float>> inputs(n);
      for (int q = 0; q < n; ++q) {
        inputs[q].resize(spec.send_elems(count, n));
        fill_send(op, inputs[q].data(), count, DType::F32, q, n, root);
      }
      for (int rank = 0; rank < n; ++rank) {
        if (spec.root_receives && rank != root) continue;  // undefined off the root
        const std::vector<float> want = defined_result(op, inputs, count, rank, root);
        REQUIRE(want.size() == spec.recv_elems(count, n));
        for (size_t i = 0; i < want.size(); ++i) CHECK(spec.expected(i, count, rank, n, root) == want[i]);
        CHECK(count_wrong(op, want.data(), count, DType::F32, rank, n, root) == 0);
      }
    }
  }
}

TEST_CASE("collective table: a reduce sweep to a non-zero root checks the root only, in and out of place") {
  test::CpuWorld w = test::make_cpu_world(3, 20, "reducebench", "local");
  CommBenchOptions opt;
  opt.op = CollectiveOp::Reduce;
  opt.min_bytes = 64;
  opt.max_bytes = 1024;
  opt.factor = 4;
  opt.warmup = 1;
  opt.iters = 2;
  opt.root = 2;
  const auto rows = run_comm_bench(w.cm(), w.be(), opt);
  REQUIRE(rows.size() == 2 * 3);
  for (const auto& r : rows) {
    CHECK(r.wrong == 0);
    CHECK(r.busbw_GBps == Approx(r.algbw_GBps));
  }
  opt.root = 3;
  CHECK_THROWS_WITH(run_comm_bench(w.cm(), w.be(), opt), "--root 3 is outside the world of 3 ranks");
}
