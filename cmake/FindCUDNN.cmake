# Finds cuDNN (headers and libcudnn) in the CUDA toolkit or CUDNN_ROOT; defines CUDNN::cudnn and CUDNN_VERSION.
include(${CMAKE_CURRENT_LIST_DIR}/mg_find_cuda_library.cmake)
mg_find_cuda_library(CUDNN cudnn cudnn_version.h PATCHLEVEL)
