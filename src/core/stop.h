// Stopping a run on SIGINT/SIGTERM: owns the process's stop flag, the signal handlers that set it, and the
// hooks that wake whatever is blocked (communicators, child processes) when it is set.
//
// A signal handler may only set an atomic and write to a pipe; a watcher thread reads that pipe and runs the
// registered StopCallbacks (communicator aborts, forwarding the signal to child processes) outside signal
// context. Loops poll stop_requested() and throw Interrupted; the CLI turns that into exit status 128+signal
// (130 for SIGINT, 143 for SIGTERM) with nothing written. A backstop ends the process with that status if it has
// not finished stopping within stop_grace_seconds() (a step of a large model may be longer than that).
#pragma once
#include <functional>
#include <string>

#include "core/error.h"

namespace mg {

// The run was stopped by a signal; what() names it.
struct Interrupted : Error {
  explicit Interrupted(int sig);
  int signal;
  int exit_status() const { return 128 + signal; }
};

// Installs SIGINT/SIGTERM handlers and the watcher thread (idempotent), ignores SIGXFSZ so a file-size limit
// surfaces as EFBIG from write() (a clear error) instead of killing the process mid-write, and SIGPIPE (below).
void install_stop_handlers();
// Ignores SIGPIPE if it is still default (idempotent): Gloo's writev() to a dead peer must fail naming it, not kill us.
void ignore_broken_pipes();

bool stop_requested();
int stop_signal();        // 0 until a stop was requested
void throw_if_stopped();  // throws Interrupted once a stop was requested
// Sets the flag as a signal would (tests, and code that must stop the run for its own reasons).
void request_stop(int sig);

// Seconds after a stop request before the backstop ends the process (_exit(128+signal)).
double stop_grace_seconds();
// A parent waiting for children that stop on their own needs longer than they do; restored on destruction.
class ScopedStopGrace {
 public:
  explicit ScopedStopGrace(double seconds);
  ~ScopedStopGrace();
  ScopedStopGrace(const ScopedStopGrace&) = delete;
  ScopedStopGrace& operator=(const ScopedStopGrace&) = delete;

 private:
  double previous_;
};

// Runs fn on the watcher thread when a stop is requested (at once if it already was) while this object
// lives. fn must be safe to call concurrently with the code it unblocks (Communicator::abort() is).
class StopCallback {
 public:
  explicit StopCallback(std::function<void()> fn);
  ~StopCallback();
  StopCallback(const StopCallback&) = delete;
  StopCallback& operator=(const StopCallback&) = delete;

 private:
  int id_;
};

const char* signal_name(int sig);  // "SIGINT", "SIGTERM", else "signal N"

}  // namespace mg
