// What a device is, as results record it: its kind and identity. Lives in core so the result types (src/result)
// can name devices without depending on the Backend seam that drives them.
#pragma once
#include <cstddef>
#include <string>

#include "core/name_table.h"

namespace mg {

enum class DeviceKind { Cpu, Cuda };
inline constexpr NameTable<DeviceKind, 2> kDeviceKindNames{{{{"cpu", DeviceKind::Cpu}, {"cuda", DeviceKind::Cuda}}}};
inline const char* device_kind_name(DeviceKind k) { return kDeviceKindNames.name(k); }

struct DeviceInfo {
  std::string name;
  size_t memory_bytes = 0;
  std::string pci_bus_id;  // empty on CPU
  int ordinal = 0;
};

}  // namespace mg
