// Work split over a group of threads that fail together: one thread per index, all joined, and one exception
// reported -- the first failure's. The replica threads of the trainer, Gloo's concurrent rendezvous, the
// record packer's decoders and the tests' replica threads all run through run_on_threads.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mg {

// The first failure of a group of threads. A failing thread usually makes the others fail too (a broken barrier,
// an aborted collective: "communicator was aborted"); those errors are consequences, so only the first one
// recorded is kept, and on_failure -- which releases the other threads -- runs only after it was recorded.
class FirstFailure {
 public:
  explicit FirstFailure(std::function<void()> on_failure = {}) : on_failure_(std::move(on_failure)) {}

  // Keeps e if no failure was recorded yet; the first call then runs on_failure. A thread whose unwinding needs
  // the others released first (freeing device memory waits for collectives a failed peer never completes)
  // records its exception itself before rethrowing it. Every later call returns only once on_failure has
  // finished: a second replica failing at the same moment must not free buffers that a peer's collective may
  // still write into until the first one's abort has stopped every collective (an interrupted 2-replica sweep
  // corrupted the heap when the second recorder returned at once and unwound).
  void record(std::exception_ptr e) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (first_) {
        released_cv_.wait(lk, [this] { return released_; });
        return;
      }
      first_ = std::move(e);
    }
    struct Released {
      FirstFailure& f;
      ~Released() {
        {
          std::lock_guard<std::mutex> lk(f.mu_);
          f.released_ = true;
        }
        f.released_cv_.notify_all();
      }
    } released{*this};
    if (on_failure_) on_failure_();
  }
  bool failed() const {
    std::lock_guard<std::mutex> lk(mu_);
    return first_ != nullptr;
  }
  void rethrow_if_failed() const {
    std::exception_ptr e;
    {
      std::lock_guard<std::mutex> lk(mu_);
      e = first_;
    }
    if (e) std::rethrow_exception(e);
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable released_cv_;
  bool released_ = false;  // on_failure has run
  std::exception_ptr first_;
  std::function<void()> on_failure_;
};

// Runs fn(i) for i = 0 .. n-1, each on its own thread, waits for all of them, then rethrows the first failure
// recorded in `failure` (by a thread itself, or here when an exception leaves fn).
template <typename F>
void run_on_threads(int n, F&& fn, FirstFailure& failure) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n > 0 ? n : 0));
  try {
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&fn, &failure, i] {
        try {
          fn(i);
        } catch (...) {
          failure.record(std::current_exception());
        }
      });
    }
  } catch (...) {  // no thread for index i: the started ones are released and joined
    failure.record(std::current_exception());
  }
  for (auto& t : threads) t.join();
  failure.rethrow_if_failed();
}

template <typename F>
void run_on_threads(int n, F&& fn) {
  FirstFailure failure;
  run_on_threads(n, std::forward<F>(fn), failure);
}

}  // namespace mg
