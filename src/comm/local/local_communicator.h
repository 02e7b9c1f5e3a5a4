// Communicator for replicas that are threads of one process: gradients move through the process's own memory
// instead of loopback sockets. create_communicators() picks it for an in-process world (transport "auto" or
// "local"); processes, on one host or several, keep Gloo.
//
// Every collective runs on the host (host_communicator.h), like GlooCommunicator's. The ranks publish their
// buffer addresses, meet at a barrier and then work on each other's buffers directly: in an all-reduce each rank
// sums one slice of every rank's input and writes it into that slice of every rank's output in the same pass
// (in or out of place alike), so each byte is read once and written once (the minimum), with two rendezvous per
// operation. Sums always run in rank order, so every rank ends bitwise identical and a run is reproducible. The
// second rendezvous keeps every buffer untouched until no peer uses it any more.
//
// Failures match GlooCommunicator: a peer that does not arrive within the timeout, or whose communicator is
// aborted or destroyed, fails the collective on every rank with an error naming it; the world is unusable
// afterwards.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "comm/host_communicator.h"

namespace mg {

struct LocalWorld;

class LocalCommunicator final : public HostCommunicator {
 public:
  // be: a CPU backend (create_local_communicators checks), whose streams run the collectives.
  LocalCommunicator(Backend& be, std::shared_ptr<LocalWorld> world, int rank);
  // Callers synchronize the stream collectives were enqueued on before destroying the communicator; the
  // peers' later collectives then fail naming this rank.
  ~LocalCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override;
  std::string library() const override { return "local"; }
  void barrier() override;
  void abort() override;
  void run(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root) override;

 private:
  // Starts operation number seq_ + 1 (or repeats an earlier failure): its name for errors and its deadline.
  void begin(std::string what);
  void dispatch(CollectiveOp op, const void* send, void* recv, size_t count, DType dt, int root);
  // only_to >= 0: Reduce, the sum lands in that rank's recv only.
  void all_reduce(size_t count, DType dt, int only_to);
  void reduce_scatter(void* recv, size_t count, DType dt);
  void all_gather(const void* send, void* recv, size_t count, DType dt);
  void broadcast(const void* send, void* recv, size_t count, DType dt, int root);
  // One rendezvous of the current operation; throws (and breaks the world) when it cannot complete.
  void sync();
  void check_same_call();
  [[noreturn]] void fail(const std::string& reason);

  std::shared_ptr<LocalWorld> world_;
  const int rank_;
  std::mutex mu_;  // one operation at a time: every rank must issue them in the same order anyway
  uint64_t seq_ = 0;     // operations started (what PeerMonitor compares)
  uint64_t rounds_ = 0;  // barrier rounds passed
  std::string what_;     // the current operation, for errors
  std::chrono::steady_clock::time_point deadline_;
  std::vector<uint8_t> block_;    // fp16/bf16 running sum (local_communicator.cpp: reduce_to_all)
  std::atomic<bool> aborted_{false};
  std::string failure_;  // first failure; later calls repeat it
};

// One communicator per local CPU backend, ranks 0 .. local.size() - 1 of an in-process world; timeout_s bounds
// every operation.
std::vector<std::unique_ptr<Communicator>> create_local_communicators(const std::vector<Backend*>& local,
                                                                      double timeout_s);

}  // namespace mg
