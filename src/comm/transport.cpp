#include "comm/transport.h"

#include <cstdlib>
#include <cstring>
#include <set>

#include "core/error.h"

extern char** environ;

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

std::map<std::string, std::string> transport_env(Transport transport, DeviceKind kind) {
  if (!applies(transport, kind)) {
    throw UsageError(std::string("--transport '") + transport_name(transport) + "' does not apply to --device " +
                     device_kind_name(kind));
  }
  // Every forced entry sets all the switches it depends on, so a user's NCCL_* cannot blur the comparison.
  switch (transport) {
    case Transport::P2p: return {{"NCCL_P2P_DISABLE", "0"}, {"NCCL_SHM_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}};
    case Transport::Shm: return {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "0"}};
    case Transport::Net: return {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
    case Transport::Auto:
    case Transport::Tcp:
    case Transport::Local: return {};
  }
  return {};
}

ScopedTransport::ScopedTransport(Transport transport, DeviceKind kind) : vars_(transport_env(transport, kind)) {
  for (const auto& [k, v] : vars_) {
    const char* old = std::getenv(k.c_str());
    saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
    setenv(k.c_str(), v.c_str(), 1);
  }
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
