// The few NVML types and constants mgbench uses, with nvml.h's layout. NVML is loaded at run time (no header or
// library is needed to build), so they are declared here once: by the real loader (nvml_gpus.cpp) and by the
// fake libnvidia-ml the topology tests load in its place, so the two cannot drift apart.
#pragma once

namespace mg::nvml_abi {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;
constexpr int NVML_FEATURE_ENABLED = 1;
constexpr int NVML_P2P_CAPS_INDEX_READ = 0;
constexpr int NVML_NVLINK_DEVICE_TYPE_GPU = 0;
constexpr int NVML_NVLINK_DEVICE_TYPE_SWITCH = 2;

struct nvmlPciInfo_t {  // nvmlPciInfo_v3
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
struct nvmlMemory_t {  // nvmlMemory_v1
  unsigned long long total, free, used;
};

}  // namespace mg::nvml_abi
