#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "topo/topology.h"

using nlohmann::json;

namespace {

// A DGX-like box: GPU pairs 0-1 and 2-3 on NVLink, across pairs PCIe switch or the inter-socket link.
json four_gpus() {
  json gpus = json::array();
  for (int i = 0; i < 4; ++i)
    gpus.push_back({{"index", i},
                    {"name", "NVIDIA H100 80GB HBM3"},
                    {"uuid", "GPU-" + std::to_string(i)},
                    {"memory_bytes", 85520809984.0},
                    {"pci_bus_id", "0000:" + std::to_string(10 + i) + ":00.0"},
                    {"numa_node", i / 2},
                    {"cpu_affinity", i < 2 ? "0-15" : "16-31"},
                    {"pcie",
                     {{"current_gen", 5}, {"current_width", 16}, {"max_gen", 5}, {"max_width", 16},
                      {"current_speed", "32.0 GT/s PCIe"}, {"max_speed", "32.0 GT/s PCIe"}}}});
  return {{"host", "node7"},
          {"nvml", {{"available", true}, {"driver_version", "550.54.15"}, {"reason", ""}}},
          {"gpus", gpus},
          {"gpu_matrix",
           {{"X", "NV4", "PXB", "SYS"}, {"NV4", "X", "SYS", "PXB"}, {"PXB", "SYS", "X", "NV12"},
            {"SYS", "PXB", "NV12", "X"}}},
          {"p2p_read", {{"X", "OK", "OK", "NS"}, {"OK", "X", "NS", "OK"}, {"OK", "NS", "X", "OK"},
                        {"NS", "OK", "OK", "X"}}},
          {"nics", {{{"name", "mlx5_0"}, {"pci_bus_id", "0000:0c:00.0"}, {"numa_node", 0}},
                    {{"name", "mlx5_1"}, {"pci_bus_id", "0000:8c:00.0"}, {"numa_node", 1}}}},
          // json::array: a braced pair of strings would read as an object member
          {"gpu_nic_matrix", json::array({json::array({"PIX", "SYS"}), json::array({"PXB", "SYS"}),
                                          json::array({"SYS", "PIX"}), json::array({"SYS", "PXB"})})},
          {"cpu", {{"model", "Test CPU"}, {"packages", 2}, {"cores", 32}, {"pus", 64}}},
          {"numa", {{{"os_index", 0}, {"memory_bytes", 1073741824.0 * 256}, {"cpuset", "0-15"}},
                    {{"os_index", 1}, {"memory_bytes", 1073741824.0 * 256}, {"cpuset", "16-31"}}}},
          {"network",
           {{"interfaces",
             {{{"name", "lo"}, {"addresses", {"127.0.0.1"}}, {"up", true}, {"loopback", true}, {"speed_mbps", -1},
               {"pci_bus_id", ""}, {"numa_node", -1}, {"nccl_socket", false}},
              {{"name", "ens1"}, {"addresses", {"10.1.2.3"}}, {"up", true}, {"loopback", false},
               {"speed_mbps", 100000}, {"pci_bus_id", "0000:0c:00.0"}, {"numa_node", 0}, {"nccl_socket", true}}}},
            {"infiniband", json::array()}}}};
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The first line whose first word is `first`, after the line that contains `after`.
std::string line_starting(const std::string& text, const std::string& first, const std::string& after) {
  bool armed = after.empty();
  for (const std::string& l : lines(text)) {
    if (!armed) {
      armed = l.find(after) != std::string::npos;
      continue;
    }
    const auto w = words(l);
    if (!w.empty() && w[0] == first) return l;
  }
  return "";
}

}  // namespace

TEST_CASE("the GPU matrix reads like nvidia-smi topo -m") {
  const std::string text = mg::format_topology(four_gpus());
  INFO(text);
  const std::string head = line_starting(text, "GPU0", "GPUs: 4 (driver 550.54.15)");
  CHECK(words(head) == std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "NIC0", "NIC1", "CPU",
                                                 "Affinity", "NUMA", "Affinity"});
  const std::string row0 = line_starting(text, "GPU0", head);
  const std::string row2 = line_starting(text, "GPU2", head);
  CHECK(words(row0) == std::vector<std::string>{"GPU0", "X", "NV4", "PXB", "SYS", "PIX", "SYS", "0-15", "0"});
  CHECK(words(row2) == std::vector<std::string>{"GPU2", "PXB", "SYS", "X", "NV12", "SYS", "PIX", "16-31", "1"});
  CHECK(row2.find("PIX") == head.find("NIC1"));
  // columns line up under their headers
  CHECK(row0.find("NV4") == head.find("GPU1"));
  CHECK(row2.find("NV12") == head.find("GPU3"));
  CHECK(row0.find("0-15") == head.find("CPU Affinity"));
  CHECK(text.find("  NV#  = Connection traversing a bonded set of # NVLinks") != std::string::npos);
  CHECK(text.find("  PXB  = Connection traversing multiple PCIe bridges") != std::string::npos);
  CHECK(text.find("NIC Legend:\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n") != std::string::npos);
}

TEST_CASE("the text report carries P2P, GPU details, NUMA and network") {
  const std::string text = mg::format_topology(four_gpus());
  INFO(text);
  CHECK(words(line_starting(text, "GPU3", "P2P read:")) ==
        std::vector<std::string>{"GPU3", "NS", "OK", "OK", "X"});
  CHECK(words(line_starting(text, "GPU1", "(OK supported")) ==
        std::vector<std::string>{"GPU1", "NVIDIA", "H100", "80GB", "HBM3", "79.6", "GiB", "0000:11:00.0", "NUMA",
                                 "0", "PCIe", "Gen5", "x16", "(max", "Gen5", "x16)"});
  CHECK(text.find("Host: node7\n") == 0);
  CHECK(text.find("CPU: Test CPU, 2 package(s), 32 core(s), 64 PU(s)") != std::string::npos);
  CHECK(text.find("NUMA node 1: 256.0 GiB, CPUs 16-31") != std::string::npos);
  CHECK(words(line_starting(text, "ens1", "Network interfaces:")) ==
        std::vector<std::string>{"ens1", "up", "100000", "Mb/s", "10.1.2.3", "pci", "0000:0c:00.0", "NUMA", "0",
                                 "[NCCL", "socket]"});
  CHECK(words(line_starting(text, "lo", "Network interfaces:")) ==
        std::vector<std::string>{"lo", "up", "loopback", "127.0.0.1"});
  CHECK(text.find("InfiniBand: none") != std::string::npos);
}

TEST_CASE("a report without GPUs says so") {
  json r = four_gpus();
  r["gpus"] = json::array();
  r["gpu_matrix"] = json::array();
  r["p2p_read"] = json::array();
  r["nvml"] = {{"available", false}, {"driver_version", ""}, {"reason", "cannot load libnvidia-ml.so.1"}};
  const std::string text = mg::format_topology(r);
  CHECK(text.find("GPUs: no GPUs (cannot load libnvidia-ml.so.1)") != std::string::npos);
  CHECK(text.find("Legend") == std::string::npos);
  // and an empty object still formats (every section reads as absent)
  CHECK(mg::format_topology(json::object()).find("GPUs: no GPUs") != std::string::npos);
}
