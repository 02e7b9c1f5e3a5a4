// The NVML path of GPU discovery, run against tests/topo/fake/fake_nvml.cpp (four GPUs, two NVLink pairs).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "topo/topo_parts.h"
#include "topo/topology.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Sets an environment variable for one scope (the fake reads it on every call).
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~ScopedEnv() { unsetenv(name); }
};

}  // namespace

TEST_CASE("GPUs, links and P2P status come from NVML") {
  char tmpl[] = "/tmp/mg_nvml_XXXXXX";
  const fs::path sys = mkdtemp(tmpl);
  const fs::path dev = sys / "bus/pci/devices/0000:1b:00.0";
  fs::create_directories(dev);
  std::ofstream(dev / "numa_node") << "0\n";
  std::ofstream(dev / "local_cpulist") << "0-15\n";
  std::ofstream(dev / "current_link_speed") << "32.0 GT/s PCIe\n";
  std::ofstream(dev / "current_link_width") << "16\n";
  std::ofstream(dev / "max_link_speed") << "32.0 GT/s PCIe\n";
  std::ofstream(dev / "max_link_width") << "16\n";

  const json g = mg::topo::discover_gpus(MG_FAKE_NVML, sys.string());
  fs::remove_all(sys);
  INFO(g.dump(1));
  CHECK(g["nvml"]["available"].get<bool>());
  CHECK(g["nvml"]["driver_version"] == "550.54.15");
  REQUIRE(g["gpus"].size() == 4);
  const json& g0 = g["gpus"][0];
  CHECK(g0["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(g0["uuid"] == "GPU-fake-0");
  CHECK(g0["memory_bytes"] == 85520809984ULL);
  CHECK(g0["pci_bus_id"] == "0000:1b:00.0");  // NVML's spelling mapped onto sysfs'
  CHECK(g0["numa_node"] == 0);
  CHECK(g0["cpu_affinity"] == "0-15");
  CHECK(g0["pcie"]["current_gen"] == 5);
  CHECK(g0["pcie"]["max_width"] == 16);
  CHECK(g["gpus"][3]["pci_bus_id"] == "0000:9b:00.0");
  CHECK(g["gpus"][3]["numa_node"] == -1);  // not in the fake sysfs
  const json want = {{"X", "NV4", "PXB", "SYS"}, {"NV4", "X", "NODE", "PHB"}, {"PXB", "NODE", "X", "NV2"},
                     {"SYS", "PHB", "NV2", "X"}};
  CHECK(g["gpu_matrix"] == want);
  const json p2p = {{"X", "OK", "OK", "NS"}, {"OK", "X", "NS", "TNS"}, {"OK", "NS", "X", "OK"},
                    {"NS", "TNS", "OK", "X"}};
  CHECK(g["p2p_read"] == p2p);
}

TEST_CASE("NVSwitch links count for every GPU pair") {
  ScopedEnv sw("FAKE_NVML_NVSWITCH", "1");
  const json g = mg::topo::discover_gpus(MG_FAKE_NVML, "/nonexistent");
  REQUIRE(g["gpu_matrix"].size() == 4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) CHECK(g["gpu_matrix"][i][j] == (i == j ? "X" : "NV18"));
}

TEST_CASE("an NVML that fails to initialise means no GPUs, with the reason") {
  ScopedEnv fail("FAKE_NVML_INIT_FAIL", "1");
  const json g = mg::topo::discover_gpus(MG_FAKE_NVML, "/nonexistent");
  CHECK_FALSE(g["nvml"]["available"].get<bool>());
  CHECK(g["nvml"]["reason"] == "nvmlInit failed: Driver Not Loaded");
  CHECK(g["gpus"].empty());
}
