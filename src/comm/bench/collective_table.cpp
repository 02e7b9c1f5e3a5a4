#include "comm/bench/collective_table.h"

#include <algorithm>

#include "core/error.h"

namespace mg {

float pattern_value(int rank, size_t index, int ranks) {
  // Values below k with ranks*(k-1) <= 256, so every partial sum is an integer bf16 represents exactly.
  const size_t k = static_cast<size_t>(std::max(2, std::min(8, 256 / std::max(ranks, 1))));
  return static_cast<float>((index * 7 + static_cast<size_t>(rank) * 3 + 1) % k);
}

namespace {

// nccl-tests' bus-bandwidth factors (its doc/PERFORMANCE.md): the share of the data each link carries.
double ring_twice_factor(int ranks) { return 2.0 * (ranks - 1) / ranks; }
double ring_once_factor(int ranks) { return static_cast<double>(ranks - 1) / ranks; }
double rooted_factor(int) { return 1; }

float sum_over_ranks(size_t index, int ranks) {
  float s = 0;
  for (int r = 0; r < ranks; ++r) s += pattern_value(r, index, ranks);
  return s;
}

float allreduce_expected(size_t i, size_t, int, int ranks, int) { return sum_over_ranks(i, ranks); }
float reducescatter_expected(size_t i, size_t count, int rank, int ranks, int) {
  return sum_over_ranks(count * static_cast<size_t>(rank) + i, ranks);
}
float allgather_expected(size_t i, size_t count, int, int ranks, int) {
  return pattern_value(static_cast<int>(i / count), i, ranks);
}
float broadcast_expected(size_t i, size_t, int, int ranks, int root) { return pattern_value(root, i, ranks); }

void allreduce_as_ps(Communicator& comm, const void* send, void* recv, size_t count, DType dt, StreamKind s) {
  comm.ps_allreduce_sum(send, recv, count, dt, s);
}

// Columns in CollectiveSpec's order: op, bus factor, send/recv per rank, rooted, root sends/receives, expected, ps.
constexpr std::array<CollectiveSpec, 5> kCollectives{{
    {CollectiveOp::AllReduce, ring_twice_factor, false, false, false, false, false, allreduce_expected,
     allreduce_as_ps},
    {CollectiveOp::ReduceScatter, ring_once_factor, true, false, false, false, false, reducescatter_expected,
     nullptr},
    {CollectiveOp::AllGather, ring_once_factor, false, true, false, false, false, allgather_expected, nullptr},
    {CollectiveOp::Broadcast, rooted_factor, false, false, true, true, false, broadcast_expected, nullptr},
    {CollectiveOp::Reduce, rooted_factor, false, false, true, false, true, allreduce_expected, nullptr},
}};

}  // namespace

const std::array<CollectiveSpec, 5>& collective_table() { return kCollectives; }

const CollectiveSpec& collective_spec(CollectiveOp op) {
  for (const CollectiveSpec& s : kCollectives)
    if (s.op == op) return s;
  throw Error(std::string("no comm-bench row for collective ") + collective_name(op));
}

}  // namespace mg
