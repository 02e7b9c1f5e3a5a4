// A stand-in for libnvidia-ml.so.1 so the topology code's NVML path runs in tests on machines without GPUs.
// Four GPUs: 0-1 joined by 4 NVLinks, 2-3 by 2, the rest over PCIe at various distances. With
// FAKE_NVML_NVSWITCH=1 every GPU instead has 18 links into an NVSwitch (an HGX board); with
// FAKE_NVML_INIT_FAIL=1 initialisation fails as it does when the kernel driver is not loaded.
// Signatures and constants follow nvml.h.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "topo/nvml_abi.h"

namespace {

using namespace mg::nvml_abi;
constexpr int kSuccess = NVML_SUCCESS, kInvalidArgument = NVML_ERROR_INVALID_ARGUMENT,
              kNotSupported = NVML_ERROR_NOT_SUPPORTED, kDriverNotLoaded = NVML_ERROR_DRIVER_NOT_LOADED;
constexpr int kGpus = 4;
constexpr unsigned kMaxLinks = NVML_NVLINK_MAX_LINKS;
using PciInfo = nvmlPciInfo_t;
using Memory = nvmlMemory_t;
struct Device {
  int index;
};
Device devices[kGpus] = {{0}, {1}, {2}, {3}};
const char* bus_ids[kGpus] = {"00000000:1B:00.0", "00000000:1C:00.0", "00000000:9A:00.0", "00000000:9B:00.0"};

bool env(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}
int idx(const void* d) { return static_cast<const Device*>(d)->index; }

// Direct NVLink partner of a GPU's link, or -1 when the link is inactive.
int partner(int gpu, unsigned link) {
  if (gpu < 2) return link < 4 ? 1 - gpu : -1;
  return link < 2 ? 5 - gpu : -1;
}

}  // namespace

extern "C" {

int nvmlInit_v2() { return env("FAKE_NVML_INIT_FAIL") ? kDriverNotLoaded : kSuccess; }
int nvmlShutdown() { return kSuccess; }
const char* nvmlErrorString(int r) { return r == kDriverNotLoaded ? "Driver Not Loaded" : "Unknown Error"; }
int nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  std::snprintf(buf, len, "550.54.15");
  return kSuccess;
}
int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = kGpus;
  return kSuccess;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  if (i >= kGpus) return kInvalidArgument;
  *d = &devices[i];
  return kSuccess;
}
int nvmlDeviceGetName(void*, char* buf, unsigned len) {
  std::snprintf(buf, len, "NVIDIA H100 80GB HBM3");
  return kSuccess;
}
int nvmlDeviceGetUUID(void* d, char* buf, unsigned len) {
  std::snprintf(buf, len, "GPU-fake-%d", idx(d));
  return kSuccess;
}
int nvmlDeviceGetMemoryInfo(void*, Memory* m) {
  m->total = 85520809984ULL;
  m->free = m->total;
  m->used = 0;
  return kSuccess;
}
int nvmlDeviceGetPciInfo_v3(void* d, PciInfo* p) {
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->busId, sizeof(p->busId), "%s", bus_ids[idx(d)]);
  return kSuccess;
}
// nvmlGpuTopologyLevel_t of each pair: MULTIPLE 20 (PXB), HOSTBRIDGE 30 (PHB), NODE 40, SYSTEM 50.
int nvmlDeviceGetTopologyCommonAncestor(void* a, void* b, int* level) {
  static const int levels[kGpus][kGpus] = {{0, 10, 20, 50}, {10, 0, 40, 30}, {20, 40, 0, 10}, {50, 30, 10, 0}};
  *level = levels[idx(a)][idx(b)];
  return kSuccess;
}
int nvmlDeviceGetNvLinkState(void* d, unsigned link, int* active) {
  if (link >= kMaxLinks) return kInvalidArgument;
  *active = env("FAKE_NVML_NVSWITCH") ? 1 : partner(idx(d), link) >= 0;
  return kSuccess;
}
int nvmlDeviceGetNvLinkRemoteDeviceType(void*, unsigned link, int* type) {
  if (link >= kMaxLinks) return kInvalidArgument;
  *type = env("FAKE_NVML_NVSWITCH") ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_GPU;
  return kSuccess;
}
int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* d, unsigned link, PciInfo* p) {
  const int other = partner(idx(d), link);
  if (link >= kMaxLinks || other < 0) return kNotSupported;
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->busId, sizeof(p->busId), "%s", bus_ids[other]);
  return kSuccess;
}
// nvmlGpuP2PStatus_t for reads: OK 0, TNS 3, NS 5.
int nvmlDeviceGetP2PStatus(void* a, void* b, int caps, int* status) {
  if (caps != 0) return kNotSupported;
  static const int s[kGpus][kGpus] = {{0, 0, 0, 5}, {0, 0, 5, 3}, {0, 5, 0, 0}, {5, 3, 0, 0}};
  *status = s[idx(a)][idx(b)];
  return kSuccess;
}

}  // extern "C"
