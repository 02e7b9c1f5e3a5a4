// Which NICs each GPU sits close to, for the NIC columns of the topology matrix.
#include <set>

#include "topo/topo_parts.h"

namespace mg::topo {

nlohmann::json gpu_nic_affinity(const nlohmann::json& gpus, const nlohmann::json& network,
                                const std::string& sysfs_root) {
  nlohmann::json nics = nlohmann::json::array();
  std::set<std::string> seen;  // an IB device and its netdev (ib0) share one PCI function: list it once
  auto add = [&](const nlohmann::json& list) {
    for (const auto& d : list) {
      const std::string pci = d.value("pci_bus_id", "");
      if (pci.empty() || !seen.insert(pci).second) continue;
      nics.push_back({{"name", d.value("name", "")}, {"pci_bus_id", pci}, {"numa_node", d.value("numa_node", -1)}});
    }
  };
  add(network.value("infiniband", nlohmann::json::array()));
  add(network.value("interfaces", nlohmann::json::array()));
  nlohmann::json matrix = nlohmann::json::array();
  for (const auto& g : gpus) {
    nlohmann::json row = nlohmann::json::array();
    for (const auto& n : nics)
      row.push_back(pci_distance(sysfs_root, g.value("pci_bus_id", ""), n["pci_bus_id"], g.value("numa_node", -1),
                                 n["numa_node"].get<int>()));
    matrix.push_back(row);
  }
  return {{"nics", nics}, {"gpu_nic_matrix", matrix}};
}

}  // namespace mg::topo
