// In-process worlds of CPU replicas for the comm, train and check tests: one single-threaded CPU backend per
// replica and, where the world needs them, one communicator each.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/world.h"

namespace mg::test {

struct CpuWorld {
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<Communicator>> comms;  // empty: a replica trains alone, without one
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
  Communicator* comm(int i) const { return comms.empty() ? nullptr : comms[static_cast<size_t>(i)].get(); }
};

inline CpuWorld make_cpu_backends(int n) {
  CpuWorld w;
  for (int i = 0; i < n; ++i) w.backends.push_back(make_backend(DeviceKind::Cpu, i, BackendOptions{1}));
  return w;
}

inline void connect(CpuWorld& w, double timeout_s, const std::string& job, const std::string& transport) {
  CommOptions opt;
  opt.library = "gloo";
  opt.timeout_s = timeout_s;
  opt.job_key = job;
  opt.transport = kTransportNames.parse(transport, "test transport");  // spelled as on the command line
  w.comms = create_communicators(LaunchInfo{}, w.be(), opt);
}

// n replicas, all with communicators: transport "tcp" gives Gloo, "auto" (what the trainer picks for replica
// threads) or "local" the shared-memory LocalCommunicator.
inline CpuWorld make_cpu_world(int n, double timeout_s = 20, const std::string& job = "test",
                               const std::string& transport = "tcp") {
  CpuWorld w = make_cpu_backends(n);
  connect(w, timeout_s, job, transport);
  return w;
}

// n replicas as the trainer sets them up: communicators (transport "auto") only when there is more than one.
inline CpuWorld make_replica_world(int n, const std::string& job = "test") {
  CpuWorld w = make_cpu_backends(n);
  if (n > 1) connect(w, 60, job, "auto");
  return w;
}

}  // namespace mg::test
