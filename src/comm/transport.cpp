#include "comm/transport.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <unistd.h>  // environ

#include "core/error.h"

namespace mg {
namespace {

const char* kCudaTransports = "auto, p2p, shm, net";
const char* kCpuTransports = "auto, local, tcp";

bool applies(Transport t, DeviceKind kind) {
  if (t == Transport::Auto) return true;
  const bool cpu_only = t == Transport::Tcp || t == Transport::Local;
  return kind == DeviceKind::Cuda ? !cpu_only : cpu_only;
}

}  // namespace

std::vector<Transport> parse_transports(const std::string& list, DeviceKind kind) {
  const std::string allowed = kind == DeviceKind::Cuda ? kCudaTransports : kCpuTransports;
  std::vector<Transport> out;
  std::set<Transport> seen;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    const std::string t = list.substr(pos, comma - pos);
    if (t.empty()) throw UsageError("--transport '" + list + "' has an empty entry; allowed: " + allowed);
    Transport parsed{};
    if (!kTransportNames.find(t, parsed)) throw UsageError("--transport '" + t + "' is unknown; allowed: " + allowed);
    if (!applies(parsed, kind)) {
      throw UsageError("--transport '" + t + "' does not apply to --device " + device_kind_name(kind) +
                       "; allowed: " + allowed);
    }
    if (!seen.insert(parsed).second) throw UsageError("--transport lists '" + t + "' twice");
    out.push_back(parsed);
    pos = comma + 1;
  }
  return out;
}

std::map<std::string, std::string> TransportEnv::recorded() const {
  std::map<std::string, std::string> all = set;
  all.insert(kept.begin(), kept.end());
  return all;
}

TransportEnv transport_env(Transport transport, DeviceKind kind, const std::map<std::string, std::string>& current) {
  if (!applies(transport, kind)) {
    throw UsageError(std::string("--transport '") + transport_name(transport) + "' does not apply to --device " +
                     device_kind_name(kind));
  }
  // Every forced entry sets all the switches it depends on, so a user's NCCL_* cannot blur the comparison.
  TransportEnv env;
  switch (transport) {
    case Transport::P2p:
      env.set = {{"NCCL_P2P_DISABLE", "0"}, {"NCCL_SHM_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}};
      break;
    case Transport::Shm: env.set = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "0"}}; break;
    case Transport::Net: env.set = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}}; break;
    case Transport::Auto:
    case Transport::Tcp:
    case Transport::Local: break;
  }
  // NVLS (NVSwitch multicast) and CollNet (in-network reduction) bypass P2P/SHM switches; an explicit user choice
  // is theirs to make and is recorded as in force.
  if (transport == Transport::Shm || transport == Transport::Net) {
    for (const char* var : {"NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE"}) {
      const auto user = current.find(var);
      if (user != current.end()) {
        env.kept[var] = user->second;
      } else {
        env.set[var] = "0";
      }
    }
  }
  return env;
}

ScopedTransport::ScopedTransport(Transport transport, DeviceKind kind)
    : env_(transport_env(transport, kind, nccl_environment())) {
  for (const auto& [k, v] : env_.set) {
    const char* old = std::getenv(k.c_str());
    saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
    setenv(k.c_str(), v.c_str(), 1);
  }
  for (const auto& [k, v] : env_.kept)
    std::fprintf(stderr, "mgbench: --transport %s keeps %s=%s from the environment (recorded in the result)\n",
                 transport_name(transport), k.c_str(), v.c_str());
}

ScopedTransport::~ScopedTransport() {
  for (const auto& [k, v] : saved_) {
    if (v) {
      setenv(k.c_str(), v->c_str(), 1);
    } else {
      unsetenv(k.c_str());
    }
  }
}

std::map<std::string, std::string> nccl_environment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "NCCL_", 5) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    if (eq) out[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  return out;
}

}  // namespace mg
