// The launcher environment (mpirun's OMPI_*, Slurm's SLURM_*, torchrun-style RANK/WORLD_SIZE/MASTER_*): the
// input holds one value per line for the variables below, set before detect_launch() reads them.
#include <cstdlib>
#include <string>

#include "comm/rendezvous/launch.h"
#include "fuzz_input.h"

namespace {

const char* const kVars[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                             "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
                             "SLURM_JOB_NODELIST", "SLURM_STEP_NODELIST", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                             "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "PMI_RANK", "PMI_SIZE",
                             "MPI_LOCALRANKID", "SLURM_STEP_NUM_TASKS", "SLURM_LAUNCH_NODE_IPADDR"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  size_t pos = 0;
  // A line "-" leaves the variable unset, so every combination of launchers is reachable.
  for (const char* var : kVars) {
    const size_t nl = in.find('\n', pos);
    std::string value = pos <= in.size() ? in.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos) : "-";
    pos = nl == std::string::npos ? in.size() + 1 : nl + 1;
    if (value == "-" || value.find('\0') != std::string::npos) {
      unsetenv(var);
    } else {
      setenv(var, value.c_str(), 1);
    }
  }
  mg::fuzz::expect_only_mg_errors([] { (void)mg::detect_launch(); });
  return 0;
}
