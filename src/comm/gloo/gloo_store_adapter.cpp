#include "comm/gloo/gloo_store_adapter.h"

#include <cctype>

#include "core/error.h"

namespace mg {

GlooStoreAdapter::GlooStoreAdapter(mg::Store& store, std::string prefix, std::chrono::milliseconds timeout)
    : store_(store), prefix_(std::move(prefix)), timeout_(timeout) {}

void GlooStoreAdapter::set(const std::string& key, const std::vector<char>& data) {
  store_.set(prefix_ + key, std::vector<uint8_t>(data.begin(), data.end()));
}

std::vector<char> GlooStoreAdapter::get(const std::string& key) {
  wait({key}, timeout_);
  const std::vector<uint8_t> v = store_.get(prefix_ + key, timeout_);
  return std::vector<char>(v.begin(), v.end());
}

void GlooStoreAdapter::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void GlooStoreAdapter::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& key : keys) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    try {
      store_.get(prefix_ + key, std::max(left, std::chrono::milliseconds(0)));
    } catch (const StoreUnreachable&) {
      throw;  // names the store's own process, whoever was awaited
    } catch (const Error&) {
      // Gloo's full-mesh rendezvous publishes each rank's addresses under the rank number.
      const bool is_rank = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return std::isdigit(c); });
      const std::string secs = std::to_string(timeout.count() / 1000.0);
      if (is_rank) throw Error("rank " + key + " lost: it did not join the world within " + secs + " s");
      throw Error("rendezvous key '" + prefix_ + key + "' was not set within " + secs + " s");
    }
  }
}

}  // namespace mg
