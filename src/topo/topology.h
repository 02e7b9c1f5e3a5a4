// What the machine looks like to a data-parallel job: GPUs and how they connect (NVLink, PCIe switch, host
// bridge, NUMA), the CPU/NUMA layout, and the network interfaces NCCL or Gloo could use. The JSON report is
// printed by `mgbench topo` and embedded in every result so a figure can be read against its hardware.
//
// Report schema (keys always present, so consumers need no existence checks):
//   host: string
//   nvml: {available: bool, driver_version: string, reason: string (why not available, else "")}
//   gpus: [{index, name, uuid, memory_bytes, pci_bus_id ("0000:1b:00.0", sysfs spelling), numa_node (-1 if
//           unknown), cpu_affinity ("0-15" or ""), pcie: {current_gen, current_width, max_gen, max_width,
//           current_speed, max_speed} (0 / "" where sysfs does not say)}]
//   gpu_matrix: N x N strings as nvidia-smi topo -m: "X", "NV<links>", "PIX", "PXB", "PHB", "NODE", "SYS"
//   p2p_read:   N x N strings as nvidia-smi topo -p2p r: "X", "OK", "CNS", "GNS", "TNS", "DIS", "NS", "U"
//   cpu:  {model, packages, cores, pus}
//   numa: [{os_index, memory_bytes, cpuset}]
//   network: {interfaces: [{name, addresses: [string], up, loopback, speed_mbps (-1 unknown), pci_bus_id,
//             numa_node, nccl_socket (would NCCL's socket transport consider it, given NCCL_SOCKET_IFNAME)}],
//             infiniband: [{name, pci_bus_id, numa_node, ports: [{port, state, rate, link_layer}]}]}
//   nics: [{name, pci_bus_id, numa_node}]: IB devices, then interfaces on a PCI device of their own
//   gpu_nic_matrix: GPUs x NICs, the classes of gpu_matrix without NV# (how close GPUDirect RDMA would be)
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace mg {

nlohmann::json discover_topology();

// Human text: summary lines, the GPU x GPU matrix in nvidia-smi topo -m style with its legend, GPU details,
// P2P status, NUMA nodes and network interfaces. Accepts any report following the schema above.
std::string format_topology(const nlohmann::json& report);

}  // namespace mg
