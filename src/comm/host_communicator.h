// The part Gloo and the in-process communicator share: their collectives run on the host, as a host function
// on a stream of the bound CPU backend (the CPU Comm stream is a worker thread), so they are asynchronous to the
// caller like NCCL's. What can be refused on the caller's thread (a root outside the world, a dtype that cannot
// be summed) is refused there, not later on the stream.
#pragma once
#include <cstddef>

#include "comm/communicator.h"

namespace mg {

class HostCommunicator : public Communicator {
 public:
  using Communicator::Communicator;

  void collective(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root,
                  StreamKind s) final;
  // Runs one collective on the calling thread: what collective() enqueues.
  virtual void run(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root) = 0;
};

}  // namespace mg
