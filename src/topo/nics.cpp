// Network interfaces as the communication libraries see them: getifaddrs for names, addresses and flags,
// sysfs for link speed and the PCI device (so a NIC's NUMA node can be set against the GPUs'), and the
// InfiniBand devices NCCL's IB transport would use.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "topo/topo_parts.h"

namespace mg::topo {

namespace fs = std::filesystem;

namespace {

std::string read_line(const fs::path& p) {
  std::ifstream f(p);
  std::string s;
  if (!f || !std::getline(f, s)) return "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<std::string> sorted_entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool looks_like_pci_id(const std::string& s) {
  return std::count(s.begin(), s.end(), ':') == 2 && s.find('.') != std::string::npos;
}

std::string address_text(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof(buf));
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf, sizeof(buf));
  return buf;
}

nlohmann::json interface_entry(const std::string& name, unsigned flags, const fs::path& net) {
  const fs::path dir = net / name;
  // Virtual and down links refuse to report a speed (EINVAL) or report -1; both read as unknown.
  const std::string speed = read_line(dir / "speed");
  long mbps = -1;
  if (!speed.empty()) {
    char* end = nullptr;
    mbps = std::strtol(speed.c_str(), &end, 10);
    if (end == speed.c_str() || mbps <= 0) mbps = -1;
  }
  std::string pci;
  int numa = -1;
  std::error_code ec;
  const fs::path dev = fs::read_symlink(dir / "device", ec);
  if (!ec && looks_like_pci_id(dev.filename().string())) {
    pci = dev.filename().string();
    const std::string n = read_line(dir / "device" / "numa_node");
    if (!n.empty()) numa = std::atoi(n.c_str());
  }
  return {{"name", name},
          {"addresses", nlohmann::json::array()},
          {"up", (flags & IFF_UP) != 0},
          {"loopback", (flags & IFF_LOOPBACK) != 0},
          {"speed_mbps", mbps},
          {"pci_bus_id", pci},
          {"numa_node", numa},
          {"nccl_socket", (flags & IFF_UP) && nccl_socket_accepts(name, std::getenv("NCCL_SOCKET_IFNAME"))}};
}

}  // namespace

bool nccl_socket_accepts(const std::string& ifname, const char* spec) {
  std::string list = (spec && *spec) ? spec : "^docker,lo";
  bool exclude = false;
  if (list[0] == '^') {
    exclude = true;
    list.erase(0, 1);
  }
  bool exact = false;
  if (!list.empty() && list[0] == '=') {
    exact = true;
    list.erase(0, 1);
  }
  bool matched = false;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    if (!item.empty() && (exact ? ifname == item : ifname.compare(0, item.size(), item) == 0)) matched = true;
    start = comma + 1;
  }
  return exclude ? !matched : matched;
}

nlohmann::json discover_network(const std::string& sysfs_root) {
  const fs::path net = fs::path(sysfs_root) / "class" / "net";
  nlohmann::json interfaces = nlohmann::json::array();
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_name) continue;
      auto it = std::find_if(interfaces.begin(), interfaces.end(),
                             [&](const nlohmann::json& j) { return j["name"] == a->ifa_name; });
      if (it == interfaces.end()) {
        interfaces.push_back(interface_entry(a->ifa_name, a->ifa_flags, net));
        it = interfaces.end() - 1;
      }
      if (a->ifa_addr && (a->ifa_addr->sa_family == AF_INET || a->ifa_addr->sa_family == AF_INET6)) {
        const std::string text = address_text(a->ifa_addr);
        if (!text.empty()) (*it)["addresses"].push_back(text);
      }
    }
    freeifaddrs(list);
  }

  nlohmann::json ib = nlohmann::json::array();
  const fs::path ibdir = fs::path(sysfs_root) / "class" / "infiniband";
  for (const std::string& dev : sorted_entries(ibdir)) {
    nlohmann::json ports = nlohmann::json::array();
    for (const std::string& port : sorted_entries(ibdir / dev / "ports")) {
      const fs::path p = ibdir / dev / "ports" / port;
      ports.push_back({{"port", std::atoi(port.c_str())},
                       {"state", read_line(p / "state")},
                       {"rate", read_line(p / "rate")},
                       {"link_layer", read_line(p / "link_layer")}});
    }
    std::error_code ec;
    const fs::path pci = fs::read_symlink(ibdir / dev / "device", ec);
    const bool on_pci = !ec && looks_like_pci_id(pci.filename().string());
    const std::string node = on_pci ? read_line(ibdir / dev / "device" / "numa_node") : "";
    ib.push_back({{"name", dev},
                  {"pci_bus_id", on_pci ? pci.filename().string() : ""},
                  {"numa_node", node.empty() ? -1 : std::atoi(node.c_str())},
                  {"ports", ports}});
  }
  return {{"interfaces", interfaces}, {"infiniband", ib}};
}

}  // namespace mg::topo
