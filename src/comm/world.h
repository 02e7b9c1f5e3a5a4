// Who the replicas of this job are and how their communicators are bootstrapped.
//
// Ranks: a process drives `local` replicas (threads); under a launcher (mpirun, srun, torchrun-style env)
// there are world_size processes, and global rank = process_rank * local + local_index.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/communicator.h"
#include "comm/rendezvous/launch.h"
#include "core/transport_kind.h"

namespace mg {

struct CommOptions {
  std::string library = "gloo";  // nccl | gloo
  double timeout_s = 300;         // a lost peer fails every collective within this
  std::string gloo_iface;         // network interface for Gloo's TCP transport ("" = loopback/hostname)
  // CPU only: Auto joins replicas that are threads of one process through shared memory (LocalCommunicator)
  // and processes through Gloo's TCP; Local insists on the former, Tcp on Gloo for every rank. NCCL's transports
  // are set through the environment (ScopedTransport) before the communicators are created.
  Transport transport = Transport::Auto;
  std::string job_key = "mgbench";  // distinguishes successive worlds (sweep entries) on one store
  // The run's options as "key=value" lines; processes whose lines differ fail with a UsageError, before any
  // collective, that names the differing options.
  std::string config_fingerprint;
};

// Creates one communicator per local backend, all in one world of launch.world_size * backends.size() ranks.
// Collective across processes: every process must call it with the same job_key and local count.
std::vector<std::unique_ptr<Communicator>> create_communicators(const LaunchInfo& launch,
                                                                const std::vector<Backend*>& local_backends,
                                                                const CommOptions& opt);

}  // namespace mg
