#include "core/error.h"

#include <cstring>

#include "core/host_info.h"

namespace mg {

void check_failed(const char* lib, const char* call, const char* file, int line, const std::string& detail) {
  const char* base = std::strrchr(file, '/');
  std::string where = base ? base + 1 : file;
  throw Error(std::string(lib) + " call '" + call + "' failed at " + where + ":" + std::to_string(line) + " on " +
              hostname() + ": " + detail);
}

}  // namespace mg
