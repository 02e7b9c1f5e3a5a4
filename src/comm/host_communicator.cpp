#include "comm/host_communicator.h"

#include <string>

#include "comm/reduce_sum.h"
#include "core/error.h"

namespace mg {

void HostCommunicator::collective(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root,
                                  StreamKind s) {
  if (root < 0 || root >= size()) throw Error("collective root " + std::to_string(root) + " outside the world");
  if (op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::Reduce) {
    reduce_sum_fn(dt);
  }
  backend().host_fn(s, [this, op, send, recv, count, dt, root] { run(op, send, recv, count, dt, root); });
}

}  // namespace mg
