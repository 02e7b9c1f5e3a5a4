// How many convolution layers run each algorithm, for the result: layers of several replicas count at once.
#pragma once
#include <map>
#include <mutex>
#include <string>

namespace mg {

class ConvAlgorithmTally {
 public:
  void count(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[name];
  }
  std::map<std::string, int> counts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, int> counts_;
};

}  // namespace mg
