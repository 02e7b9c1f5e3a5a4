#include "comm/comm_libraries.h"

#include "comm/gloo/gloo_library.h"
#ifdef MG_HAVE_NCCL
#include "comm/nccl/nccl_library.h"
#endif

namespace mg {

std::vector<std::pair<std::string, std::string>> comm_library_versions() {
  std::vector<std::pair<std::string, std::string>> v = {{"gloo", gloo_header_version()}};
#ifdef MG_HAVE_NCCL
  v.emplace_back("nccl_headers", nccl_header_version());
  const std::string loaded = nccl_loaded_version();
  if (!loaded.empty()) v.emplace_back("nccl", loaded);
#endif
  return v;
}

std::map<std::string, LoadedLibrary> comm_loaded_libraries() {
  std::map<std::string, LoadedLibrary> out = {{"gloo", gloo_loaded_library()}};
#ifdef MG_HAVE_NCCL
  out["nccl"] = nccl_loaded_library();
#endif
  return out;
}

}  // namespace mg
