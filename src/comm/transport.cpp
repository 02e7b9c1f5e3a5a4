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

bool known(const std::string& t) {
  return t == "auto" || t == "p2p" || t == "shm" || t == "net" || t == "tcp" || t == "local";
}

bool applies(const std::string& t, DeviceKind kind) {
  if (t == "auto") return true;
  return kind == DeviceKind::Cuda ? (t != "tcp" && t != "local") : (t == "tcp" || t == "local");
}

}  // namespace

std::vector<std::string> parse_transports(const std::string& list, DeviceKind kind) {
  const std::string allowed = kind == DeviceKind::Cuda ? kCudaTransports : kCpuTransports;
  std::vector<std::string> out;
  std::set<std::string> seen;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    const std::string t = list.substr(pos, comma - pos);
    if (t.empty()) throw UsageError("--transport '" + list + "' has an empty entry; allowed: " + allowed);
    if (!known(t)) throw UsageError("--transport '" + t + "' is unknown; allowed: " + allowed);
    if (!applies(t, kind)) {
      throw UsageError("--transport '" + t + "' does not apply to --device " + device_kind_name(kind) +
                       "; allowed: " + allowed);
    }
    if (!seen.insert(t).second) throw UsageError("--transport lists '" + t + "' twice");
    out.push_back(t);
    pos = comma + 1;
  }
  return out;
}

std::map<std::string, std::string> transport_env(const std::string& transport, DeviceKind kind) {
  if (!known(transport) || !applies(transport, kind)) {
    throw UsageError("--transport '" + transport + "' does not apply to --device " + device_kind_name(kind));
  }
  // Every forced entry sets all the switches it depends on, so a user's NCCL_* cannot blur the comparison.
  if (transport == "p2p") return {{"NCCL_P2P_DISABLE", "0"}, {"NCCL_SHM_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}};
  if (transport == "shm") return {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "0"}};
  if (transport == "net") return {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  return {};
}

ScopedTransport::ScopedTransport(const std::string& transport, DeviceKind kind)
    : name_(transport), vars_(transport_env(transport, kind)) {
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
