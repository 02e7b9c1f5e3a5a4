// Which files the backends' libraries were loaded from, and the versions those files report: a result must say
// what ran, and the library found at run time need not be the one whose headers the binary was built against.
#pragma once
#include <map>
#include <string>

#include "core/loaded_library.h"

namespace mg {

// The real path of the file (shared object, or the executable) whose mapped segments hold `address`; "" when
// no loaded object holds it.
std::string loaded_file_of(const void* address);

// onednn always; cudart, cublas, cublaslt and cudnn in a CUDA build (Gloo and NCCL: comm/comm_libraries.h).
std::map<std::string, LoadedLibrary> backend_loaded_libraries();

}  // namespace mg
