// CPU stand-ins for CUDA streams and events. A WorkerStream runs enqueued host functions in order on its own
// thread; an inline stream (the CPU Compute stream) runs work at once on the caller. A CpuEvent completes
// when the stream reaches it and remembers the steady_clock time, which is how CPU steps are timed.
//
// The CPU backend is where CI exercises the code the CUDA backend runs, so these enforce CUDA's rules rather
// than being lenient where a GPU is not: an event that was never recorded has no time (cudaEventElapsedTime
// returns cudaErrorInvalidResourceHandle) and waiting on one is refused too (CUDA treats it as a no-op, which
// hides the same ordering bug); an event belongs to the device it was created on.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "backend/backend.h"

namespace mg {

using SteadyTime = std::chrono::steady_clock::time_point;

class WorkerStream;

class CpuEvent : public Event {
 public:
  explicit CpuEvent(const void* owner, int device) : owner_(owner), device_(device) {}
  void reset();                  // recorded again: not complete until reached
  void complete(SteadyTime t);   // reached
  void wait();                   // host blocks until complete
  bool done();
  bool recorded();               // ever recorded
  SteadyTime time();             // after wait()
  const void* owner() const { return owner_; }  // the backend that created it
  int device() const { return device_; }
  class WorkerStream* stream = nullptr;  // where last recorded (nullptr: inline); its failures surface on wait

 private:
  const void* owner_;
  int device_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = true;
  bool recorded_ = false;
  SteadyTime t_{};
};

class WorkerStream {
 public:
  explicit WorkerStream(std::string name);
  ~WorkerStream();
  WorkerStream(const WorkerStream&) = delete;
  WorkerStream& operator=(const WorkerStream&) = delete;

  void enqueue(std::function<void()> fn);
  // Blocks until all enqueued work ran; rethrows the first exception a function threw (once).
  void synchronize();
  // Rethrows a stored failure without waiting (used before enqueuing more work that depends on it).
  void rethrow_if_failed();
  // Keeps an error found outside the stream's work (a use-after-free) for the next synchronize(), like a CUDA
  // sticky error.
  void fail(std::exception_ptr e);

 private:
  void loop();
  std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> q_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace mg
