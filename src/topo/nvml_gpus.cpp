// GPUs and their interconnect through NVML, loaded at run time so the binary builds and runs where no driver
// is installed. Only the handful of entry points used here are declared, with the types of nvml.h (nvml_abi.h).
// NVML numbers GPUs in PCI bus order (CUDA's too when CUDA_DEVICE_ORDER=PCI_BUS_ID).
#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <vector>

#include "topo/nvml_abi.h"
#include "topo/topo_parts.h"

namespace mg::topo {

namespace {

using namespace mg::nvml_abi;

struct Nvml {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*ancestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*nvlink_remote_pci)(nvmlDevice_t, unsigned, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*nvlink_remote_type)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*p2p)(nvmlDevice_t, nvmlDevice_t, int, int*) = nullptr;
  bool initialised = false;

  ~Nvml() {
    if (initialised && shutdown) shutdown();
    if (lib) dlclose(lib);
  }

  template <typename F>
  void bind(F& f, const char* sym) {
    f = reinterpret_cast<F>(dlsym(lib, sym));
  }

  // Returns "" on success, else why NVML cannot be used.
  std::string open(const std::string& library) {
    lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      // dlerror() repeats the library name first; keep only the cause.
      const char* e = dlerror();
      std::string cause = e ? e : "";
      if (cause.rfind(library + ": ", 0) == 0) cause.erase(0, library.size() + 2);
      return "cannot load " + library + (cause.empty() ? std::string() : " (" + cause + ")");
    }
    bind(init, "nvmlInit_v2");
    bind(shutdown, "nvmlShutdown");
    bind(error_string, "nvmlErrorString");
    bind(driver_version, "nvmlSystemGetDriverVersion");
    bind(count, "nvmlDeviceGetCount_v2");
    bind(handle, "nvmlDeviceGetHandleByIndex_v2");
    bind(name, "nvmlDeviceGetName");
    bind(uuid, "nvmlDeviceGetUUID");
    bind(memory, "nvmlDeviceGetMemoryInfo");
    bind(pci, "nvmlDeviceGetPciInfo_v3");
    bind(ancestor, "nvmlDeviceGetTopologyCommonAncestor");
    bind(nvlink_state, "nvmlDeviceGetNvLinkState");
    bind(nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    bind(nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
    bind(p2p, "nvmlDeviceGetP2PStatus");
    if (!init || !shutdown || !count || !handle) return library + " lacks the NVML entry points mgbench needs";
    const nvmlReturn_t r = init();
    if (r != NVML_SUCCESS) return "nvmlInit failed: " + err(r);
    initialised = true;
    return "";
  }

  std::string err(nvmlReturn_t r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return s ? s : "NVML error " + std::to_string(r);
  }
};

std::string text(nvmlReturn_t (*f)(nvmlDevice_t, char*, unsigned), nvmlDevice_t d) {
  char buf[128] = {0};
  if (!f || f(d, buf, sizeof(buf) - 1) != NVML_SUCCESS) return "";
  return buf;
}

// nvmlGpuTopologyLevel_t: INTERNAL 0 (same board), SINGLE 10, MULTIPLE 20, HOSTBRIDGE 30, NODE 40, SYSTEM 50.
std::string level_name(int level) {
  if (level <= 10) return "PIX";
  if (level <= 20) return "PXB";
  if (level <= 30) return "PHB";
  if (level <= 40) return "NODE";
  return "SYS";
}

// nvmlGpuP2PStatus_t, with nvidia-smi topo -p2p's abbreviations.
std::string p2p_name(int status) {
  switch (status) {
    case 0: return "OK";
    case 1: return "CNS";
    case 2: return "GNS";
    case 3: return "TNS";
    case 4: return "DIS";
    case 5: return "NS";
    default: return "U";
  }
}

struct Links {
  std::vector<std::string> remote_bus;  // bus id of the GPU at the far end of each active direct link
  int switch_links = 0;                 // active links into an NVSwitch
};

Links nvlinks(const Nvml& n, nvmlDevice_t d) {
  Links out;
  if (!n.nvlink_state) return out;
  for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; ++l) {
    int active = 0;
    if (n.nvlink_state(d, l, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED) continue;
    int type = -1;
    if (n.nvlink_remote_type && n.nvlink_remote_type(d, l, &type) == NVML_SUCCESS &&
        type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
      ++out.switch_links;
      continue;
    }
    nvmlPciInfo_t pci{};
    if (n.nvlink_remote_pci && n.nvlink_remote_pci(d, l, &pci) == NVML_SUCCESS)
      out.remote_bus.push_back(normalize_bus_id(pci.busId));
  }
  return out;
}

}  // namespace

nlohmann::json discover_gpus(const std::string& library, const std::string& sysfs_root) {
  nlohmann::json out = {{"nvml", {{"available", false}, {"driver_version", ""}, {"reason", ""}}},
                        {"gpus", nlohmann::json::array()},
                        {"gpu_matrix", nlohmann::json::array()},
                        {"p2p_read", nlohmann::json::array()}};
  Nvml n;
  const std::string why = n.open(library);
  if (!why.empty()) {
    out["nvml"]["reason"] = why;
    return out;
  }
  out["nvml"]["available"] = true;
  char version[96] = {0};
  if (n.driver_version && n.driver_version(version, sizeof(version) - 1) == NVML_SUCCESS)
    out["nvml"]["driver_version"] = version;

  unsigned count = 0;
  if (const nvmlReturn_t r = n.count(&count); r != NVML_SUCCESS) {
    out["nvml"]["reason"] = "nvmlDeviceGetCount failed: " + n.err(r);
    return out;
  }
  std::vector<nvmlDevice_t> devs;
  std::vector<std::string> bus;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t d = nullptr;
    if (n.handle(i, &d) != NVML_SUCCESS) continue;  // e.g. a GPU this user may not open; list the others
    nvmlPciInfo_t pci{};
    const bool have_pci = n.pci && n.pci(d, &pci) == NVML_SUCCESS;
    const std::string bus_id = have_pci ? normalize_bus_id(pci.busId) : "";
    nvmlMemory_t mem{};
    const bool have_mem = n.memory && n.memory(d, &mem) == NVML_SUCCESS;
    const PciFacts f = pci_facts(sysfs_root, bus_id);
    out["gpus"].push_back({{"index", i},
                           {"name", text(n.name, d)},
                           {"uuid", text(n.uuid, d)},
                           {"memory_bytes", have_mem ? mem.total : 0},
                           {"pci_bus_id", bus_id},
                           {"numa_node", f.numa_node},
                           {"cpu_affinity", f.cpu_affinity},
                           {"pcie", f.pcie}});
    devs.push_back(d);
    bus.push_back(bus_id);
  }

  std::vector<Links> links;
  for (nvmlDevice_t d : devs) links.push_back(nvlinks(n, d));
  for (size_t i = 0; i < devs.size(); ++i) {
    nlohmann::json row = nlohmann::json::array(), p2p_row = nlohmann::json::array();
    for (size_t j = 0; j < devs.size(); ++j) {
      if (i == j) {
        row.push_back("X");
        p2p_row.push_back("X");
        continue;
      }
      int direct = 0;
      for (const std::string& b : links[i].remote_bus) direct += (!bus[j].empty() && b == bus[j]);
      // Through NVSwitch every GPU reaches every other over all its switch links, as nvidia-smi reports.
      const int switched = std::min(links[i].switch_links, links[j].switch_links);
      int level = -1;
      if (direct + switched > 0)
        row.push_back("NV" + std::to_string(direct + switched));
      else if (n.ancestor && n.ancestor(devs[i], devs[j], &level) == NVML_SUCCESS)
        row.push_back(level_name(level));
      else
        row.push_back("?");
      int status = -1;
      p2p_row.push_back(n.p2p && n.p2p(devs[i], devs[j], NVML_P2P_CAPS_INDEX_READ, &status) == NVML_SUCCESS
                            ? p2p_name(status)
                            : "U");
    }
    out["gpu_matrix"].push_back(row);
    out["p2p_read"].push_back(p2p_row);
  }
  return out;
}

}  // namespace mg::topo
