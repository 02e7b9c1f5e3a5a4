#include "backend/cpu/cpu_stream.h"

namespace mg {

void CpuEvent::reset() {
  std::lock_guard<std::mutex> lk(mu_);
  done_ = false;
  recorded_ = true;
}

void CpuEvent::complete(SteadyTime t) {
  // Notified under the lock: a waiter that sees done_ may destroy this event at once (as cudaEventDestroy after
  // cudaEventSynchronize is allowed), so nothing of it may be touched once the lock is released.
  std::lock_guard<std::mutex> lk(mu_);
  done_ = true;
  recorded_ = true;
  t_ = t;
  cv_.notify_all();
}

void CpuEvent::wait() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return done_; });
}

bool CpuEvent::done() {
  std::lock_guard<std::mutex> lk(mu_);
  return done_;
}

bool CpuEvent::recorded() {
  std::lock_guard<std::mutex> lk(mu_);
  return recorded_;
}

SteadyTime CpuEvent::time() {
  std::lock_guard<std::mutex> lk(mu_);
  return t_;
}

WorkerStream::WorkerStream(std::string name) : name_(std::move(name)), thread_([this] { loop(); }) {}

WorkerStream::~WorkerStream() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void WorkerStream::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    q_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void WorkerStream::loop() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || !q_.empty(); });
      if (q_.empty()) return;  // stop requested and drained
      fn = std::move(q_.front());
      q_.pop_front();
      busy_ = true;
    }
    // Work after a failure still runs (events still complete, so nobody hangs); the error surfaces at the
    // next synchronize().
    try {
      fn();
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      busy_ = false;
    }
    idle_cv_.notify_all();
  }
}

void WorkerStream::synchronize() {
  std::unique_lock<std::mutex> lk(mu_);
  idle_cv_.wait(lk, [&] { return q_.empty() && !busy_; });
  if (error_) {
    auto e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void WorkerStream::fail(std::exception_ptr e) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!error_) error_ = std::move(e);
}

void WorkerStream::rethrow_if_failed() {
  std::lock_guard<std::mutex> lk(mu_);
  if (error_) {
    auto e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

}  // namespace mg
