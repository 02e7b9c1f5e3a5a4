// Key-value rendezvous store used to bootstrap communicators: NCCL unique ids and Gloo's pair addresses are
// exchanged through it. InProcessStore serves the replicas (threads) of one process; TcpStore is served by
// process rank 0 at MASTER_ADDR:MASTER_PORT (or an address broadcast with MPI) for multi-process worlds.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"

namespace mg {

// The store's server does not answer: the process serving it (rank 0) is gone or stalled, whatever key was asked.
struct StoreUnreachable : Error {
  using Error::Error;
};

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  // Blocks until the key is set; throws Error naming the key after `timeout`.
  virtual std::vector<uint8_t> get(const std::string& key, std::chrono::milliseconds timeout) = 0;
};

}  // namespace mg
