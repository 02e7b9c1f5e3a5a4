// Running a test body in a forked child process, for cases that cannot be undone in the test process (a stop
// request, whose backstop ends the process), and polling for a condition with a generous bound.
#pragma once
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

namespace mg::test {

struct ChildExit {
  int status = -1;  // exit status, or -1 when it did not exit normally
  std::string err;  // what it wrote to stderr
  double seconds = 0;
};

// Runs body in a child process and returns how it ended; body's return value is the child's exit status (a
// failed expectation inside returns a distinct non-zero code, 0 is success).
inline ChildExit in_child(const std::function<int()>& body) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(pipe_fds[0]);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    int rc = 99;
    try {
      rc = body();
    } catch (...) {
      rc = 98;
    }
    std::fflush(stderr);
    ::_exit(rc);
  }
  ::close(pipe_fds[1]);
  ChildExit out;
  char buf[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) != 0;) {
    if (n > 0) out.err.append(buf, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// Polls until pred holds; false after a minute (a generous bound: only a broken stop path waits that long).
inline bool eventually(const std::function<bool()>& pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace mg::test
