// A one-rank communicator whose every collective takes a known time on the stream it is enqueued on, for tests
// of where a step's communication time is attributed. A one-rank sum leaves the data as it is, so it only waits.
#pragma once
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "comm/communicator.h"

namespace mg::test {

class DelayCommunicator final : public Communicator {
 public:
  DelayCommunicator(Backend& be, std::chrono::milliseconds per_collective)
      : Communicator(be), delay_(per_collective) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string library() const override { return "delay"; }
  // Sleeping, not spinning: the wait is at least the delay however busy the cores are, and takes none of them.
  void collective(CollectiveOp, const void*, void*, size_t, DType, int, StreamKind s) override {
    ++issued_;
    backend().host_fn(s, [d = delay_] { std::this_thread::sleep_for(d); });
  }
  void barrier() override {}
  void abort() override {}
  int64_t issued() const { return issued_.load(); }  // collectives enqueued so far

 private:
  std::chrono::milliseconds delay_;
  std::atomic<int64_t> issued_{0};
};

}  // namespace mg::test
