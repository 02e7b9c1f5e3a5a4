// Who started this process: a launcher (mpirun, srun, torchrun-style environment) or nobody, read once from the
// launcher's environment variables. Nothing else reads those variables.
#pragma once
#include <string>

#include "core/name_table.h"

namespace mg {

// Who started us. Env: torchrun-style RANK/WORLD_SIZE variables, whoever set them.
enum class Launcher { None, Mpi, Slurm, Env };
inline constexpr NameTable<Launcher, 4> kLauncherNames{
    {{{"none", Launcher::None}, {"mpi", Launcher::Mpi}, {"slurm", Launcher::Slurm}, {"env", Launcher::Env}}}};

struct LaunchInfo {
  Launcher launcher = Launcher::None;
  int rank = 0;                   // process rank
  int world_size = 1;             // processes
  int local_rank = 0;             // process index on its host (device choice)
  int local_size = 1;             // processes of this job on this host (they share its cores)
  std::string master_addr;        // rendezvous host (env/slurm); for MPI rank 0's address is broadcast
  int master_port = 0;
  bool single_host = false;       // Open MPI says every process of the job runs on this host

  bool launched() const { return launcher != Launcher::None; }
  const char* launcher_name() const { return kLauncherNames.name(launcher); }
};

// Reads OMPI_COMM_WORLD_* / PMI_* (MPI), SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID (Slurm), or RANK/WORLD_SIZE/
// LOCAL_RANK/MASTER_ADDR/MASTER_PORT (torchrun style); local_size from OMPI_COMM_WORLD_LOCAL_SIZE,
// LOCAL_WORLD_SIZE or SLURM_NTASKS_PER_NODE; single_host when OMPI_COMM_WORLD_LOCAL_SIZE equals
// OMPI_COMM_WORLD_SIZE. Inconsistent variables throw UsageError.
LaunchInfo detect_launch();

// This process's share of the cores it may run on: cpu_core_count() divided among the job's processes on this
// host, at least 1. Every CPU replica's thread count starts from it, so processes never oversubscribe a host.
int process_core_share(const LaunchInfo& launch);

}  // namespace mg
