// Communicator over Gloo's TCP transport, for CPU replicas (threads of one process, processes, or hosts).
// Collectives run on the host (host_communicator.h). All-reduce is Gloo's pipelined ring;
// reduce-scatter is our ring (ring_reduce_scatter.h); allgather and broadcast are Gloo's.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gloo/context.h>

#include "comm/host_communicator.h"
#include "comm/peer_monitor.h"
#include "comm/rendezvous/store.h"

namespace mg {

class GlooCommunicator final : public HostCommunicator {
 public:
  // ctx: connected full mesh; its timeout bounds every collective. monitor names lost ranks on failure. be: a
  // CPU backend (create_gloo_communicators checks), whose streams run the collectives.
  GlooCommunicator(Backend& be, std::shared_ptr<gloo::Context> ctx, std::shared_ptr<PeerMonitor> monitor,
                   double timeout_s);
  // Callers synchronize the stream collectives were enqueued on before destroying the communicator.
  ~GlooCommunicator() override;

  int rank() const override { return ctx_->rank; }
  int size() const override { return ctx_->size; }
  std::string library() const override { return "gloo"; }
  void barrier() override;
  void abort() override;
  void run(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root) override;

 private:
  void dispatch(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root, uint32_t tag);
  [[noreturn]] void fail(CollectiveOp op, uint64_t seq, const std::exception& e);

  std::shared_ptr<gloo::Context> ctx_;
  std::shared_ptr<PeerMonitor> monitor_;
  std::chrono::milliseconds timeout_;
  double timeout_s_;
  std::mutex mu_;  // one collective at a time: every rank must issue them in the same order anyway
  uint64_t seq_ = 0;
  std::vector<uint8_t> scratch_;
  std::atomic<bool> aborted_{false};
  std::string failure_;  // first failure; a Gloo context is unusable after one, so later calls repeat it
};

// Where this process's Gloo ranks listen: a named interface (--gloo-iface), else an address. One of the two.
struct GlooAddress {
  std::string iface;     // "" = use hostname
  std::string hostname;  // an IPv4 address of this host that the peers can reach
};

// One Gloo communicator per local CPU backend, global ranks first_rank .. first_rank + local.size() - 1 of a
// world of world_size ranks, connected as a full mesh through `store` under `key` (waiting up to timeout_s
// for every rank). lost_processes (may be empty) names processes the store saw disconnect, for errors.
std::vector<std::unique_ptr<Communicator>> create_gloo_communicators(int world_size, int first_rank,
                                                                     const std::vector<Backend*>& local,
                                                                     Store& store, const std::string& key,
                                                                     double timeout_s, const GlooAddress& addr,
                                                                     std::function<std::vector<int>()> lost_processes);

}  // namespace mg
