// How far apart two PCI devices sit, from where sysfs places them in the PCI tree: the same question NVML's
// common-ancestor call answers for two GPUs, asked here for a GPU and a NIC (GPUDirect RDMA is only fast when
// they share a PCIe switch). NCCL reads the same sysfs paths for its own topology.
#include <filesystem>
#include <vector>

#include "topo/topo_parts.h"

namespace mg::topo {

namespace fs = std::filesystem;

namespace {

// "/sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:1b:00.0" -> its components from the root complex.
std::vector<std::string> tree_path(const std::string& sysfs_root, const std::string& bus_id) {
  std::error_code ec;
  const fs::path p = fs::canonical(fs::path(sysfs_root) / "bus/pci/devices" / normalize_bus_id(bus_id), ec);
  std::vector<std::string> parts;
  if (ec) return parts;
  bool in_tree = false;
  for (const fs::path& c : p) {
    const std::string s = c.string();
    if (!in_tree && s.rfind("pci", 0) == 0 && s.find(':') != std::string::npos) in_tree = true;
    if (in_tree) parts.push_back(s);
  }
  return parts;
}

}  // namespace

std::string pci_distance(const std::string& sysfs_root, const std::string& a, const std::string& b, int numa_a,
                         int numa_b) {
  const std::vector<std::string> pa = tree_path(sysfs_root, a), pb = tree_path(sysfs_root, b);
  if (pa.empty() || pb.empty()) return "?";
  if (pa[0] != pb[0]) return numa_a == numa_b ? "NODE" : "SYS";  // different host bridges
  size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) ++common;
  if (common == 1) return "PHB";  // they meet only at the host bridge
  // Below one switch the two paths are a downstream port and the device each; anything longer crosses
  // another switch on the way.
  return pa.size() - common <= 2 && pb.size() - common <= 2 ? "PIX" : "PXB";
}

}  // namespace mg::topo
