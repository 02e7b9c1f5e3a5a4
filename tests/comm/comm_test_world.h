// Builds an in-process world of N CPU replicas, for the comm tests: transport "tcp" gives Gloo communicators,
// "auto" (what the trainer picks for replica threads) or "local" the shared-memory LocalCommunicator.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/world.h"

namespace mg::test {

struct CpuWorld {
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<Communicator>> comms;
  std::vector<Backend*> be() const {
    std::vector<Backend*> v;
    for (auto& b : backends) v.push_back(b.get());
    return v;
  }
  std::vector<Communicator*> cm() const {
    std::vector<Communicator*> v;
    for (auto& c : comms) v.push_back(c.get());
    return v;
  }
};

inline CpuWorld make_cpu_world(int n, double timeout_s = 20, const std::string& job = "test",
                               const std::string& transport = "tcp") {
  CpuWorld w;
  for (int i = 0; i < n; ++i) w.backends.push_back(make_backend(DeviceKind::Cpu, i, BackendOptions{1}));
  CommOptions opt;
  opt.library = "gloo";
  opt.timeout_s = timeout_s;
  opt.job_key = job;
  opt.transport = transport;
  w.comms = create_communicators(LaunchInfo{}, w.be(), opt);
  return w;
}

}  // namespace mg::test
