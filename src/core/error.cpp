#include "core/error.h"

#include <unistd.h>

#include <cstring>

namespace mg {

std::string hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

void check_failed(const char* lib, const char* call, const char* file, int line, const std::string& detail) {
  const char* base = std::strrchr(file, '/');
  std::string where = base ? base + 1 : file;
  throw Error(std::string(lib) + " call '" + call + "' failed at " + where + ":" + std::to_string(line) + " on " +
              hostname() + ": " + detail);
}

}  // namespace mg
