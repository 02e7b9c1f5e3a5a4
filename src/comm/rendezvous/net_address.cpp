#include "comm/rendezvous/net_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "core/error.h"

namespace mg {

std::string resolve_ipv4(const std::string& host, const std::string& what) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) throw UsageError(what + " '" + host + "' does not resolve: " + gai_strerror(rc));
  char buf[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, buf, sizeof(buf));
  freeaddrinfo(res);
  return buf;
}

std::string local_ipv4_towards(const std::string& host) {
  const std::string ip = resolve_ipv4(host, "MASTER_ADDR");
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) throw Error(std::string("socket() failed: ") + std::strerror(errno));
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(9);  // any port: a UDP connect only consults the routing table
  inet_pton(AF_INET, ip.c_str(), &dst.sin_addr);
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof(dst)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0;
  const int err = errno;
  close(fd);
  if (!ok) throw Error("no route to MASTER_ADDR " + host + ": " + std::strerror(err));
  char buf[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, &local.sin_addr, buf, sizeof(buf));
  return buf;
}

std::string interface_ipv4(const std::string& iface, const std::string& option) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throw Error(std::string("getifaddrs failed: ") + std::strerror(errno));
  std::string found;
  bool exists = false;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (iface != a->ifa_name) continue;
    exists = true;
    if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET) {
      char buf[INET_ADDRSTRLEN] = {0};
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof(buf));
      found = buf;
      break;
    }
  }
  freeifaddrs(list);
  if (!exists) throw UsageError(option + " '" + iface + "': no such network interface");
  if (found.empty()) throw UsageError(option + " '" + iface + "' has no IPv4 address");
  return found;
}

}  // namespace mg
