// The rendezvous under the in-process communicator: a counting barrier among the replica threads of one
// process that can also be broken (abort, a departed or lost rank) and gives up at a deadline.
//
// Waiting spins briefly (a peer that is already on its way arrives within microseconds, which is what keeps
// small collectives at tens of microseconds), then yields, then sleeps on a condition variable so a rank that
// waits for a peer's backward pass does not take a core from it.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace mg {

class LocalBarrier {
 public:
  explicit LocalBarrier(int parties) : parties_(parties) {}

  enum class Outcome { Passed, Broken, TimedOut };
  // Arrival number `round` (0, 1, 2, ... counted by each party; every party passes the rounds in the same
  // order). Returns once all parties arrived at this round, the barrier broke, or the deadline passed.
  Outcome arrive_and_wait(uint64_t round, std::chrono::steady_clock::time_point deadline);

  // Wakes every waiter now and fails every later wait: the world can no longer make progress.
  void break_all();
  bool broken() const { return broken_.load(std::memory_order_acquire); }

 private:
  bool passed(uint64_t target) const { return arrived_.load(std::memory_order_acquire) >= target; }

  const int parties_;
  // Arrivals since creation; round r is complete once (r + 1) * parties arrived. Never reset, so no party can
  // confuse one round with the next.
  alignas(64) std::atomic<uint64_t> arrived_{0};
  alignas(64) std::atomic<bool> broken_{false};
  std::atomic<int> sleepers_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace mg
