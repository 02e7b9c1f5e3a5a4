// detect_launch(): who started this process, read from the launcher's environment variables.
#include <cstdlib>
#include <string>

#include "comm/rendezvous/launch.h"

#include <algorithm>

#include "comm/rendezvous/slurm_hostlist.h"
#include "core/error.h"
#include "core/host_info.h"

namespace mg {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

int env_int(const char* name, int lo, int hi) {
  const char* v = env(name);
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || x < lo || x > hi) {
    throw UsageError(std::string(name) + "='" + v + "' is not an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  }
  return static_cast<int>(x);
}

int env_int_or(const char* name, int fallback, int lo, int hi) { return env(name) ? env_int(name, lo, hi) : fallback; }

// A variable that several launchers may set (e.g. RANK under torchrun-in-Slurm) must agree with the one we use.
void require_same(const char* name, int expected, const char* source) {
  if (env(name) && env_int(name, 0, 1 << 30) != expected) {
    throw UsageError(std::string("inconsistent launch environment: ") + name + "=" + env(name) + " but " + source +
                     "=" + std::to_string(expected));
  }
}

}  // namespace

LaunchInfo detect_launch() {
  LaunchInfo li;
  const char* rank_var = nullptr;
  if (env("OMPI_COMM_WORLD_RANK")) {
    li.launcher = Launcher::Mpi;
    rank_var = "OMPI_COMM_WORLD_RANK";
    if (!env("OMPI_COMM_WORLD_SIZE")) throw UsageError("OMPI_COMM_WORLD_RANK is set but OMPI_COMM_WORLD_SIZE is not");
    li.world_size = env_int("OMPI_COMM_WORLD_SIZE", 1, 1 << 20);
    li.rank = env_int("OMPI_COMM_WORLD_RANK", 0, 1 << 20);
    li.local_rank = env_int_or("OMPI_COMM_WORLD_LOCAL_RANK", 0, 0, 1 << 20);
  } else if (env("PMI_RANK")) {
    li.launcher = Launcher::Mpi;
    rank_var = "PMI_RANK";
    if (!env("PMI_SIZE")) throw UsageError("PMI_RANK is set but PMI_SIZE is not");
    li.world_size = env_int("PMI_SIZE", 1, 1 << 20);
    li.rank = env_int("PMI_RANK", 0, 1 << 20);
    li.local_rank = env_int_or("MPI_LOCALRANKID", 0, 0, 1 << 20);
  } else if (env("SLURM_PROCID") && (env("SLURM_STEP_NUM_TASKS") || env("SLURM_NTASKS"))) {
    li.launcher = Launcher::Slurm;
    rank_var = "SLURM_PROCID";
    // The step's task count: inside an allocation SLURM_NTASKS describes the job, not this srun.
    li.world_size = env("SLURM_STEP_NUM_TASKS") ? env_int("SLURM_STEP_NUM_TASKS", 1, 1 << 20)
                                                : env_int("SLURM_NTASKS", 1, 1 << 20);
    li.rank = env_int("SLURM_PROCID", 0, 1 << 20);
    li.local_rank = env_int_or("SLURM_LOCALID", 0, 0, 1 << 20);
    // Task 0 runs on the step's first node under Slurm's distributions; the launch node (where srun ran)
    // is only a fallback, as it need not be part of the step at all.
    if (const char* a = env("MASTER_ADDR")) {
      li.master_addr = a;
    } else if (const char* step = env("SLURM_STEP_NODELIST")) {
      li.master_addr = first_slurm_host(step, "SLURM_STEP_NODELIST");
    } else if (const char* job = env("SLURM_JOB_NODELIST")) {
      li.master_addr = first_slurm_host(job, "SLURM_JOB_NODELIST");
    } else if (const char* b = env("SLURM_LAUNCH_NODE_IPADDR")) {
      li.master_addr = b;
    }
  } else if (env("RANK") || env("WORLD_SIZE")) {
    li.launcher = Launcher::Env;
    rank_var = "RANK";
    if (!env("RANK") || !env("WORLD_SIZE")) throw UsageError("RANK and WORLD_SIZE must be set together");
    li.world_size = env_int("WORLD_SIZE", 1, 1 << 20);
    li.rank = env_int("RANK", 0, 1 << 20);
    li.local_rank = env_int_or("LOCAL_RANK", 0, 0, 1 << 20);
    if (li.world_size > 1 && !env("MASTER_ADDR")) {
      throw UsageError("RANK/WORLD_SIZE are set but MASTER_ADDR is not: set MASTER_ADDR (and MASTER_PORT)");
    }
  }
  if (!li.launched()) return li;
  // Where rank 0 may open the store on loopback (world.cpp): every rank is on this host.
  li.single_host = env("OMPI_COMM_WORLD_LOCAL_SIZE") && env("OMPI_COMM_WORLD_SIZE") &&
                   std::string(env("OMPI_COMM_WORLD_LOCAL_SIZE")) == env("OMPI_COMM_WORLD_SIZE");

  if (li.rank >= li.world_size) {
    throw UsageError(std::string(rank_var) + "=" + std::to_string(li.rank) + " is not below the world size " +
                     std::to_string(li.world_size));
  }
  if (li.launcher != Launcher::Env) {
    require_same("RANK", li.rank, rank_var);
    require_same("WORLD_SIZE", li.world_size, "the launcher's world size");
  }
  if (li.launcher == Launcher::Mpi && env("MASTER_ADDR")) li.master_addr = env("MASTER_ADDR");
  if (li.launcher == Launcher::Env) li.master_addr = env("MASTER_ADDR") ? env("MASTER_ADDR") : "127.0.0.1";
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE"}) {
    if (env(v)) {
      li.local_size = env_int(v, 1, li.world_size);
      break;
    }
  }
  li.master_port = env_int_or("MASTER_PORT", 29500, 1, 65535);
  if (li.launcher == Launcher::Mpi && !env("MASTER_PORT")) li.master_port = 0;  // rank 0 picks a free port, MPI tells all
  if (li.launcher == Launcher::Mpi && std::string(rank_var) == "PMI_RANK" && li.master_addr.empty() && li.world_size > 1) {
    // This binary's MPI is Open MPI; under another MPI's launcher (PMI) it cannot broadcast the address.
    throw UsageError("launched with PMI_RANK (non-Open MPI launcher): set MASTER_ADDR and MASTER_PORT");
  }
  return li;
}

int process_core_share(const LaunchInfo& launch) {
  return std::max(1, cpu_core_count() / std::max(1, launch.local_size));
}

}  // namespace mg
