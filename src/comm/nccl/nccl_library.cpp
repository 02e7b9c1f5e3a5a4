#include "comm/nccl/nccl_library.h"

#include <nccl.h>

#include <fmt/format.h>

#include "backend/loaded_libraries.h"

namespace mg {

std::string nccl_header_version() { return fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH); }

std::string nccl_loaded_version() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "";
  return fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
}

LoadedLibrary nccl_loaded_library() {
  return {loaded_file_of(reinterpret_cast<const void*>(&ncclGetVersion)), nccl_loaded_version()};
}

}  // namespace mg
