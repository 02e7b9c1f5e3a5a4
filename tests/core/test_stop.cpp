// Stopping on SIGINT/SIGTERM: the flag, Interrupted, the callbacks that unblock waiters, and the backstop. Each
// case that requests a stop runs in a child process, since a stop cannot be taken back and its backstop ends the
// process.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "core/stop.h"
#include "support/in_child.h"

using namespace mg;
using mg::test::ChildExit;
using mg::test::eventually;
using mg::test::in_child;

TEST_CASE("stop: Interrupted names the signal and maps it to 128 + signal", "[stop]") {
  const Interrupted i(SIGINT), t(SIGTERM);
  CHECK(std::string(i.what()) == "interrupted by SIGINT; nothing written");
  CHECK(i.exit_status() == 130);
  CHECK(std::string(t.what()) == "interrupted by SIGTERM; nothing written");
  CHECK(t.exit_status() == 143);
  CHECK(std::string(signal_name(SIGINT)) == "SIGINT");
  CHECK(std::string(signal_name(SIGTERM)) == "SIGTERM");
}

TEST_CASE("stop: the backstop ends a process 1.5 s after the stop, so it is gone within the documented 2 s",
          "[stop]") {
  CHECK(stop_grace_seconds() == 1.5);
  {
    ScopedStopGrace longer(3.5);
    CHECK(stop_grace_seconds() == 3.5);
  }
  CHECK(stop_grace_seconds() == 1.5);
}

TEST_CASE("stop: request_stop sets the flag once, and throw_if_stopped throws the first signal", "[stop]") {
  const ChildExit r = in_child([] {
    if (stop_requested() || stop_signal() != 0) return 1;
    throw_if_stopped();  // nothing requested: no throw
    request_stop(SIGTERM);
    if (!stop_requested() || stop_signal() != SIGTERM) return 2;
    request_stop(SIGINT);  // a second request does not replace the first
    if (stop_signal() != SIGTERM) return 3;
    try {
      throw_if_stopped();
      return 4;
    } catch (const Interrupted& e) {
      if (e.signal != SIGTERM || e.exit_status() != 143) return 5;
    }
    return 0;
  });
  CHECK(r.err == "");
  CHECK(r.status == 0);
}

TEST_CASE("stop: a signal sets the flag and runs the callbacks registered then, and only those", "[stop]") {
  const int sig = GENERATE(SIGINT, SIGTERM);
  const ChildExit r = in_child([sig] {
    install_stop_handlers();
    std::atomic<int> live{0}, gone{0};
    StopCallback kept([&] { ++live; });
    { StopCallback dropped([&] { ++gone; }); }
    if (::kill(::getpid(), sig) != 0) return 1;
    if (!eventually([&] { return live.load() == 1; })) return 2;
    if (stop_signal() != sig || gone.load() != 0) return 3;
    // Registered after the stop: runs at once, in the constructor.
    std::atomic<int> late{0};
    StopCallback after([&] { ++late; });
    if (late.load() != 1) return 4;
    return 0;  // exits before the backstop
  });
  CHECK(r.err == "");
  CHECK(r.status == 0);
}

TEST_CASE("stop: a process that does not stop is ended by the backstop with 128 + signal, saying so", "[stop]") {
  const ChildExit r = in_child([] {
    install_stop_handlers();
    ScopedStopGrace grace(0.2);
    request_stop(SIGTERM);
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // ignores the flag
    return 1;
  });
  CHECK(r.status == 143);
  CHECK(r.seconds >= 0.2);
  CHECK(r.err == "mgbench: interrupted by SIGTERM; did not stop within 0.2 s, exiting now\n");
}

TEST_CASE("stop: the backstop follows a grace changed after the stop", "[stop]") {
  const ChildExit r = in_child([] {
    install_stop_handlers();
    ScopedStopGrace grace(60);
    request_stop(SIGINT);
    ScopedStopGrace changed(0.3);  // as a parent that waits for its children changes it
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return 1;
  });
  CHECK(r.status == 130);
  CHECK(r.seconds >= 0.3);
  CHECK(r.seconds < 60);
  CHECK(r.err == "mgbench: interrupted by SIGINT; did not stop within 0.3 s, exiting now\n");
}
