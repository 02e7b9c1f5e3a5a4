// The comm sweep's facts about each collective, one row per collective as nccl-tests gives each its own test
// engine: buffer sizing, in-place layout, bus-bandwidth factor, who sends and receives, the expected result and
// the parameter-server form. The sweep looks rows up instead of switching on the collective.
#pragma once
#include <array>
#include <cstddef>

#include "comm/communicator.h"
#include "core/dtype.h"

namespace mg {

struct CollectiveSpec {
  CollectiveOp op;
  // nccl-tests' busbw = algbw * bus_factor(ranks): what each link carries in a bandwidth-optimal algorithm.
  double (*bus_factor)(int ranks);
  bool send_per_rank;  // the send buffer holds one block of `count` elements per rank (reducescatter)
  bool recv_per_rank;  // the receive buffer holds one block per rank (allgather)
  bool rooted;         // --root names a rank of the world (broadcast's source, reduce's destination)
  bool root_sends;     // only the root's input is read: in place, other ranks hold none (broadcast)
  bool root_receives;  // only the root's output is defined, as ncclReduce's (reduce)
  // Element i of `rank`'s receive buffer after the collective, when every rank sent pattern_value's data.
  float (*expected)(size_t i, size_t count, int rank, int ranks, int root);
  // The collective as a parameter server runs it (reduce to rank 0, then broadcast); nullptr where none exists.
  void (*ps_form)(Communicator& comm, const void* send, void* recv, size_t count, DType dt, StreamKind s);

  size_t send_elems(size_t count, int ranks) const { return send_per_rank ? count * size_t(ranks) : count; }
  size_t recv_elems(size_t count, int ranks) const { return recv_per_rank ? count * size_t(ranks) : count; }
};

// The row of `op`; every CollectiveOp has one.
const CollectiveSpec& collective_spec(CollectiveOp op);

// Every row, in the order the command line lists them.
const std::array<CollectiveSpec, 5>& collective_table();

// Value of element `index` of rank `rank`'s input: small integers, so every partial sum is exact.
float pattern_value(int rank, size_t index, int ranks);

}  // namespace mg
