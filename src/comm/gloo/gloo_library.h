// Gloo's entries in the environment record (the version it was built against, the file loaded): the
// communicator module owns Gloo, so the backends neither include nor link it.
#pragma once
#include <string>

#include "core/loaded_library.h"

namespace mg {

std::string gloo_header_version();        // from gloo/config.h, as compiled against
LoadedLibrary gloo_loaded_library();      // the real file loaded; its version from the file name (Gloo reports none)

}  // namespace mg
