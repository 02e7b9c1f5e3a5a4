// Whether this machine has a GPU mgbench can use, decided from facts gathered independently of each other: what
// the kernel shows (the NVIDIA driver's /proc and /dev entries), what CUDA_VISIBLE_DEVICES asks for, whether this
// binary has the CUDA backend, and what the CUDA runtime says. A GPU the kernel shows but CUDA cannot use (a
// driver older than the runtime, a build without CUDA) is named with its cause, never taken for "no GPU": a CPU
// figure read as a GPU figure is the worst outcome of a benchmark.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/device.h"

namespace mg {

struct GpuFacts {
  std::vector<std::string> visible_paths;           // /proc/driver/nvidia/gpus/<bus id>, /dev/nvidia<N>
  std::optional<std::string> cuda_visible_devices;  // nullopt: unset
  bool cuda_built = false;
  std::string runtime_version;  // the CUDA runtime this binary carries, e.g. "13.0" (empty without CUDA)
  int runtime_count = 0;        // cudaGetDeviceCount's count when it succeeded
  std::string runtime_error;    // "" when it succeeded, else "<cudaGetErrorName>: <cudaGetErrorString>"
};

enum class GpuState {
  None,      // no GPU here, or none asked for (CUDA_VISIBLE_DEVICES "" or "-1")
  Usable,    // CUDA counts `count` devices
  Unusable,  // the kernel shows a GPU but CUDA cannot use it: `cause` says why and what to do
};

struct GpuProbe {
  GpuState state = GpuState::None;
  int count = 0;
  std::string cause;
};

// Pure: the decision from the facts.
GpuProbe probe_gpus(const GpuFacts& facts);

// --device as asked (nullopt: auto) against the probe: cpu always; auto gives cuda when usable, cpu when there is
// none, and a UsageError naming the cause when a GPU is visible but unusable; cuda a UsageError unless usable.
DeviceKind resolve_device(std::optional<DeviceKind> asked, const GpuProbe& probe);

// The GPU entries the NVIDIA driver shows under `root` ("" for this machine; tests pass a fake tree).
std::vector<std::string> visible_gpu_paths(const std::string& root);

// This machine's facts (reads /proc, /dev and the environment; asks the CUDA runtime when built with it).
GpuFacts gather_gpu_facts();

}  // namespace mg
