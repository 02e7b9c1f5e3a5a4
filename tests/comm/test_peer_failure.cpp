// A rank that never arrives, stops participating or disappears makes the others fail within the timeout,
// naming it; processes that disagree on the run fail with a usage error before any collective.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "support/cpu_world.h"
#include "comm/rendezvous/tcp_store.h"
#include "core/error.h"

using namespace mg;
using namespace std::chrono_literals;

namespace {

int free_port() {
  TcpStoreServer probe("127.0.0.1", 0);
  return probe.port();
}

LaunchInfo env_launch(int rank, int world, int port) {
  LaunchInfo li;
  li.launcher = Launcher::Env;
  li.rank = rank;
  li.world_size = world;
  li.master_addr = "127.0.0.1";
  li.master_port = port;
  return li;
}

void embedder_sigpipe_handler(int) {}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Replica threads fail alike whether they exchange through Gloo's TCP pairs or through shared memory.
TEST_CASE("a replica whose communicator is gone fails the survivor's all-reduce naming it") {
  const std::string transport = GENERATE("tcp", "local");
  INFO("transport " << transport);
  test::CpuWorld w = test::make_cpu_world(2, 3, "gone", transport);
  std::vector<float> buf(1000, 1.0f);
  w.comms[1].reset();
  const auto t0 = std::chrono::steady_clock::now();
  w.comms[0]->allreduce_sum(buf.data(), buf.size(), DType::F32);
  CHECK_THROWS_WITH(w.backends[0]->synchronize(StreamKind::Comm), Catch::Contains("rank 1 lost"));
  CHECK(seconds_since(t0) < 3 + 3);
}

TEST_CASE("a replica that never enters the collective is named when the timeout expires") {
  const std::string transport = GENERATE("tcp", "local");
  INFO("transport " << transport);
  test::CpuWorld w = test::make_cpu_world(3, 1, "absent", transport);
  std::vector<std::vector<float>> bufs(3, std::vector<float>(256, 1.0f));
  const auto t0 = std::chrono::steady_clock::now();
  std::string errors[2];
  std::thread t([&] {
    try {
      w.comms[0]->allreduce_sum(bufs[0].data(), 256, DType::F32);
      w.backends[0]->synchronize(StreamKind::Comm);
    } catch (const Error& e) {
      errors[0] = e.what();
    }
  });
  try {
    w.comms[1]->allreduce_sum(bufs[1].data(), 256, DType::F32);
    w.backends[1]->synchronize(StreamKind::Comm);
  } catch (const Error& e) {
    errors[1] = e.what();
  }
  t.join();
  // Rank 2 never called: both others must fail within about the 1 s timeout, naming rank 2.
  CHECK(seconds_since(t0) < 1 + 4);
  CHECK_THAT(errors[0], Catch::Contains("rank 2 lost"));
  CHECK_THAT(errors[1], Catch::Contains("rank 2 lost"));
}

TEST_CASE("a process that never joins the world is named within the timeout") {
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  CommOptions opt;
  opt.timeout_s = 1;
  opt.job_key = "never";
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(create_communicators(env_launch(0, 2, free_port()), {be.get()}, opt),
                    Catch::Contains("rank 1 lost") && Catch::Contains("did not join"));
  CHECK(seconds_since(t0) < 1 + 3);
}

TEST_CASE("processes with different configurations fail with a usage error naming both") {
  const int port = free_port();
  auto b0 = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  auto b1 = make_backend(DeviceKind::Cpu, 1, BackendOptions{1});
  std::string errors[2];
  bool usage[2] = {false, false};
  auto join = [&](int rank, Backend* be, const std::string& fp) {
    CommOptions opt;
    opt.timeout_s = 5;
    opt.job_key = "mismatch";
    opt.config_fingerprint = fp;
    try {
      create_communicators(env_launch(rank, 2, port), {be}, opt);
    } catch (const UsageError& e) {
      usage[rank] = true;
      errors[rank] = e.what();
    } catch (const Error& e) {
      errors[rank] = e.what();
    }
  };
  std::thread t(join, 1, b1.get(), "batch=64");
  join(0, b0.get(), "batch=32");
  t.join();
  for (int r = 0; r < 2; ++r) {
    CHECK(usage[r]);
    CHECK_THAT(errors[r], Catch::Contains("disagree") && Catch::Contains("batch=32") && Catch::Contains("batch=64"));
  }
}

// Gloo writes with writev(): under SIGPIPE's default a write racing a dead peer's close ends the survivor silently
// (the killed-peer case below, when Gloo's reader has not yet seen the close), in any process, not only the CLI.
TEST_CASE("connecting Gloo communicators makes a write to a dead peer an error rather than a fatal SIGPIPE") {
  std::signal(SIGPIPE, SIG_DFL);
  test::CpuWorld w = test::make_cpu_world(2, 3, "pipe", "tcp");
  struct sigaction now;
  REQUIRE(::sigaction(SIGPIPE, nullptr, &now) == 0);
  CHECK(now.sa_handler == SIG_IGN);
}

TEST_CASE("connecting Gloo communicators keeps a SIGPIPE handler the embedding program installed") {
  std::signal(SIGPIPE, embedder_sigpipe_handler);
  test::CpuWorld w = test::make_cpu_world(2, 3, "pipe-handler", "tcp");
  struct sigaction now;
  REQUIRE(::sigaction(SIGPIPE, nullptr, &now) == 0);
  CHECK(now.sa_handler == &embedder_sigpipe_handler);
  std::signal(SIGPIPE, SIG_IGN);
}

TEST_CASE("two processes all-reduce over the TCP store, a killed peer process is named by the survivor") {
  const int port = free_port();
  const pid_t pid = fork();
  if (pid == 0) {
    // Rank 1: join, one all-reduce, then vanish as a killed process would (no destructors, no goodbye).
    try {
      auto be = make_backend(DeviceKind::Cpu, 1, BackendOptions{1});
      CommOptions opt;
      opt.timeout_s = 5;
      opt.job_key = "fork";
      auto comms = create_communicators(env_launch(1, 2, port), {be.get()}, opt);
      std::vector<float> buf(4096, 2.0f);
      comms[0]->allreduce_sum(buf.data(), buf.size(), DType::F32);
      be->synchronize(StreamKind::Comm);
      _exit(buf[0] == 3.0f ? 0 : 3);
    } catch (...) {
      _exit(4);
    }
  }
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  CommOptions opt;
  opt.timeout_s = 5;
  opt.job_key = "fork";
  auto comms = create_communicators(env_launch(0, 2, port), {be.get()}, opt);
  REQUIRE(comms[0]->size() == 2);
  std::vector<float> buf(4096, 1.0f);
  comms[0]->allreduce_sum(buf.data(), buf.size(), DType::F32);
  be->synchronize(StreamKind::Comm);
  CHECK(buf[4095] == 3.0f);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  comms[0]->allreduce_sum(buf.data(), buf.size(), DType::F32);
  CHECK_THROWS_WITH(be->synchronize(StreamKind::Comm), Catch::Contains("rank 1 lost"));
  CHECK(seconds_since(t0) < 5 + 3);
}

TEST_CASE("abort from another thread releases the peers blocked on that rank long before the timeout") {
  const std::string transport = GENERATE("tcp", "local");
  INFO("transport " << transport);
  test::CpuWorld w = test::make_cpu_world(2, 30, "abort", transport);
  std::vector<float> buf(1 << 16, 1.0f);
  const auto t0 = std::chrono::steady_clock::now();
  w.comms[1]->allreduce_sum(buf.data(), buf.size(), DType::F32);  // rank 0 never joins
  std::thread aborter([&] {
    std::this_thread::sleep_for(200ms);
    w.comms[0]->abort();
  });
  CHECK_THROWS_WITH(w.backends[1]->synchronize(StreamKind::Comm), Catch::Contains("rank 0 lost"));
  aborter.join();
  CHECK(seconds_since(t0) < 10);
  // An aborted communicator refuses further work at once.
  w.comms[0]->allreduce_sum(buf.data(), buf.size(), DType::F32);
  CHECK_THROWS_WITH(w.backends[0]->synchronize(StreamKind::Comm), Catch::Contains("aborted"));
}
