// The files mapped into this process, as the kernel names them (/proc/self/maps): what a recorded library file
// is checked against.
#pragma once
#include <fstream>
#include <set>
#include <string>

namespace mg::test {

inline std::set<std::string> mapped_files() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> files;
  std::string line;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash != std::string::npos) files.insert(line.substr(slash));
  }
  return files;
}

}  // namespace mg::test
