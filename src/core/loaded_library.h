// A library as this process loaded it: the file the dynamic loader mapped (symlinks resolved) and the version the
// library itself reports. Plain data, so results (src/result) can record what the backends (src/backend) found.
#pragma once
#include <string>

namespace mg {

struct LoadedLibrary {
  std::string file;     // absolute real path; the executable itself for a statically linked library
  std::string version;  // as the loaded library reports it ("" where it reports none)
};

}  // namespace mg
