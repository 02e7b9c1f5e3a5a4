// NCCL's entries in the environment record (the version built against, the one loaded, the file loaded): the
// communicator module owns NCCL, so the backends neither include nor link it. CUDA builds only (MG_HAVE_NCCL).
#pragma once
#include <string>

#include "core/loaded_library.h"

namespace mg {

std::string nccl_header_version();   // from nccl.h, as compiled against
std::string nccl_loaded_version();   // what the loaded NCCL reports (ncclGetVersion); "" where it cannot say
LoadedLibrary nccl_loaded_library();  // the real file loaded, and nccl_loaded_version()

}  // namespace mg
