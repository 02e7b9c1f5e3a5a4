// Transport selection (--transport auto,p2p,shm,net,tcp,local): which path a communicator's bytes take.
// NCCL picks its transport at init from environment variables, so each entry is a set of NCCL_* values applied
// by a ScopedTransport for as long as the communicators are created and used, then restored. On --device cpu
// "local" (replica threads of one process through shared memory) and "tcp" (Gloo over loopback or
// --gloo-iface) are chosen by create_communicators (CommOptions::transport), not by the environment; "auto"
// means local within a process and tcp between processes.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/transport_kind.h"

namespace mg {

// Splits and validates a comma list for the device kind; throws UsageError naming the option and the allowed
// values for an unknown entry, one that cannot apply to the device, an empty entry or a duplicate.
std::vector<Transport> parse_transports(const std::string& list, DeviceKind kind);
// What an entry does to NCCL's environment. shm and net also turn NVLink SHARP (NVLS) and CollNet off, so their
// rows cannot ride NVSwitch or in-network reduction; a user who set one of those keeps it (kept, recorded).
struct TransportEnv {
  std::map<std::string, std::string> set;   // values the entry puts in force
  std::map<std::string, std::string> kept;  // the user's values of variables the entry would have set
  std::map<std::string, std::string> recorded() const;  // set and kept: what the entry runs under
};
// Pure: the transport and the NCCL_* variables already set (`current`) give the entry's settings (empty for auto
// and for the CPU's tcp and local). UsageError when the transport does not apply to the device kind.
TransportEnv transport_env(Transport transport, DeviceKind kind, const std::map<std::string, std::string>& current);

class ScopedTransport {
 public:
  ScopedTransport(Transport transport, DeviceKind kind);
  ~ScopedTransport();  // puts back the previous values (unset where they were unset)
  ScopedTransport(const ScopedTransport&) = delete;
  ScopedTransport& operator=(const ScopedTransport&) = delete;
  // What the entry runs under: the values it set and the user's it kept (TransportEnv::recorded).
  std::map<std::string, std::string> vars() const { return env_.recorded(); }
  const TransportEnv& env() const { return env_; }

 private:
  TransportEnv env_;
  std::map<std::string, std::optional<std::string>> saved_;
};

// NCCL_* variables currently set (what a run records when --transport was not given).
std::map<std::string, std::string> nccl_environment();

}  // namespace mg
