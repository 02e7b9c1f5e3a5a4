#include "comm/rendezvous/tcp_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <set>

#include "comm/rendezvous/net_address.h"
#include "core/error.h"

namespace mg {
namespace {

// Wire format, both directions: op (1 byte), key length (4), key, value length (4), value.
enum Op : uint8_t { kSet = 1, kGet = 2, kHello = 3, kBye = 4, kLost = 5, kFound = 6, kMissing = 7, kAck = 8, kBeat = 9 };

// A registered process that sends nothing (not even its heartbeat, every kBeatInterval) for kStalledAfter is
// stalled: stopped (SIGSTOP, a debugger), swapped out or hung in the kernel. Its sockets stay open, so only the
// silence tells it apart from a slow peer.
constexpr auto kBeatInterval = std::chrono::milliseconds(500);
constexpr auto kStalledAfter = std::chrono::seconds(3);
// Replies the server gives at once (lost processes, goodbye): waiting longer only delays a failing run.
constexpr auto kQuickReply = std::chrono::milliseconds(2000);

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::recv(fd, c, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool send_msg(int fd, uint8_t op, const std::string& key, const std::vector<uint8_t>& value) {
  std::vector<uint8_t> buf(1 + 4 + key.size() + 4 + value.size());
  const uint32_t kl = static_cast<uint32_t>(key.size()), vl = static_cast<uint32_t>(value.size());
  buf[0] = op;
  std::memcpy(&buf[1], &kl, 4);
  std::memcpy(&buf[5], key.data(), key.size());
  std::memcpy(&buf[5 + key.size()], &vl, 4);
  if (!value.empty()) std::memcpy(&buf[9 + key.size()], value.data(), value.size());
  return write_all(fd, buf.data(), buf.size());
}

bool recv_msg(int fd, uint8_t& op, std::string& key, std::vector<uint8_t>& value) {
  uint32_t kl = 0, vl = 0;
  if (!read_all(fd, &op, 1) || !read_all(fd, &kl, 4)) return false;
  if (kl > (1u << 20)) return false;  // not our protocol
  key.resize(kl);
  if (kl && !read_all(fd, &key[0], kl)) return false;
  if (!read_all(fd, &vl, 4) || vl > (1u << 28)) return false;
  value.resize(vl);
  return vl == 0 || read_all(fd, value.data(), vl);
}

std::vector<uint8_t> to_bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

struct TcpStoreServer::State {
  std::mutex mu;
  std::map<std::string, std::vector<uint8_t>> kv;
  std::set<int> lost;
  std::map<int, std::chrono::steady_clock::time_point> last_heard;  // registered processes still connected
  std::vector<int> fds;
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};

  void serve(int fd) {
    int process = -1;
    bool said_bye = false;
    uint8_t op = 0;
    std::string key;
    std::vector<uint8_t> value;
    while (recv_msg(fd, op, key, value)) {
      bool ok = true;
      if (process >= 0) {
        std::lock_guard<std::mutex> lk(mu);
        last_heard[process] = std::chrono::steady_clock::now();
      }
      if (op == kBeat) {
        continue;  // no reply: the client's heartbeat does not wait
      } else if (op == kSet) {
        {
          std::lock_guard<std::mutex> lk(mu);
          kv[key] = value;
        }
        ok = send_msg(fd, kAck, "", {});
      } else if (op == kGet) {
        std::unique_lock<std::mutex> lk(mu);
        auto it = kv.find(key);
        if (it == kv.end()) {
          lk.unlock();
          ok = send_msg(fd, kMissing, "", {});
        } else {
          const std::vector<uint8_t> v = it->second;
          lk.unlock();
          ok = send_msg(fd, kFound, "", v);
        }
      } else if (op == kHello) {
        process = std::stoi(key);
        {
          std::lock_guard<std::mutex> lk(mu);
          lost.erase(process);
          last_heard[process] = std::chrono::steady_clock::now();
        }
        ok = send_msg(fd, kAck, "", {});
      } else if (op == kBye) {
        said_bye = true;
        {
          std::lock_guard<std::mutex> lk(mu);
          last_heard.erase(process);
        }
        ok = send_msg(fd, kAck, "", {});
      } else if (op == kLost) {
        std::string list;
        {
          std::lock_guard<std::mutex> lk(mu);
          std::set<int> gone = lost;
          const auto now = std::chrono::steady_clock::now();
          for (const auto& [p, t] : last_heard) {
            if (now - t > kStalledAfter) gone.insert(p);
          }
          for (int p : gone) list += (list.empty() ? "" : ",") + std::to_string(p);
        }
        ok = send_msg(fd, kFound, "", to_bytes(list));
      } else {
        ok = false;
      }
      if (!ok) break;
    }
    if (process >= 0) {
      std::lock_guard<std::mutex> lk(mu);
      last_heard.erase(process);
      if (!said_bye && !stop.load()) lost.insert(process);
    }
  }
};

TcpStoreServer::TcpStoreServer(const std::string& bind_ip, int port) : state_(std::make_shared<State>()) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw Error(std::string("store: socket() failed: ") + std::strerror(errno));
  const int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, bind_ip.c_str(), &addr.sin_addr) != 1) {
    close(listen_fd_);
    throw Error("store: bad bind address '" + bind_ip + "'");
  }
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(listen_fd_, 128) != 0) {
    const int err = errno;
    close(listen_fd_);
    throw Error("store: cannot listen on " + bind_ip + ":" + std::to_string(port) + ": " + std::strerror(err) +
                " (is MASTER_PORT in use?)");
  }
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

void TcpStoreServer::accept_loop() {
  while (!state_->stop.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    // Polling with a short timeout lets the destructor stop the loop without closing a socket under accept().
    if (poll(&p, 1, 100) <= 0) continue;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::lock_guard<std::mutex> lk(state_->mu);
    state_->fds.push_back(fd);
    auto st = state_;
    state_->workers.emplace_back([st, fd] { st->serve(fd); });
  }
}

TcpStoreServer::~TcpStoreServer() {
  state_->stop.store(true);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lk(state_->mu);
    for (int fd : state_->fds) shutdown(fd, SHUT_RDWR);  // unblocks the workers' recv
    workers.swap(state_->workers);
  }
  for (auto& t : workers) t.join();
  for (int fd : state_->fds) close(fd);
  close(listen_fd_);
}

TcpStore::TcpStore(const std::string& host, int port, double connect_timeout_s, int process_rank)
    : endpoint_(host + ":" + std::to_string(port)) {
  const std::string ip = resolve_ipv4(host, "MASTER_ADDR");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(connect_timeout_s);
  std::string last_error;
  // The server process may start later than its clients (launchers start ranks in any order): retry.
  while (true) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw Error(std::string("store: socket() failed: ") + std::strerror(errno));
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) break;
    last_error = std::strerror(errno);
    close(fd_);
    fd_ = -1;
    if (std::chrono::steady_clock::now() >= deadline) {
      char secs[32];
      std::snprintf(secs, sizeof(secs), "%g", connect_timeout_s);
      throw Error("cannot reach MASTER_ADDR " + endpoint_ + " within " + secs + "s (" + last_error + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  // A server that stops answering (its host hung) must not block a client for ever: the server answers every
  // request at once, so no reply within the timeout means it is gone.
  reply_timeout_ = std::chrono::milliseconds(static_cast<int64_t>(std::max(1.0, connect_timeout_s) * 1000));
  set_reply_timeout(reply_timeout_);
  if (process_rank >= 0) {
    request(kHello, std::to_string(process_rank), {});
    heartbeat_ = std::thread([this] { beat(); });
  }
}

void TcpStore::beat() {
  std::unique_lock<std::mutex> lk(beat_mu_);
  while (!beat_cv_.wait_for(lk, kBeatInterval, [this] { return stop_beat_; })) {
    std::lock_guard<std::mutex> io(mu_);
    if (!send_msg(fd_, kBeat, "", {})) return;  // the server is gone; requests will say so
  }
}

TcpStore::~TcpStore() {
  if (heartbeat_.joinable()) {
    {
      std::lock_guard<std::mutex> lk(beat_mu_);
      stop_beat_ = true;
    }
    beat_cv_.notify_all();
    heartbeat_.join();
  }
  if (fd_ < 0) return;
  std::lock_guard<std::mutex> lk(mu_);
  if (server_gone_) {
    close(fd_);
    return;
  }
  set_reply_timeout(kQuickReply);  // a stalled server must not hold up this process's exit
  uint8_t op = 0;
  std::string k;
  std::vector<uint8_t> v;
  if (send_msg(fd_, kBye, "", {})) recv_msg(fd_, op, k, v);
  close(fd_);
}

std::vector<uint8_t> TcpStore::request(uint8_t op, const std::string& key, const std::vector<uint8_t>& value,
                                       std::chrono::milliseconds reply_timeout) {
  std::lock_guard<std::mutex> lk(mu_);
  uint8_t rop = 0;
  std::string rkey;
  std::vector<uint8_t> rvalue;
  if (reply_timeout.count() > 0) set_reply_timeout(reply_timeout);
  const bool ok = send_msg(fd_, op, key, value) && recv_msg(fd_, rop, rkey, rvalue);
  if (reply_timeout.count() > 0) set_reply_timeout(reply_timeout_);
  if (!ok) {
    throw StoreUnreachable("rank 0 lost: the store it serves at " + endpoint_ + " is unreachable: " + std::strerror(errno));
  }
  if (rop == kMissing) throw std::out_of_range(key);
  return rvalue;
}

void TcpStore::set(const std::string& key, const std::vector<uint8_t>& value) { request(kSet, key, value); }

std::vector<uint8_t> TcpStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    try {
      return request(kGet, key, {});
    } catch (const std::out_of_range&) {
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw Error("store key '" + key + "' was not set within " + std::to_string(timeout.count() / 1000.0) + " s");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

void TcpStore::set_reply_timeout(std::chrono::milliseconds t) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(t.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((t.count() % 1000) * 1000);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

std::vector<int> TcpStore::lost_processes() {
  std::vector<uint8_t> v;
  try {
    // Asked after a collective failed, when the caller is about to give up: a server that does not answer at
    // once is itself the stalled one.
    v = request(kLost, "", {}, kQuickReply);
  } catch (const Error&) {
    server_gone_ = true;
    return {0};
  }
  std::vector<int> out;
  std::string s(v.begin(), v.end());
  size_t pos = 0;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(std::stoi(s.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return out;
}

}  // namespace mg
