#include "backend/backend.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "backend/cpu/cpu_backend.h"
#include "backend/gpu_probe.h"
#include "core/error.h"

namespace mg {

#ifdef MG_HAVE_CUDA
// src/backend/cuda/cuda_backend.cpp
std::unique_ptr<Backend> make_cuda_backend(int ordinal, const BackendOptions& opt);
std::vector<std::pair<std::string, std::string>> cuda_library_versions();
std::string open_cuda_libraries();
#endif

bool cuda_built() {
#ifdef MG_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() { return probe_gpus(gather_gpu_facts()).count; }

std::unique_ptr<Backend> make_backend(DeviceKind kind, int ordinal, const BackendOptions& opt) {
  if (kind == DeviceKind::Cpu) return std::make_unique<CpuBackend>(ordinal, opt);
  const GpuProbe probe = probe_gpus(gather_gpu_facts());
  if (probe.state == GpuState::Unusable) throw UsageError("--device cuda: " + probe.cause);
#ifdef MG_HAVE_CUDA
  if (ordinal < 0 || ordinal >= probe.count) {
    throw UsageError("--device cuda: GPU " + std::to_string(ordinal) + " requested but " +
                     std::to_string(probe.count) + " GPU(s) present");
  }
  return make_cuda_backend(ordinal, opt);
#else
  (void)ordinal;
  (void)opt;
  throw UsageError("--device cuda: this mgbench was built without the CUDA backend (use --device cpu)");
#endif
}

void require_precision(const Backend& be, Precision p) {
  const std::string why = be.unsupported_reason(p);
  if (why.empty()) return;
  const DeviceInfo d = be.info();
  throw UsageError(std::string("--precision ") + precision_name(p) + " is not supported on " +
                   device_kind_name(be.kind()) + ":" + std::to_string(d.ordinal) + " (" + d.name + "): " + why);
}

std::string open_deferred_libraries() {
#ifdef MG_HAVE_CUDA
  return open_cuda_libraries();
#else
  return "";
#endif
}

std::vector<std::pair<std::string, std::string>> backend_library_versions() {
  std::vector<std::pair<std::string, std::string>> v;
  const dnnl_version_t* d = dnnl::version();
  v.emplace_back("onednn", std::to_string(d->major) + "." + std::to_string(d->minor) + "." +
                               std::to_string(d->patch));
#ifdef MG_HAVE_CUDA
  for (auto& kv : cuda_library_versions()) v.push_back(kv);
#endif
  return v;
}

}  // namespace mg
