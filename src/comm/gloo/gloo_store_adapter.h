// Lets Gloo's rendezvous (connectFullMesh) run over an mg::Store, under a per-world key prefix, and turns
// "a rank never published its address" into an error that names that rank.
#pragma once
#include <chrono>
#include <string>

#include <gloo/rendezvous/store.h>

#include "comm/rendezvous/store.h"

namespace mg {

class GlooStoreAdapter final : public gloo::rendezvous::Store {
 public:
  GlooStoreAdapter(mg::Store& store, std::string prefix, std::chrono::milliseconds timeout);
  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

 private:
  mg::Store& store_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

}  // namespace mg
