// GPU-to-NIC distances from the PCI tree in sysfs, on a crafted tree:
//   pci0000:17 ─ 17:00.0 (root port) ─ 18:00.0 (switch up) ┬ 19:01.0 ─ 1b:00.0  GPU A
//                                                          ├ 19:02.0 ─ 1c:00.0  NIC (mlx5_0, netdev ib0)
//                                                          └ 19:03.0 ─ 40:00.0 (switch up) ─ 41:01.0 ─ 42:00.0  GPU B
//              └ 17:02.0 (root port) ─ 30:00.0  GPU C
//   pci0000:80 ─ 80:01.0 ─ 81:00.0  GPU D (NUMA 1)
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "topo/topo_parts.h"
#include "topo/topology.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct FakePciTree {
  mg::test::TempDir dir{"mg_pci"};
  fs::path root{dir.path()};
  FakePciTree() {
    fs::create_directories(root / "bus/pci/devices");
    add("pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:01.0/0000:1b:00.0");
    add("pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:02.0/0000:1c:00.0");
    add("pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:03.0/0000:40:00.0/0000:41:01.0/0000:42:00.0");
    add("pci0000:17/0000:17:02.0/0000:30:00.0");
    add("pci0000:80/0000:80:01.0/0000:81:00.0");
    // the IB device and its netdev point at the NIC's PCI function, as the kernel's links do
    fs::create_directories(root / "class/infiniband/mlx5_0");
    fs::create_symlink("../../../devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:02.0/0000:1c:00.0",
                       root / "class/infiniband/mlx5_0/device");
    std::ofstream(root / "devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:02.0/0000:1c:00.0/numa_node")
        << "0\n";
  }
  void add(const std::string& path) {
    fs::create_directories(root / "devices" / path);
    const std::string id = fs::path(path).filename().string();
    fs::create_symlink("../../../devices/" + path, root / "bus/pci/devices" / id);
  }
};

}  // namespace

TEST_CASE("PCI distance classes follow the tree") {
  FakePciTree t;
  const std::string s = t.root.string();
  using mg::topo::pci_distance;
  CHECK(pci_distance(s, "0000:1b:00.0", "0000:1c:00.0", 0, 0) == "PIX");  // one switch between them
  CHECK(pci_distance(s, "00000000:1B:00.0", "0000:1c:00.0", 0, 0) == "PIX");  // NVML spelling
  CHECK(pci_distance(s, "0000:42:00.0", "0000:1c:00.0", 0, 0) == "PXB");  // through a second switch
  CHECK(pci_distance(s, "0000:30:00.0", "0000:1c:00.0", 0, 0) == "PHB");  // only the host bridge in common
  CHECK(pci_distance(s, "0000:81:00.0", "0000:1c:00.0", 1, 0) == "SYS");  // across sockets
  CHECK(pci_distance(s, "0000:81:00.0", "0000:1c:00.0", 0, 0) == "NODE");  // other host bridge, same node
  CHECK(pci_distance(s, "0000:99:00.0", "0000:1c:00.0", 0, 0) == "?");
}

TEST_CASE("NICs are placed against every GPU, IB devices first and once") {
  FakePciTree t;
  const json gpus = {{{"pci_bus_id", "0000:1b:00.0"}, {"numa_node", 0}},
                     {{"pci_bus_id", "0000:81:00.0"}, {"numa_node", 1}}};
  const json network = mg::topo::discover_network(t.root.string());
  REQUIRE(network["infiniband"].size() == 1);
  CHECK(network["infiniband"][0]["pci_bus_id"] == "0000:1c:00.0");
  CHECK(network["infiniband"][0]["numa_node"] == 0);
  json net = network;
  // ib0, the netdev of the same function, and a NIC of its own on another host bridge
  net["interfaces"] = {{{"name", "ib0"}, {"pci_bus_id", "0000:1c:00.0"}, {"numa_node", 0}},
                       {{"name", "eth9"}, {"pci_bus_id", "0000:30:00.0"}, {"numa_node", 0}},
                       {{"name", "lo"}, {"pci_bus_id", ""}, {"numa_node", -1}}};
  const json a = mg::topo::gpu_nic_affinity(gpus, net, t.root.string());
  REQUIRE(a["nics"].size() == 2);
  CHECK(a["nics"][0]["name"] == "mlx5_0");
  CHECK(a["nics"][1]["name"] == "eth9");
  CHECK(a["gpu_nic_matrix"] == json::array({json::array({"PIX", "PHB"}), json::array({"SYS", "SYS"})}));
}
