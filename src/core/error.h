// Error types and the one check-macro family every library call goes through.
//
// Two kinds of failure reach the user:
//  - UsageError: bad input (options, files). One line, exit status 2, nothing written.
//  - Error: the run failed (library error, NaN loss, lost rank, OutOfMemory). One line, exit status 1.
// Library return codes are checked by MG_CHECK_<LIB>(call) macros that name the call, file, line and host;
// the CUDA/cuDNN/cuBLAS/NCCL members live in src/backend/cuda/cuda_check.h and src/comm/nccl/nccl_check.h and all
// funnel into check_failed() below, so the message format is one.
#pragma once
#include <stdexcept>
#include <string>

namespace mg {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct UsageError : Error {
  using Error::Error;
};

// Device memory exhausted; the trainer adds the model and batch size to the backend's bytes/peak message.
struct OutOfMemory : Error {
  using Error::Error;
};

// Throws Error("<lib> call '<call>' failed at <file>:<line> on <host>: <detail>").
[[noreturn]] void check_failed(const char* lib, const char* call, const char* file, int line,
                               const std::string& detail);

}  // namespace mg

// Internal invariant / runtime condition that is not a library return code.
#define MG_ENSURE(cond, msg)                                       \
  do {                                                             \
    if (!(cond)) ::mg::check_failed("mgbench", #cond, __FILE__, __LINE__, (msg)); \
  } while (0)

// oneDNN reports failure by throwing dnnl::error; this wraps a call so the message names it and the location.
#define MG_CHECK_DNNL(call)                                                        \
  do {                                                                             \
    try {                                                                          \
      call;                                                                        \
    } catch (const std::exception& e_) {                                           \
      ::mg::check_failed("oneDNN", #call, __FILE__, __LINE__, e_.what());          \
    }                                                                              \
  } while (0)

// Gloo reports failure by throwing gloo::Exception (IoException on a lost peer).
#define MG_CHECK_GLOO(call)                                                        \
  do {                                                                             \
    try {                                                                          \
      call;                                                                        \
    } catch (const ::mg::Error&) {                                                 \
      throw;                                                                       \
    } catch (const std::exception& e_) {                                           \
      ::mg::check_failed("Gloo", #call, __FILE__, __LINE__, e_.what());            \
    }                                                                              \
  } while (0)
