// The communicator libraries' entries in the environment record, `mgbench topo` and --version: Gloo always, NCCL in
// a CUDA build. The communicator module owns both, so the backends neither include nor link them for versions.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/loaded_library.h"

namespace mg {

// gloo (its headers; it reports none), then in a CUDA build nccl_headers (as compiled against) and nccl (as the
// loaded library reports it, left out where it cannot say).
std::vector<std::pair<std::string, std::string>> comm_library_versions();

// gloo, and nccl in a CUDA build: the real files loaded and the versions they report.
std::map<std::string, LoadedLibrary> comm_loaded_libraries();

}  // namespace mg
