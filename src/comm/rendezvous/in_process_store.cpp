#include "comm/rendezvous/in_process_store.h"

#include "core/error.h"

namespace mg {

void InProcessStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    kv_[key] = value;
  }
  cv_.notify_all();
}

std::vector<uint8_t> InProcessStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  const bool found = cv_.wait_for(lk, timeout, [&] { return kv_.count(key) != 0; });
  if (!found) {
    throw Error("store key '" + key + "' was not set within " + std::to_string(timeout.count() / 1000.0) + " s");
  }
  return kv_[key];
}

}  // namespace mg
