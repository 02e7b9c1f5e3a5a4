#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "topo/topo_parts.h"
#include "topo/topology.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

}  // namespace

TEST_CASE("the report of this machine is complete JSON") {
  const json r = mg::discover_topology();
  const json back = json::parse(r.dump());  // survives a round trip, so it can be embedded in results
  CHECK(back == r);
  REQUIRE(r.contains("host"));
  CHECK_FALSE(r["host"].get<std::string>().empty());
  REQUIRE(r["cpu"].is_object());
  CHECK(r["cpu"]["pus"].get<int>() >= 1);
  CHECK(r["cpu"]["cores"].get<int>() >= 1);
  CHECK(r["cpu"]["packages"].get<int>() >= 1);
  REQUIRE(r["numa"].is_array());
  REQUIRE(r["numa"].size() >= 1);
  CHECK(r["numa"][0]["memory_bytes"].get<double>() > 0);
  CHECK_FALSE(r["numa"][0]["cpuset"].get<std::string>().empty());
  REQUIRE(r["network"]["interfaces"].is_array());
  bool saw_lo = false;
  for (const json& i : r["network"]["interfaces"])
    if (i["name"] == "lo") {
      saw_lo = true;
      CHECK(i["loopback"].get<bool>());
      CHECK_FALSE(i["nccl_socket"].get<bool>());
    }
  CHECK(saw_lo);
  REQUIRE(r["gpus"].is_array());
  const size_t n = r["gpus"].size();
  CHECK(r["gpu_matrix"].size() == n);
  CHECK(r["p2p_read"].size() == n);
  REQUIRE(r["nics"].is_array());
  CHECK(r["gpu_nic_matrix"].size() == n);
  if (n == 0) {
    // no GPU (this build machine): NVML either is absent, with the reason, or reports zero devices
    CHECK((!r["nvml"]["available"].get<bool>() == !r["nvml"]["reason"].get<std::string>().empty()));
    CHECK(mg::format_topology(r).find("GPUs: no GPUs") != std::string::npos);
  }
  for (size_t i = 0; i < n; ++i) {
    CHECK(r["gpu_matrix"][i].size() == n);
    CHECK(r["gpu_matrix"][i][i] == "X");
    CHECK_FALSE(r["gpus"][i]["pci_bus_id"].get<std::string>().empty());
  }
}

TEST_CASE("a missing NVML means no GPUs, not a failure") {
  const json g = mg::topo::discover_gpus("libmgbench-no-such-nvml.so.1");
  CHECK_FALSE(g["nvml"]["available"].get<bool>());
  CHECK(g["nvml"]["reason"].get<std::string>().find("cannot load libmgbench-no-such-nvml.so.1") == 0);
  CHECK(g["gpus"] == json::array());
  CHECK(g["gpu_matrix"] == json::array());
  json report = g;
  report["host"] = "h";
  const std::string text = mg::format_topology(report);
  CHECK(text.find("GPUs: no GPUs (cannot load libmgbench-no-such-nvml.so.1") != std::string::npos);
}

TEST_CASE("a library without NVML's entry points is refused") {
  const json g = mg::topo::discover_gpus("libm.so.6");
  CHECK_FALSE(g["nvml"]["available"].get<bool>());
  CHECK(g["nvml"]["reason"] == "libm.so.6 lacks the NVML entry points mgbench needs");
  CHECK(g["gpus"].empty());
}

TEST_CASE("PCIe facts come from sysfs") {
  mg::test::TempDir t("mg_topo");
  const std::string dev = "bus/pci/devices/0000:1b:00.0/";
  t.write(dev + "numa_node", "1");
  t.write(dev + "local_cpulist", "16-31");
  t.write(dev + "current_link_speed", "2.5 GT/s PCIe");
  t.write(dev + "max_link_speed", "32.0 GT/s PCIe");
  t.write(dev + "current_link_width", "16");
  t.write(dev + "max_link_width", "16");
  // NVML's spelling of the same device
  const mg::topo::PciFacts f = mg::topo::pci_facts(t.path(), "00000000:1B:00.0");
  CHECK(f.numa_node == 1);
  CHECK(f.cpu_affinity == "16-31");
  CHECK(f.pcie["current_gen"] == 1);
  CHECK(f.pcie["max_gen"] == 5);
  CHECK(f.pcie["current_width"] == 16);
  CHECK(f.pcie["max_speed"] == "32.0 GT/s PCIe");
  const mg::topo::PciFacts none = mg::topo::pci_facts(t.path(), "0000:99:00.0");
  CHECK(none.numa_node == -1);
  CHECK(none.pcie["max_gen"] == 0);
  CHECK(mg::topo::pcie_gen_from_speed("8 GT/s") == 3);
  CHECK(mg::topo::pcie_gen_from_speed("16.0 GT/s PCIe") == 4);
  CHECK(mg::topo::pcie_gen_from_speed("Unknown") == 0);
  CHECK(mg::topo::normalize_bus_id("00000001:C3:00.0") == "0001:c3:00.0");
  CHECK(mg::topo::normalize_bus_id("0000:3b:00.0") == "0000:3b:00.0");
}

TEST_CASE("InfiniBand ports are read from sysfs") {
  mg::test::TempDir t("mg_topo");
  t.write("class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE");
  t.write("class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)");
  t.write("class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand");
  const json net = mg::topo::discover_network(t.path());
  REQUIRE(net["infiniband"].size() == 1);
  CHECK(net["infiniband"][0]["name"] == "mlx5_0");
  CHECK(net["infiniband"][0]["ports"][0]["port"] == 1);
  CHECK(net["infiniband"][0]["ports"][0]["state"] == "4: ACTIVE");
  CHECK(net["infiniband"][0]["ports"][0]["rate"] == "400 Gb/sec (4X NDR)");
  const std::string text = mg::format_topology({{"network", net}});
  CHECK(text.find("mlx5_0 port 1: 4: ACTIVE, 400 Gb/sec (4X NDR), InfiniBand") != std::string::npos);
}

TEST_CASE("NCCL_SOCKET_IFNAME filtering follows NCCL's rules") {
  using mg::topo::nccl_socket_accepts;
  CHECK(nccl_socket_accepts("eth0", nullptr));
  CHECK_FALSE(nccl_socket_accepts("lo", nullptr));
  CHECK_FALSE(nccl_socket_accepts("docker0", ""));
  CHECK(nccl_socket_accepts("eth1", "eth"));
  CHECK_FALSE(nccl_socket_accepts("ib0", "eth,enp"));
  CHECK(nccl_socket_accepts("enp5s0", "eth,enp"));
  CHECK_FALSE(nccl_socket_accepts("eth0", "^eth"));
  CHECK(nccl_socket_accepts("ib0", "^eth"));
  CHECK(nccl_socket_accepts("eth0", "=eth0"));
  CHECK_FALSE(nccl_socket_accepts("eth01", "=eth0"));
}
