// Key-value rendezvous store used to bootstrap communicators: NCCL unique ids and Gloo's pair addresses are
// exchanged through it. InProcessStore serves the replicas (threads) of one process; TcpStore is served by
// process rank 0 at MASTER_ADDR:MASTER_PORT (or an address broadcast with MPI) for multi-process worlds.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mg {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  // Blocks until the key is set; throws Error naming the key after `timeout`.
  virtual std::vector<uint8_t> get(const std::string& key, std::chrono::milliseconds timeout) = 0;
};

}  // namespace mg
