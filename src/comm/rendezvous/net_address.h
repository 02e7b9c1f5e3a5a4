// IPv4 address helpers for choosing where the store listens and which interface Gloo binds: resolving a
// host name, the local address the kernel would use to reach a host, and an interface's address.
#pragma once
#include <string>

namespace mg {

// Dotted IPv4 address of host (a name or a literal). Throws UsageError naming `what` if it does not resolve.
std::string resolve_ipv4(const std::string& host, const std::string& what);
// The local address on the route towards host (a connected UDP socket, so no packet is sent).
std::string local_ipv4_towards(const std::string& host);
// IPv4 address of a network interface; throws UsageError naming the option if it has none.
std::string interface_ipv4(const std::string& iface, const std::string& option);

}  // namespace mg
