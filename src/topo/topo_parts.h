// The pieces discover_topology() assembles, exposed separately so tests can point them at fakes
// (a missing NVML library, a crafted sysfs tree).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace mg::topo {

// {nvml, gpus, gpu_matrix, p2p_read} of the report; NVML is dlopen'ed from `library`. A library that cannot
// be loaded or initialised yields no GPUs and the reason, never an error.
nlohmann::json discover_gpus(const std::string& library = "libnvidia-ml.so.1",
                             const std::string& sysfs_root = "/sys");

// {cpu, numa} of the report, from hwloc.
nlohmann::json discover_cpu();

// The report's `network` section: getifaddrs plus /sys/class/net and /sys/class/infiniband under sysfs_root.
nlohmann::json discover_network(const std::string& sysfs_root = "/sys");

// PCIe facts of one device from <sysfs_root>/bus/pci/devices/<bus_id>/: the pcie object of the schema plus
// numa_node and cpu_affinity.
struct PciFacts {
  int numa_node = -1;
  std::string cpu_affinity;
  nlohmann::json pcie;
};
PciFacts pci_facts(const std::string& sysfs_root, const std::string& bus_id);

// PCIe generation of a link speed as sysfs writes it ("16.0 GT/s PCIe", "8 GT/s"); 0 when unrecognised.
int pcie_gen_from_speed(const std::string& speed);

// NVML spells bus ids "00000000:1B:00.0"; sysfs "0000:1b:00.0". Returns the sysfs spelling.
std::string normalize_bus_id(const std::string& id);

// nvidia-smi's link class ("PIX", "PXB", "PHB", "NODE", "SYS"; "?" when sysfs does not place both) between
// two PCI devices, from their positions in <sysfs_root>/devices. numa_* break the tie between host bridges.
std::string pci_distance(const std::string& sysfs_root, const std::string& a, const std::string& b, int numa_a,
                         int numa_b);

// {nics: [{name, pci_bus_id}], gpu_nic_matrix: GPUs x NICs}: the InfiniBand devices, then the network
// interfaces on a PCI device of their own, each placed relative to every GPU.
nlohmann::json gpu_nic_affinity(const nlohmann::json& gpus, const nlohmann::json& network,
                                const std::string& sysfs_root = "/sys");

// NCCL's NCCL_SOCKET_IFNAME rule: comma-separated prefixes, "^" to exclude, "=" for exact names; unset
// means every interface except docker* and lo.
bool nccl_socket_accepts(const std::string& ifname, const char* nccl_socket_ifname);

}  // namespace mg::topo
