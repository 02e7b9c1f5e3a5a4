// Checked calls into the CUDA runtime, cuDNN and cuBLAS. Every return code goes through these macros so a
// failure names the call, file, line and host in one line (format owned by mg::check_failed in core/error.h).
#pragma once
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "backend/cuda/cublas_library.h"
#include "core/error.h"

#define MG_CHECK_CUDA(call)                                                                      \
  do {                                                                                           \
    const cudaError_t mg_e_ = (call);                                                            \
    if (mg_e_ != cudaSuccess) {                                                                  \
      ::mg::check_failed("CUDA", #call, __FILE__, __LINE__,                                      \
                         std::string(cudaGetErrorName(mg_e_)) + ": " + cudaGetErrorString(mg_e_)); \
    }                                                                                            \
  } while (0)

#define MG_CHECK_CUDNN(call)                                                                     \
  do {                                                                                           \
    const cudnnStatus_t mg_s_ = (call);                                                          \
    if (mg_s_ != CUDNN_STATUS_SUCCESS) {                                                         \
      ::mg::check_failed("cuDNN", #call, __FILE__, __LINE__, cudnnGetErrorString(mg_s_));       \
    }                                                                                            \
  } while (0)

#define MG_CHECK_CUBLAS(call)                                                                    \
  do {                                                                                           \
    const cublasStatus_t mg_s_ = (call);                                                         \
    if (mg_s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      ::mg::check_failed("cuBLAS", #call, __FILE__, __LINE__, ::mg::cuda::cublas_status_text(mg_s_)); \
    }                                                                                            \
  } while (0)

// Kernel launches report configuration errors only through cudaGetLastError.
#define MG_CHECK_LAUNCH() MG_CHECK_CUDA(cudaGetLastError())
