// The Communicator seam: collectives among the replicas of one training job, NCCL (CUDA) or Gloo (CPU).
// Created once per replica, bound to that replica's backend: the factory checks the device kind once, so
// collectives do not. All replicas (threads of one process and/or processes under a launcher) hold one
// communicator each in the same world. Collectives are enqueued on a stream of the bound backend (the Comm
// stream for gradient buckets) and are asynchronous with respect to the host, like NCCL's.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/dtype.h"

namespace mg {

// Reduce: the sum lands in recv of rank `root` only (other ranks' recv is left as it was), as ncclReduce.
enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce };
const char* collective_name(CollectiveOp op);

class Communicator {
 public:
  explicit Communicator(Backend& be) : be_(be) {}
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  Backend& backend() const { return be_; }
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string library() const = 0;  // "nccl" or "gloo"

  // Sum reduction. count is elements per rank as NCCL defines it: AllReduce/Broadcast: elements of
  // send and recv; ReduceScatter: elements of recv (send holds size()*count); AllGather: elements of send
  // (recv holds size()*count). send == recv means in place. Enqueued on stream s of the bound backend.
  virtual void collective(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root,
                          StreamKind s) = 0;
  void allreduce_sum(void* buf, size_t count, DType dt, StreamKind s = StreamKind::Comm) {
    collective(CollectiveOp::AllReduce, buf, buf, count, dt, 0, s);
  }
  // --allreduce ps: the parameter-server exchange, sum on rank 0 then broadcast from it; the all-reduce result.
  void ps_allreduce_sum(const void* send, void* recv, size_t count, DType dt, StreamKind s = StreamKind::Comm) {
    collective(CollectiveOp::Reduce, send, recv, count, dt, 0, s);
    collective(CollectiveOp::Broadcast, recv, recv, count, dt, 0, s);
  }
  // Host-blocking barrier over the world.
  virtual void barrier() = 0;
  // Unblocks peers and tears down after a failure; safe to call from any thread.
  virtual void abort() = 0;

 private:
  Backend& be_;
};

}  // namespace mg
