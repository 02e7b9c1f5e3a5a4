#include "train/environment.h"

#include <fstream>
#include <thread>
#include <unistd.h>  // environ

#include "backend/loaded_libraries.h"
#include "comm/comm_libraries.h"
#include "core/build_info.h"
#include "core/error.h"
#include "core/host_info.h"
#include "topo/topology.h"

namespace mg {

namespace {

bool recorded_variable(const std::string& name) {
  static const char* prefixes[] = {"NCCL_", "OMP_", "KMP_", "DNNL_", "ONEDNN_", "CUDA_", "CUDNN_", "GLOO_",
                                   "MGBENCH_", "SLURM_JOB", "SLURM_NTASKS", "SLURM_NNODES", "OMPI_COMM_WORLD_SIZE",
                                   "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "TORCH_NCCL"};
  for (const char* p : prefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}


std::string driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(f, line)) return line;
  return "";
}

}  // namespace

Environment capture_environment(const std::string& command_line, const LaunchInfo& launch, int local_replicas) {
  Environment e;
  e.mgbench_version = mgbench_version();
  e.git_commit = mgbench_git_commit();
  e.command_line = command_line;
  e.host = hostname();
  const int logical = static_cast<int>(std::thread::hardware_concurrency()), usable = cpu_core_count();
  e.cpu = cpu_model_name() + " (" + std::to_string(logical) + " logical CPUs" +
          (usable != logical ? ", " + std::to_string(usable) + " usable by this process" : "") + ")";
  for (const auto& kv : backend_library_versions()) e.versions[kv.first] = kv.second;
  for (const auto& kv : comm_library_versions()) e.versions[kv.first] = kv.second;
  e.libraries = backend_loaded_libraries();
  e.libraries.merge(comm_loaded_libraries());
  const std::string drv = driver_version();
  if (!drv.empty()) e.versions["nvidia_driver"] = drv;
  for (char** v = environ; v && *v; ++v) {
    const std::string s = *v;
    const auto eq = s.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = s.substr(0, eq);
    if (recorded_variable(name)) e.env_vars[name] = s.substr(eq + 1);
  }
  e.launcher = launch.launcher_name();
  e.world_size = launch.world_size * local_replicas;
  e.topology = discover_topology();
  return e;
}

}  // namespace mg
