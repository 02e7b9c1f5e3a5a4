#include "comm/local/local_barrier.h"

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MG_CPU_RELAX() _mm_pause()
#else
#define MG_CPU_RELAX() std::this_thread::yield()
#endif

namespace mg {
namespace {

// A microsecond of pause instructions, then yields, then sleep. A peer running on another core arrives within
// the spin or the yields that follow it (a yield returns at once when nothing else wants the core). A peer that
// shares our core (two replicas on a busy 2-core machine) runs only once we yield, so every rendezvous costs the
// whole spin: with 4 us, back-to-back small all-reduces between two ranks on one core took 10.3 us each, with
// 1 us 4.0 us (2-core development VM; on separate cores 0.7 us either way). (A pause lasts from a few to about a
// hundred cycles depending on the CPU, so the spin is bounded by the clock, not by a count.)
constexpr auto kSpin = std::chrono::microseconds(1);
constexpr auto kYield = std::chrono::microseconds(30);

}  // namespace

LocalBarrier::Outcome LocalBarrier::arrive_and_wait(uint64_t round, std::chrono::steady_clock::time_point deadline) {
  const uint64_t target = (round + 1) * static_cast<uint64_t>(parties_);
  if (broken()) return Outcome::Broken;
  const uint64_t now_arrived = arrived_.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (now_arrived >= target) {
    // Last to arrive: a sleeper checked the count under mu_ before it slept, so taking mu_ here orders our
    // notify after its wait began (sleepers_ is read after the increment above, both sequentially consistent).
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> lk(mu_);
      cv_.notify_all();
    }
    return Outcome::Passed;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (auto t = t0; t - t0 < kSpin; t = std::chrono::steady_clock::now()) {
    for (int i = 0; i < 16; ++i) {
      if (passed(target)) return Outcome::Passed;
      MG_CPU_RELAX();
    }
    if (broken()) return Outcome::Broken;
  }
  for (auto t = t0; t - t0 < kSpin + kYield; t = std::chrono::steady_clock::now()) {
    if (passed(target)) return Outcome::Passed;
    if (broken()) return Outcome::Broken;
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lk(mu_);
  sleepers_.fetch_add(1);
  const bool ok = cv_.wait_until(lk, deadline, [&] { return passed(target) || broken(); });
  sleepers_.fetch_sub(1);
  if (passed(target)) return Outcome::Passed;
  if (broken()) return Outcome::Broken;
  return ok ? Outcome::Passed : Outcome::TimedOut;
}

void LocalBarrier::break_all() {
  broken_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lk(mu_);
  cv_.notify_all();
}

}  // namespace mg
