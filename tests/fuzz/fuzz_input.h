// Shared by the fuzz targets: the only failure a parser of outside input may report is mg::Error (UsageError
// for bad input); anything else escaping it (std::out_of_range from a stoi, nlohmann's own exceptions, a
// crash) is a bug that libFuzzer reports with the input that caused it.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "core/error.h"

namespace mg::fuzz {

// A file holding the input, for readers that take a path (result files, .mgrec). One per process under
// /dev/shm (memory, and libFuzzer's parallel jobs are separate processes).
inline std::string input_file(const uint8_t* data, size_t size, const char* suffix) {
  const std::string path = "/dev/shm/mgbench-fuzz-" + std::to_string(::getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

// Two inputs from one (the part before the first NUL and the part after it), for consumers of two files; without
// a NUL both parts are the whole input.
inline std::pair<std::string, std::string> split_at_nul(const uint8_t* data, size_t size) {
  const std::string all(reinterpret_cast<const char*>(data), size);
  const size_t nul = all.find('\0');
  if (nul == std::string::npos) return {all, all};
  return {all.substr(0, nul), all.substr(nul + 1)};
}

// Runs fn; mg::Error is the expected rejection of bad input.
template <typename F>
void expect_only_mg_errors(F&& fn) {
  try {
    fn();
  } catch (const Error&) {
  }
}

}  // namespace mg::fuzz
