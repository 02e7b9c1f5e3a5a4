// cuBLAS opened on first use (dlopen), not linked: its and cuBLASLt's static initialisers cost every process
// about 0.4 s and 200 MB resident at start (measured), CPU runs and `--help` included. cuDNN opens cuBLASLt the
// same way. Owns the open library and the entry points the CUDA backend calls.
#pragma once
#include <cublasLt.h>
#include <cublas_api.h>

#include <string>

namespace mg::cuda {

// The header's non-overloaded declaration of cublasGemmEx (cublas_api.h adds C++ overloads taking cudaDataType).
using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                        const void*, const void*, cudaDataType, int, const void*, cudaDataType, int,
                                        const void*, void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                                      int, int, const void*, const void*, cudaDataType, int,
                                                      long long int, const void*, cudaDataType, int, long long int,
                                                      const void*, void*, cudaDataType, int, long long int, int,
                                                      cublasComputeType_t, cublasGemmAlgo_t);

struct CublasLibrary {
  std::string soname;      // libcublas.so.<major of the headers>
  std::string lt_soname;   // libcublasLt.so.<major>
  decltype(&::cublasCreate_v2) create;
  decltype(&::cublasDestroy_v2) destroy;
  decltype(&::cublasSetStream_v2) set_stream;
  decltype(&::cublasSetPointerMode_v2) set_pointer_mode;
  CublasGemmEx gemm_ex;
  CublasGemmStridedBatchedEx gemm_strided_batched_ex;
  decltype(&::cublasGetProperty) get_property;
  decltype(&::cublasGetStatusName) status_name;
  decltype(&::cublasGetStatusString) status_string;
  decltype(&::cublasLtGetVersion) lt_version;
};

// Opens cuBLAS and cuBLASLt once per process (thread-safe); throws Error naming the file and the loader's
// reason when either cannot be opened or lacks an entry point.
const CublasLibrary& cublas_library();

// The library if this process has opened it, else nullptr (a result records what ran; it does not open it).
const CublasLibrary* cublas_library_if_open();

// "<name>: <description>" of a cuBLAS status, or its number when the library is not open.
std::string cublas_status_text(cublasStatus_t status);

}  // namespace mg::cuda
