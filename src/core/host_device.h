// MG_HD marks a function that runs on the host and, compiled by nvcc, on the device too.
#pragma once

#if defined(__CUDACC__)
#define MG_HD __host__ __device__ __forceinline__
#else
#define MG_HD inline
#endif
