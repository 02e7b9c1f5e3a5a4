#include "comm/gloo/gloo_communicator.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include "comm/gloo/gloo_store_adapter.h"
#include "comm/rendezvous/net_address.h"
#include "comm/reduce_sum.h"
#include "comm/gloo/ring_reduce_scatter.h"
#include "core/error.h"
#include "core/run_on_threads.h"
#include "core/stop.h"

namespace mg {

GlooCommunicator::GlooCommunicator(Backend& be, std::shared_ptr<gloo::Context> ctx,
                                   std::shared_ptr<PeerMonitor> monitor, double timeout_s)
    : HostCommunicator(be),
      ctx_(std::move(ctx)),
      monitor_(std::move(monitor)),
      timeout_(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000))),
      timeout_s_(timeout_s) {}

GlooCommunicator::~GlooCommunicator() { monitor_->left(rank()); }

void GlooCommunicator::run(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!failure_.empty()) throw Error(failure_);
  if (aborted_.load()) throw Error("rank " + std::to_string(rank()) + ": communicator was aborted");
  const uint64_t seq = ++seq_;
  monitor_->entered(rank(), seq);
  try {
    dispatch(op, send, recv, count, dt, root, static_cast<uint32_t>(seq));
  } catch (const std::exception& e) {
    fail(op, seq, e);
  }
}

namespace {

template <typename T>
void gloo_allreduce(const std::shared_ptr<gloo::Context>& ctx, const void* send, void* recv, size_t count,
                    ReduceFn sum, uint32_t tag, std::chrono::milliseconds timeout) {
  gloo::AllreduceOptions opts(ctx);
  opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
  if (send != recv) opts.setInput(const_cast<T*>(static_cast<const T*>(send)), count);
  opts.setOutput(static_cast<T*>(recv), count);
  opts.setReduceFunction(sum);
  opts.setTag(tag);
  opts.setTimeout(timeout);
  MG_CHECK_GLOO(gloo::allreduce(opts));
}

template <typename T>
void gloo_allgather(const std::shared_ptr<gloo::Context>& ctx, const void* send, void* recv, size_t count,
                    uint32_t tag, std::chrono::milliseconds timeout) {
  T* out = static_cast<T*>(recv);
  T* mine = out + static_cast<size_t>(ctx->rank) * count;
  gloo::AllgatherOptions opts(ctx);
  // In place either as NCCL defines it (send is this rank's block of recv) or as send == recv.
  if (send == recv) {
    std::memmove(mine, recv, count * sizeof(T));
  } else if (send != mine) {
    opts.setInput(const_cast<T*>(static_cast<const T*>(send)), count);
  }
  opts.setOutput(out, count * static_cast<size_t>(ctx->size));
  opts.setTag(tag);
  opts.setTimeout(timeout);
  MG_CHECK_GLOO(gloo::allgather(opts));
}

template <typename T>
void gloo_broadcast(const std::shared_ptr<gloo::Context>& ctx, const void* send, void* recv, size_t count, int root,
                    uint32_t tag, std::chrono::milliseconds timeout) {
  gloo::BroadcastOptions opts(ctx);
  if (ctx->rank == root && send != recv) opts.setInput(const_cast<T*>(static_cast<const T*>(send)), count);
  opts.setOutput(static_cast<T*>(recv), count);
  opts.setRoot(root);
  opts.setTag(tag);
  opts.setTimeout(timeout);
  MG_CHECK_GLOO(gloo::broadcast(opts));
}

template <typename T>
void gloo_reduce(const std::shared_ptr<gloo::Context>& ctx, const void* send, void* recv, size_t count, int root,
                 ReduceFn sum, uint32_t tag, std::chrono::milliseconds timeout) {
  gloo::ReduceOptions opts(ctx);
  if (send != recv) opts.setInput(const_cast<T*>(static_cast<const T*>(send)), count);
  opts.setOutput(static_cast<T*>(recv), count);
  opts.setRoot(root);
  opts.setReduceFunction(sum);
  opts.setTag(tag);
  opts.setTimeout(timeout);
  MG_CHECK_GLOO(gloo::reduce(opts));
}

}  // namespace

void GlooCommunicator::dispatch(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root,
                                uint32_t tag) {
  if (count == 0) return;
  // One rank: every collective is a copy of count elements (NCCL's counts, communicator.h).
  if (size() == 1) {
    if (send != recv) std::memcpy(recv, send, count * dtype_size(dt));
    return;
  }
  const bool reduces =
      op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::Reduce;
  const ReduceFn sum = reduces ? reduce_sum_fn(dt) : nullptr;
  const bool wide = dtype_size(dt) == 4;
  switch (op) {
    case CollectiveOp::AllReduce:
      wide ? gloo_allreduce<float>(ctx_, send, recv, count, sum, tag, timeout_)
           : gloo_allreduce<uint16_t>(ctx_, send, recv, count, sum, tag, timeout_);
      return;
    case CollectiveOp::ReduceScatter:
      MG_CHECK_GLOO(ring_reduce_scatter(*ctx_, send, recv, count, dtype_size(dt), sum, tag, timeout_, scratch_));
      return;
    case CollectiveOp::AllGather:
      wide ? gloo_allgather<float>(ctx_, send, recv, count, tag, timeout_)
           : gloo_allgather<uint16_t>(ctx_, send, recv, count, tag, timeout_);
      return;
    case CollectiveOp::Broadcast:
      wide ? gloo_broadcast<float>(ctx_, send, recv, count, root, tag, timeout_)
           : gloo_broadcast<uint16_t>(ctx_, send, recv, count, root, tag, timeout_);
      return;
    case CollectiveOp::Reduce:
      wide ? gloo_reduce<float>(ctx_, send, recv, count, root, sum, tag, timeout_)
           : gloo_reduce<uint16_t>(ctx_, send, recv, count, root, sum, tag, timeout_);
      return;
  }
}

void GlooCommunicator::fail(CollectiveOp op, uint64_t seq, const std::exception& e) {
  // A dead process closes its sockets a moment before (or after) the store notices; allow it that moment.
  const std::vector<int> lost = monitor_->lost(rank(), seq, std::min(2.0, timeout_s_));
  const std::string what = std::string(collective_name(op)) + " #" + std::to_string(seq) + " on rank " +
                           std::to_string(rank()) + " failed: " + e.what();
  failure_ = lost.empty() ? what : describe_lost(lost) + ": " + what;
  throw Error(failure_);
}

void GlooCommunicator::barrier() {
  std::lock_guard<std::mutex> lk(mu_);
  if (!failure_.empty()) throw Error(failure_);
  if (aborted_.load()) throw Error("rank " + std::to_string(rank()) + ": communicator was aborted");
  const uint64_t seq = ++seq_;
  monitor_->entered(rank(), seq);
  try {
    gloo::BarrierOptions opts(ctx_);
    opts.setTag(static_cast<uint32_t>(seq));
    opts.setTimeout(timeout_);
    MG_CHECK_GLOO(gloo::barrier(opts));
  } catch (const std::exception& e) {
    const std::vector<int> lost = monitor_->lost(rank(), seq, std::min(2.0, timeout_s_));
    const std::string what = "barrier on rank " + std::to_string(rank()) + " failed: " + e.what();
    failure_ = lost.empty() ? what : describe_lost(lost) + ": " + what;
    throw Error(failure_);
  }
}

void GlooCommunicator::abort() {
  if (aborted_.exchange(true)) return;
  monitor_->left(rank());
  // Closing the pairs makes every peer blocked on us fail now rather than at its timeout. (An operation of
  // our own still in flight ends when its peers close their side too, or at the timeout.)
  MG_CHECK_GLOO(ctx_->closeConnections());
}

std::vector<std::unique_ptr<Communicator>> create_gloo_communicators(int world_size, int first_rank,
                                                                     const std::vector<Backend*>& local,
                                                                     Store& store, const std::string& key,
                                                                     double timeout_s, const GlooAddress& addr,
                                                                     std::function<std::vector<int>()> lost_processes) {
  for (Backend* be : local) {
    if (!be || be->kind() != DeviceKind::Cpu) {
      throw UsageError("--comm gloo works on --device cpu; --device cuda uses NCCL");
    }
  }
  const int n_local = static_cast<int>(local.size());
  ignore_broken_pipes();  // not only the CLI embeds communicators: any process must survive a peer's death
  gloo::transport::tcp::attr attr;
  if (!addr.iface.empty()) {
    interface_ipv4(addr.iface, "--gloo-iface");  // a clear error for a missing interface, before Gloo's
    attr.iface = addr.iface;
  } else {
    attr.hostname = addr.hostname;
  }
  auto monitor = std::make_shared<PeerMonitor>(first_rank, n_local, std::move(lost_processes));
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));

  std::vector<std::unique_ptr<Communicator>> out(local.size());
  // connectFullMesh blocks until every rank has published its address, so local ranks join concurrently.
  run_on_threads(n_local, [&](int i) {
    std::shared_ptr<gloo::transport::Device> dev;
    MG_CHECK_GLOO(dev = gloo::transport::tcp::CreateDevice(attr));
    auto ctx = std::make_shared<gloo::rendezvous::Context>(first_rank + i, world_size);
    ctx->setTimeout(timeout);
    GlooStoreAdapter adapter(store, key + "/gloo/", timeout);
    MG_CHECK_GLOO(ctx->connectFullMesh(adapter, dev));
    out[i] = std::make_unique<GlooCommunicator>(*local[i], ctx, monitor, timeout_s);
  });
  return out;
}

}  // namespace mg
