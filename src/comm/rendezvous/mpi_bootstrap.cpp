#include "comm/rendezvous/mpi_bootstrap.h"

#include <mpi.h>

#include <mutex>
#include <vector>

#include "core/error.h"

namespace mg {
namespace {

std::mutex g_mpi_mu;
bool g_we_initialised = false;  // only we call MPI_Init in this binary, so this mirrors MPI's own state

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    ::mg::check_failed("MPI", call, __FILE__, __LINE__, msg);
  }
}

}  // namespace

std::string mpi_broadcast_from_rank0(const std::string& value) {
  std::lock_guard<std::mutex> lk(g_mpi_mu);
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    g_we_initialised = true;
  }
  int rank = 0;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  int len = rank == 0 ? static_cast<int>(value.size()) : 0;
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast(length)");
  std::vector<char> buf(value.begin(), value.end());
  buf.resize(static_cast<size_t>(len));
  check_mpi(MPI_Bcast(buf.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast(address)");
  return std::string(buf.begin(), buf.end());
}

void finalize_launch() {
  std::lock_guard<std::mutex> lk(g_mpi_mu);
  if (!g_we_initialised) return;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
  g_we_initialised = false;
}

}  // namespace mg
