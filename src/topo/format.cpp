// The text form of a topology report. The GPU matrix and its legend follow `nvidia-smi topo -m`, which is what
// people who tune NCCL already read; the report's JSON carries the same facts for tools.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "topo/topology.h"

namespace mg {

namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

template <typename T>
T num(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<T>() : fallback;
}

const json& arr(const json& j, const char* key) {
  static const json empty = json::array();
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

// A left-aligned table whose columns are as wide as their widest cell.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t c = 0; c < r.size(); ++c) line += c + 1 < r.size() ? fmt::format("{:<{}}  ", r[c], width[c]) : r[c];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// GPU rows; columns GPUs, then NICs (as many as nic_matrix rows have), then CPU/NUMA affinity if asked.
std::string matrix(const json& m, const json& gpus, bool affinity, const json& nic_matrix = json::array()) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{""};
  for (size_t j = 0; j < m.size(); ++j) head.push_back("GPU" + std::to_string(j));
  const size_t nics = nic_matrix.empty() || !nic_matrix[0].is_array() ? 0 : nic_matrix[0].size();
  for (size_t j = 0; j < nics; ++j) head.push_back("NIC" + std::to_string(j));
  if (affinity) {
    head.push_back("CPU Affinity");
    head.push_back("NUMA Affinity");
  }
  rows.push_back(head);
  for (size_t i = 0; i < m.size(); ++i) {
    std::vector<std::string> r{"GPU" + std::to_string(i)};
    for (const json& cell : m[i]) r.push_back(cell.is_string() ? cell.get<std::string>() : "?");
    for (size_t j = 0; j < nics; ++j) {
      const json& cell = i < nic_matrix.size() && j < nic_matrix[i].size() ? nic_matrix[i][j] : json();
      r.push_back(cell.is_string() ? cell.get<std::string>() : "?");
    }
    if (affinity) {
      const json& g = i < gpus.size() ? gpus[i] : json::object();
      const std::string cpus = str(g, "cpu_affinity");
      const int node = num<int>(g, "numa_node", -1);
      r.push_back(cpus.empty() ? "N/A" : cpus);
      r.push_back(node < 0 ? "N/A" : std::to_string(node));
    }
    rows.push_back(r);
  }
  return table(rows, "  ");
}

std::string pcie_text(const json& p) {
  if (!p.is_object()) return "PCIe unknown";
  const int cg = num<int>(p, "current_gen", 0), cw = num<int>(p, "current_width", 0);
  const int mg = num<int>(p, "max_gen", 0), mw = num<int>(p, "max_width", 0);
  if (!cg && !cw && !mg && !mw) return "PCIe unknown";
  auto link = [](int g, int w) {
    return (g ? "Gen" + std::to_string(g) : std::string("Gen?")) + " x" + (w ? std::to_string(w) : "?");
  };
  return "PCIe " + link(cg, cw) + " (max " + link(mg, mw) + ")";
}

}  // namespace

std::string format_topology(const json& r) {
  std::string out;
  out += "Host: " + (str(r, "host").empty() ? std::string("unknown") : str(r, "host")) + "\n";

  const json cpu = r.value("cpu", json::object());
  out += fmt::format("CPU: {}{} package(s), {} core(s), {} PU(s)\n",
                     str(cpu, "model").empty() ? "" : str(cpu, "model") + ", ", num<int>(cpu, "packages", 0),
                     num<int>(cpu, "cores", 0), num<int>(cpu, "pus", 0));
  const json& numa = arr(r, "numa");
  if (numa.empty()) out += "NUMA: no nodes reported\n";
  for (const json& n : numa)
    out += fmt::format("NUMA node {}: {}, CPUs {}\n", num<int>(n, "os_index", 0),
                       gib(num<double>(n, "memory_bytes", 0)), str(n, "cpuset"));

  const json& gpus = arr(r, "gpus");
  const json nvml = r.value("nvml", json::object());
  out += "\n";
  if (gpus.empty()) {
    const std::string why = str(nvml, "reason");
    out += "GPUs: no GPUs" + (why.empty() ? std::string() : " (" + why + ")") + "\n";
  } else {
    const std::string driver = str(nvml, "driver_version");
    out += fmt::format("GPUs: {}{}\n", gpus.size(), driver.empty() ? "" : " (driver " + driver + ")");
    const json& m = arr(r, "gpu_matrix");
    if (!m.empty()) {
      out += "\n" + matrix(m, gpus, true, arr(r, "gpu_nic_matrix"));
      out += "\nLegend:\n"
             "  X    = Self\n"
             "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
             "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a "
             "NUMA node\n"
             "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
             "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
             "  PIX  = Connection traversing at most a single PCIe bridge\n"
             "  NV#  = Connection traversing a bonded set of # NVLinks\n"
             "  ?    = NVML (or, for NICs, sysfs) could not tell\n";
      const json& nics = arr(r, "nics");
      if (!nics.empty() && !arr(r, "gpu_nic_matrix").empty()) {
        out += "\nNIC Legend:\n";
        for (size_t j = 0; j < nics.size(); ++j)
          out += fmt::format("  NIC{}: {}\n", j, str(nics[j], "name"));
      }
    }
    const json& p2p = arr(r, "p2p_read");
    if (!p2p.empty()) {
      out += "\nP2P read:\n" + matrix(p2p, gpus, false);
      out += "  (OK supported, CNS chipset not supported, GNS GPU not supported, TNS topology not supported, "
             "DIS disabled by registry key, NS not supported, U unknown)\n";
    }
    out += "\n";
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const json& g = gpus[i];
      const int node = num<int>(g, "numa_node", -1);
      rows.push_back({"GPU" + std::to_string(i), str(g, "name"), gib(num<double>(g, "memory_bytes", 0)),
                      str(g, "pci_bus_id"), node < 0 ? "NUMA N/A" : "NUMA " + std::to_string(node),
                      pcie_text(g.value("pcie", json()))});
    }
    out += table(rows, "");
  }

  const json net = r.value("network", json::object());
  out += "\nNetwork interfaces:\n";
  std::vector<std::vector<std::string>> rows;
  for (const json& i : arr(net, "interfaces")) {
    std::string addrs;
    for (const json& a : arr(i, "addresses")) addrs += (addrs.empty() ? "" : " ") + a.get<std::string>();
    const long mbps = num<long>(i, "speed_mbps", -1);
    const int node = num<int>(i, "numa_node", -1);
    std::string where = str(i, "pci_bus_id").empty() ? "" : "pci " + str(i, "pci_bus_id");
    if (node >= 0) where += " NUMA " + std::to_string(node);
    rows.push_back({str(i, "name"), i.value("up", false) ? "up" : "down",
                    i.value("loopback", false) ? "loopback" : (mbps > 0 ? std::to_string(mbps) + " Mb/s" : "speed ?"),
                    addrs.empty() ? "-" : addrs, where, i.value("nccl_socket", false) ? "[NCCL socket]" : ""});
  }
  out += rows.empty() ? "  none\n" : table(rows, "  ");
  const json& ib = arr(net, "infiniband");
  if (ib.empty()) {
    out += "InfiniBand: none\n";
  } else {
    out += "InfiniBand:\n";
    for (const json& d : ib)
      for (const json& p : arr(d, "ports"))
        out += fmt::format("  {} port {}: {}, {}, {}\n", str(d, "name"), num<int>(p, "port", 0), str(p, "state"),
                           str(p, "rate"), str(p, "link_layer"));
  }
  // Added by `mgbench topo` (the backends' libraries are not topology's to find): the files this process loaded.
  if (r.contains("libraries") && r["libraries"].is_object()) {
    out += "\nLibraries loaded:\n";
    std::vector<std::vector<std::string>> libs;
    for (const auto& [name, lib] : r["libraries"].items())
      libs.push_back({name, str(lib, "version").empty() ? "-" : str(lib, "version"),
                      str(lib, "file").empty() ? "(not found)" : str(lib, "file")});
    out += libs.empty() ? "  none\n" : table(libs, "  ");
  }
  return out;
}

}  // namespace mg
