// Rendezvous store for the replicas (threads) of one process: a map guarded by a mutex, get() waits on a
// condition variable. Used when no launcher started us, so nothing touches the network for bootstrap.
#pragma once
#include <condition_variable>
#include <map>
#include <mutex>

#include "comm/rendezvous/store.h"

namespace mg {

class InProcessStore final : public Store {
 public:
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key, std::chrono::milliseconds timeout) override;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<uint8_t>> kv_;
};

}  // namespace mg
