// Checked NCCL calls, in the same one-line format as the CUDA/cuDNN/cuBLAS macros (core/error.h).
// ncclInProgress is not an error: it is how non-blocking communicators say "still working"; callers that
// use non-blocking communicators test for it before checking (see nccl_communicator.cpp).
#pragma once
#include <nccl.h>

#include <string>

#include "core/error.h"

namespace mg {
inline std::string nccl_error_detail(ncclResult_t r) {
  std::string d = ncclGetErrorString(r);
  const char* last = ncclGetLastError(nullptr);  // the comm argument is unused by NCCL
  if (last && *last) d += std::string(" (") + last + ")";
  return d;
}
}  // namespace mg

#define MG_CHECK_NCCL(call)                                                                    \
  do {                                                                                         \
    const ncclResult_t mg_r_ = (call);                                                         \
    if (mg_r_ != ncclSuccess) {                                                                \
      ::mg::check_failed("NCCL", #call, __FILE__, __LINE__, ::mg::nccl_error_detail(mg_r_));   \
    }                                                                                          \
  } while (0)
