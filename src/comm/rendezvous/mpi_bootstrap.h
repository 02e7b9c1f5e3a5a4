// MPI is used for one thing: telling every process where rank 0's rendezvous store listens, when mpirun
// started us and no MASTER_ADDR was given. It is initialised on first use and finalised by finalize_launch()
// (or a LaunchGuard held by main), after all communicators are gone.
#pragma once
#include <string>

namespace mg {

// Collective over MPI_COMM_WORLD: returns rank 0's value on every rank. Initialises MPI if needed.
std::string mpi_broadcast_from_rank0(const std::string& value);
// MPI_Finalize if mpi_broadcast_from_rank0 initialised MPI; idempotent, safe when MPI was never used.
void finalize_launch();

class LaunchGuard {
 public:
  LaunchGuard() = default;
  ~LaunchGuard() { finalize_launch(); }
  LaunchGuard(const LaunchGuard&) = delete;
  LaunchGuard& operator=(const LaunchGuard&) = delete;
};

}  // namespace mg
