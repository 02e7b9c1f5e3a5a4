// The library files a result records are the ones this process mapped: oneDNN's recorded file is a file of
// /proc/self/maps (symlinks resolved), and its version is what the loaded oneDNN reports.
#include <catch2/catch.hpp>

#include <oneapi/dnnl/dnnl.h>

#include <filesystem>
#include <string>

#include "backend/loaded_libraries.h"
#include "support/mapped_files.h"

using namespace mg;
using mg::test::mapped_files;

namespace {

int local_function() { return 7; }

}  // namespace

TEST_CASE("loaded libraries: oneDNN's recorded file is the one /proc/self/maps shows", "[backend][libraries]") {
  const auto libs = backend_loaded_libraries();
  REQUIRE(libs.count("onednn") == 1);
  const LoadedLibrary& d = libs.at("onednn");
  INFO(d.file);
  REQUIRE_FALSE(d.file.empty());
  CHECK(mapped_files().count(d.file) == 1);
  CHECK(std::filesystem::path(d.file).filename().string().find("libdnnl") == 0);
  CHECK_FALSE(std::filesystem::is_symlink(d.file));  // the file, not the soname link the loader opened
  const dnnl_version_t* v = dnnl_version();
  CHECK(d.version == std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch));
}

TEST_CASE("loaded libraries: an address in the executable names the executable, one in no object nothing",
          "[backend][libraries]") {
  const std::string exe = std::filesystem::canonical("/proc/self/exe").string();
  CHECK(loaded_file_of(reinterpret_cast<const void*>(&local_function)) == exe);
  CHECK(loaded_file_of(reinterpret_cast<const void*>(uintptr_t{16})).empty());
}
