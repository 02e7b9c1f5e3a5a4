// PCIe link facts from sysfs. The link can train down at idle (a GPU reports Gen1 until it is busy), so both
// the current and the maximum speed and width are kept.
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string>

#include "topo/topo_parts.h"

namespace mg::topo {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (!f || !std::getline(f, s)) return "";
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

int read_int(const std::string& path, int fallback) {
  const std::string s = read_line(path);
  if (s.empty()) return fallback;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  return end == s.c_str() ? fallback : static_cast<int>(v);
}

}  // namespace

int pcie_gen_from_speed(const std::string& speed) {
  char* end = nullptr;
  const double gts = std::strtod(speed.c_str(), &end);
  if (end == speed.c_str()) return 0;
  // Per-lane transfer rates of PCIe generations 1..6.
  const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int g = 0; g < 6; ++g)
    if (gts > rates[g] * 0.9 && gts < rates[g] * 1.1) return g + 1;
  return 0;
}

std::string normalize_bus_id(const std::string& id) {
  std::string s;
  for (char c : id) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // "domain:bus:device.function": sysfs uses a 4-digit domain, NVML an 8-digit one.
  const size_t colon = s.find(':');
  if (colon == std::string::npos || s.find(':', colon + 1) == std::string::npos) return s;
  std::string domain = s.substr(0, colon);
  while (domain.size() > 4 && domain[0] == '0') domain.erase(0, 1);
  while (domain.size() < 4) domain.insert(0, "0");
  return domain + s.substr(colon);
}

PciFacts pci_facts(const std::string& sysfs_root, const std::string& bus_id) {
  PciFacts f;
  // Without a bus id every read below fails and the facts read as unknown, keeping the schema whole.
  const std::string dir =
      bus_id.empty() ? std::string("/nonexistent/") : sysfs_root + "/bus/pci/devices/" + normalize_bus_id(bus_id) + "/";
  f.numa_node = read_int(dir + "numa_node", -1);
  f.cpu_affinity = read_line(dir + "local_cpulist");
  const std::string cur = read_line(dir + "current_link_speed");
  const std::string max = read_line(dir + "max_link_speed");
  f.pcie = {{"current_speed", cur},
            {"max_speed", max},
            {"current_gen", pcie_gen_from_speed(cur)},
            {"max_gen", pcie_gen_from_speed(max)},
            {"current_width", read_int(dir + "current_link_width", 0)},
            {"max_width", read_int(dir + "max_link_width", 0)}};
  return f;
}

}  // namespace mg::topo
