// Multi-process rendezvous store: process rank 0 serves a small key-value map over TCP (TcpStoreServer) and
// every process, rank 0 included, talks to it through TcpStore. Besides set/get it tracks which processes are
// connected, so that after a collective fails the survivors can ask which process disappeared and name the
// lost rank instead of reporting a socket error. Registered clients send a heartbeat, so a process that is
// stalled (stopped, hung) rather than dead is reported too.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "comm/rendezvous/store.h"

namespace mg {

class TcpStoreServer {
 public:
  // Listens on bind_ip:port (port 0: the kernel picks one, see port()). Throws Error if it cannot bind.
  TcpStoreServer(const std::string& bind_ip, int port);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;
  int port() const { return port_; }

 private:
  struct State;
  void accept_loop();
  int listen_fd_ = -1;
  int port_ = 0;
  std::shared_ptr<State> state_;
  std::thread acceptor_;
};

class TcpStore final : public Store {
 public:
  // Connects to host:port, retrying until connect_timeout_s, then throws Error
  // "cannot reach MASTER_ADDR host:port within Ns". process_rank >= 0 registers this process for lost_processes().
  TcpStore(const std::string& host, int port, double connect_timeout_s, int process_rank);
  ~TcpStore() override;  // says goodbye, so a clean exit is not reported as a lost process

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key, std::chrono::milliseconds timeout) override;
  // Processes that registered and then dropped their connection without saying goodbye, or whose heartbeat
  // stopped for 3 s (stalled). When the server itself cannot be reached, its process (rank 0) is the one lost.
  std::vector<int> lost_processes();

 private:
  // reply_timeout 0: the connection's (from connect_timeout_s).
  std::vector<uint8_t> request(uint8_t op, const std::string& key, const std::vector<uint8_t>& value,
                               std::chrono::milliseconds reply_timeout = std::chrono::milliseconds(0));
  void set_reply_timeout(std::chrono::milliseconds t);
  void beat();
  std::mutex mu_;  // one request (or heartbeat) at a time on fd_
  int fd_ = -1;
  std::string endpoint_;
  std::chrono::milliseconds reply_timeout_{0};
  std::atomic<bool> server_gone_{false};  // found unreachable: no goodbye at exit
  std::thread heartbeat_;
  std::mutex beat_mu_;
  std::condition_variable beat_cv_;
  bool stop_beat_ = false;
};

}  // namespace mg
