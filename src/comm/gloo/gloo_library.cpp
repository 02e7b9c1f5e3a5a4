#include "comm/gloo/gloo_library.h"

#include <gloo/config.h>
#include <gloo/transport/tcp/device.h>

#include "backend/loaded_libraries.h"

namespace mg {

std::string gloo_header_version() {
  return std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." +
         std::to_string(GLOO_VERSION_PATCH);
}

LoadedLibrary gloo_loaded_library() {
  // Gloo reports no version at run time; the real file's name carries it (libgloo.so.0.5.0), "" where it does not.
  const std::string file = loaded_file_of(reinterpret_cast<const void*>(&gloo::transport::tcp::CreateDevice));
  const size_t so = file.rfind(".so.");
  return {file, so == std::string::npos ? "" : file.substr(so + 4)};
}

}  // namespace mg
