#include "core/stop.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace mg {

namespace {

std::atomic<int> g_signal{0};
std::atomic<int64_t> g_grace_ms{1500};  // so that the process is gone within 2 s of the signal
int g_pipe[2] = {-1, -1};

// Callbacks run on the watcher thread with g_mu held, so a StopCallback's destructor (which takes g_mu) cannot
// return while its function is still running on objects the caller is about to destroy.
std::mutex g_mu;
std::map<int, std::function<void()>> g_callbacks;
int g_next_id = 0;
bool g_fired = false;

void wake_watcher() {
  if (g_pipe[1] < 0) return;
  const int saved = errno;
  const char c = 1;
  while (::write(g_pipe[1], &c, 1) < 0 && errno == EINTR) {
  }
  errno = saved;
}

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  wake_watcher();
}

void watch() {
  char c;
  for (;;) {
    const ssize_t n = ::read(g_pipe[0], &c, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
  const auto requested = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lk(g_mu);
    g_fired = true;
    for (auto& kv : g_callbacks) {
      try {
        kv.second();
      } catch (...) {  // an abort that fails has nothing left to unblock
      }
    }
  }
  // Backstop: the grace may be raised while we wait (a parent waiting for its children), so re-read it.
  for (;;) {
    const auto waited = std::chrono::steady_clock::now() - requested;
    if (waited >= std::chrono::milliseconds(g_grace_ms.load())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const int sig = g_signal.load();
  std::fprintf(stderr, "mgbench: interrupted by %s; did not stop within %.1f s, exiting now\n", signal_name(sig),
               g_grace_ms.load() / 1000.0);
  std::fflush(stderr);
  ::_exit(128 + sig);
}

}  // namespace

Interrupted::Interrupted(int sig)
    : Error(std::string("interrupted by ") + signal_name(sig) + "; nothing written"), signal(sig) {}

void install_stop_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::pipe2(g_pipe, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
    std::thread(watch).detach();
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // library calls (fwrite, waitpid, sockets) resume; loops poll the flag
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    std::signal(SIGXFSZ, SIG_IGN);
  });
  ignore_broken_pipes();
}

void ignore_broken_pipes() {
  struct sigaction now;
  // A program that embeds the communicators and handles SIGPIPE itself keeps its handler.
  if (::sigaction(SIGPIPE, nullptr, &now) == 0 && now.sa_handler == SIG_DFL) std::signal(SIGPIPE, SIG_IGN);
}

bool stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }

int stop_signal() { return g_signal.load(); }

void throw_if_stopped() {
  const int sig = g_signal.load(std::memory_order_relaxed);
  if (sig != 0) throw Interrupted(sig);
}

void request_stop(int sig) { on_stop_signal(sig); }

double stop_grace_seconds() { return g_grace_ms.load() / 1000.0; }

ScopedStopGrace::ScopedStopGrace(double seconds) : previous_(stop_grace_seconds()) {
  g_grace_ms.store(static_cast<int64_t>(seconds * 1000));
}

ScopedStopGrace::~ScopedStopGrace() { g_grace_ms.store(static_cast<int64_t>(previous_ * 1000)); }

StopCallback::StopCallback(std::function<void()> fn) {
  std::unique_lock<std::mutex> lk(g_mu);
  id_ = g_next_id++;
  if (g_fired) {
    lk.unlock();
    fn();
    return;
  }
  g_callbacks.emplace(id_, std::move(fn));
}

StopCallback::~StopCallback() {
  std::lock_guard<std::mutex> lk(g_mu);
  g_callbacks.erase(id_);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace mg
