#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/run_on_threads.h"

using namespace mg;

TEST_CASE("run_on_threads runs every index on its own thread and joins them all", "[core]") {
  std::vector<int> ran(5, 0);
  std::mutex mu;
  std::set<std::thread::id> ids;
  run_on_threads(5, [&](int i) {
    ran[static_cast<size_t>(i)] += 1;
    std::lock_guard<std::mutex> lk(mu);
    ids.insert(std::this_thread::get_id());
  });
  REQUIRE(ran == std::vector<int>(5, 1));
  REQUIRE(ids.size() == 5);
  REQUIRE(ids.count(std::this_thread::get_id()) == 0);
}

TEST_CASE("the first failure is rethrown, not the failures its release causes on the other threads", "[core]") {
  // Thread 0 blocks until released (as a replica in a collective); thread 2 fails; the release makes thread 0
  // fail with a consequence. Index order would report the consequence.
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  int on_failure_calls = 0;
  FirstFailure failure([&] {
    std::lock_guard<std::mutex> lk(mu);
    ++on_failure_calls;
    released = true;
    cv.notify_all();
  });
  try {
    run_on_threads(
        3,
        [&](int i) {
          if (i == 2) throw std::runtime_error("the cause");
          if (i == 0) {
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] { return released; });
            throw std::runtime_error("communicator was aborted");
          }
        },
        failure);
    FAIL("expected the cause to be rethrown");
  } catch (const std::runtime_error& e) {
    REQUIRE(std::string(e.what()) == "the cause");
  }
  REQUIRE(on_failure_calls == 1);
  REQUIRE(failure.failed());
}

TEST_CASE("a thread that records its failure before unwinding is the one reported", "[core]") {
  std::atomic<bool> released{false};
  FirstFailure failure([&] { released = true; });
  REQUIRE_THROWS_WITH(run_on_threads(
                          2,
                          [&](int i) {
                            if (i == 1) {
                              try {
                                throw std::runtime_error("out of memory");
                              } catch (...) {
                                failure.record(std::current_exception());  // before its own unwinding
                                while (!released) {
                                }
                                throw std::runtime_error("unwinding error");
                              }
                            }
                            while (!released) std::this_thread::yield();
                            throw std::runtime_error("peer aborted");
                          },
                          failure),
                      "out of memory");
}

TEST_CASE("run_on_threads with no failure returns, with zero threads too", "[core]") {
  REQUIRE_NOTHROW(run_on_threads(0, [](int) { throw std::runtime_error("never"); }));
  std::atomic<int> sum{0};
  REQUIRE_NOTHROW(run_on_threads(3, [&](int i) { sum += i; }));
  REQUIRE(sum == 3);
}
