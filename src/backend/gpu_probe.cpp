#include "backend/gpu_probe.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"

namespace mg {

#ifdef MG_HAVE_CUDA
// src/backend/cuda/cuda_backend.cpp: fills runtime_version, runtime_count and runtime_error.
void cuda_runtime_facts(GpuFacts& facts);
#endif

namespace {

// CUDA_VISIBLE_DEVICES "" or a list starting with -1 hides every device: the user asked for none.
bool none_asked_for(const std::optional<std::string>& v) {
  if (!v) return false;
  const std::string first = v->substr(0, v->find(','));
  return first.empty() || first == "-1";
}

std::string what_to_do(const GpuFacts& f) {
  const std::string& e = f.runtime_error;
  if (e.rfind("cudaErrorInsufficientDriver", 0) == 0 || e.rfind("cudaErrorSystemDriverMismatch", 0) == 0 ||
      e.rfind("cudaErrorCompatNotSupportedOnDevice", 0) == 0)
    return "install an NVIDIA driver that supports CUDA " + f.runtime_version +
           " (nvidia-smi's \"CUDA Version\" must be at least that)";
  if (e.rfind("cudaErrorNoDevice", 0) == 0)
    return "check that this user may open /dev/nvidia* and what CUDA_VISIBLE_DEVICES lists";
  return "nvidia-smi should show the GPU; see the driver's log (dmesg) for why CUDA cannot use it";
}

}  // namespace

GpuProbe probe_gpus(const GpuFacts& f) {
  GpuProbe p;
  if (none_asked_for(f.cuda_visible_devices)) return p;
  if (f.cuda_built && f.runtime_error.empty() && f.runtime_count > 0) {
    p.state = GpuState::Usable;
    p.count = f.runtime_count;
    return p;
  }
  if (f.visible_paths.empty()) return p;
  p.state = GpuState::Unusable;
  const std::string seen = "a GPU is visible (" + f.visible_paths.front() + ")";
  if (!f.cuda_built) {
    p.cause = seen + " but this mgbench was built without the CUDA backend; rebuild with CUDA (MGBENCH_CUDA=ON) "
                     "or use --device cpu";
  } else if (!f.runtime_error.empty()) {
    p.cause = seen + " but CUDA cannot use it: " + f.runtime_error + "; " + what_to_do(f) + ", or use --device cpu";
  } else {
    p.cause = seen + " but the CUDA runtime counts no device; " + what_to_do(f) + ", or use --device cpu";
  }
  return p;
}

DeviceKind resolve_device(std::optional<DeviceKind> asked, const GpuProbe& probe) {
  if (asked == DeviceKind::Cpu) return DeviceKind::Cpu;
  const std::string option = asked ? "--device cuda" : "--device auto";
  switch (probe.state) {
    case GpuState::Usable: return DeviceKind::Cuda;
    case GpuState::Unusable: throw UsageError(option + ": " + probe.cause);
    case GpuState::None: break;
  }
  if (!asked) return DeviceKind::Cpu;
  throw UsageError("--device cuda: no GPU is present (no NVIDIA device is visible, or CUDA_VISIBLE_DEVICES hides "
                   "every one); use --device cpu");
}

std::vector<std::string> visible_gpu_paths(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path gpus = fs::path(root + "/proc/driver/nvidia/gpus");
  for (fs::directory_iterator it(gpus, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path().string());
  for (fs::directory_iterator it(fs::path(root + "/dev"), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // /dev/nvidia0, nvidia1, ...: one per GPU (nvidiactl, nvidia-uvm and nvidia-caps are not GPUs).
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
        std::all_of(name.begin() + 6, name.end(), [](unsigned char c) { return std::isdigit(c); }))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

GpuFacts gather_gpu_facts() {
  GpuFacts f;
  f.visible_paths = visible_gpu_paths("");
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) f.cuda_visible_devices = std::string(v);
#ifdef MG_HAVE_CUDA
  f.cuda_built = true;
  cuda_runtime_facts(f);
#endif
  return f;
}

}  // namespace mg
