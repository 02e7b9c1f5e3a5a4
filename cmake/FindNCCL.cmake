# Finds NCCL (nccl.h and libnccl) in the CUDA toolkit or NCCL_ROOT; defines NCCL::nccl and NCCL_VERSION.
include(${CMAKE_CURRENT_LIST_DIR}/mg_find_cuda_library.cmake)
mg_find_cuda_library(NCCL nccl nccl.h PATCH)
