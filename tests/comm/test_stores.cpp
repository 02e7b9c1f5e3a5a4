// Rendezvous stores: in-process and TCP set/get/timeout, unreachable server, lost-process tracking.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "comm/gloo/gloo_store_adapter.h"
#include "comm/rendezvous/in_process_store.h"
#include "comm/rendezvous/tcp_store.h"
#include "core/error.h"

using namespace mg;
using namespace std::chrono_literals;

namespace {
std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
}

TEST_CASE("in-process store: get waits for a later set and times out naming the key") {
  InProcessStore s;
  std::thread t([&] {
    std::this_thread::sleep_for(50ms);
    s.set("k", bytes("v"));
  });
  CHECK(s.get("k", 5000ms) == bytes("v"));
  t.join();
  CHECK_THROWS_WITH(s.get("missing", 100ms), Catch::Contains("missing"));
}

TEST_CASE("tcp store: set and get across clients, blocking get, timeout, binary values") {
  TcpStoreServer server("127.0.0.1", 0);
  TcpStore a("127.0.0.1", server.port(), 5, 0);
  TcpStore b("127.0.0.1", server.port(), 5, 1);
  a.set("x", bytes("hello"));
  CHECK(b.get("x", 1000ms) == bytes("hello"));
  std::vector<uint8_t> bin = {0, 1, 2, 255, 0};
  b.set("bin", bin);
  CHECK(a.get("bin", 1000ms) == bin);
  std::thread t([&] {
    std::this_thread::sleep_for(100ms);
    a.set("late", bytes("ok"));
  });
  CHECK(b.get("late", 5000ms) == bytes("ok"));
  t.join();
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(b.get("never", 300ms), Catch::Contains("never"));
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  CHECK(a.lost_processes().empty());
}

TEST_CASE("tcp store: an unreachable MASTER_ADDR fails within the timeout with a clear message") {
  int port = 0;
  {
    TcpStoreServer probe("127.0.0.1", 0);  // a port that was free a moment ago and now has no listener
    port = probe.port();
  }
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(TcpStore("127.0.0.1", port, 0.5, 1),
                    Catch::Contains("cannot reach MASTER_ADDR 127.0.0.1:" + std::to_string(port) + " within 0.5s"));
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
}

TEST_CASE("tcp store: a client that connects late still gets through, within the retry window") {
  int port = 0;
  {
    TcpStoreServer probe("127.0.0.1", 0);
    port = probe.port();
  }
  std::unique_ptr<TcpStoreServer> server;
  std::thread t([&] {
    std::this_thread::sleep_for(300ms);
    server = std::make_unique<TcpStoreServer>("127.0.0.1", port);
  });
  TcpStore c("127.0.0.1", port, 10, 3);
  t.join();
  c.set("a", bytes("1"));
  CHECK(c.get("a", 100ms) == bytes("1"));
}

TEST_CASE("tcp store: a process that vanishes without goodbye is reported lost, a clean exit is not") {
  TcpStoreServer server("127.0.0.1", 0);
  TcpStore watcher("127.0.0.1", server.port(), 5, 0);
  { TcpStore clean("127.0.0.1", server.port(), 5, 1); }
  CHECK(watcher.lost_processes().empty());
  // A crash is a connection that closes without a goodbye: do that at the socket level in a child process.
  const pid_t pid = fork();
  if (pid == 0) {
    auto* c = new TcpStore("127.0.0.1", server.port(), 5, 2);  // never destroyed: no goodbye
    (void)c;
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::vector<int> lost;
  for (int i = 0; i < 100 && lost.empty(); ++i) {
    lost = watcher.lost_processes();
    std::this_thread::sleep_for(20ms);
  }
  CHECK(lost == std::vector<int>{2});
}

TEST_CASE("tcp store: when the server process is gone, rank 0 is the one lost") {
  auto server = std::make_unique<TcpStoreServer>("127.0.0.1", 0);
  TcpStore c("127.0.0.1", server->port(), 5, 1);
  server.reset();
  CHECK(c.lost_processes() == std::vector<int>{0});
  CHECK_THROWS_WITH(c.set("k", bytes("v")), Catch::StartsWith("rank 0 lost: ") && Catch::Contains("unreachable"));
}

TEST_CASE("tcp store: a server that takes the connection but never answers (stalled) is rank 0 lost") {
  // A listening socket nobody serves: the kernel completes the connection, no reply ever comes.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(listen(fd, 4) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const int port = ntohs(addr.sin_port);
  CHECK_THROWS_AS(TcpStore("127.0.0.1", port, 1, 1), StoreUnreachable);
  CHECK_THROWS_WITH(TcpStore("127.0.0.1", port, 1, 1), Catch::StartsWith("rank 0 lost: ") && Catch::Contains(std::to_string(port)));
  close(fd);
}

namespace {
// A store whose every get fails as `fail` says.
struct FailingStore : Store {
  std::function<void()> fail;
  void set(const std::string&, const std::vector<uint8_t>&) override {}
  std::vector<uint8_t> get(const std::string&, std::chrono::milliseconds) override {
    fail();
    return {};
  }
};
}  // namespace

TEST_CASE("gloo rendezvous: an unreachable store names its own process, a missing key the rank that owns it") {
  FailingStore store;
  GlooStoreAdapter gloo_store(store, "job/", 100ms);
  store.fail = [] { throw StoreUnreachable("rank 0 lost: the store it serves at 127.0.0.1:1 is unreachable"); };
  CHECK_THROWS_WITH(gloo_store.wait({"1"}), Catch::StartsWith("rank 0 lost: the store"));
  store.fail = [] { throw Error("store key 'job/1' was not set within 0.1 s"); };
  CHECK_THROWS_WITH(gloo_store.wait({"1"}), Catch::StartsWith("rank 1 lost: it did not join"));
}
