// The library files a result records are the ones this process mapped: oneDNN's recorded file is a file of
// /proc/self/maps (symlinks resolved), and its version is what the loaded oneDNN reports.
#include <catch2/catch.hpp>

#include <oneapi/dnnl/dnnl.h>

#include <filesystem>
#include <string>

#include "backend/backend.h"
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

#ifdef MG_HAVE_CUDA
// cuBLAS costs every process that maps it about 0.4 s and 200 MB at start, so it is opened by the CUDA backend on
// first use: until then it is neither mapped nor recorded; once opened, the record names the mapped file.
// (Runs without a GPU: opening cuBLAS needs none.)
TEST_CASE("loaded libraries: cuBLAS is not mapped until opened, then recorded as mapped", "[backend][libraries]") {
  auto maps_cublas = [] {
    for (const std::string& f : mapped_files())
      if (std::filesystem::path(f).filename().string().rfind("libcublas", 0) == 0) return true;
    return false;
  };
  // Nothing else in this binary opens it (no CUDA backend starts without a GPU, and ctest runs each case alone).
  CHECK_FALSE(maps_cublas());
  const auto libs_before = backend_loaded_libraries();
  CHECK(libs_before.count("cublas") == 0);
  CHECK(libs_before.count("cublaslt") == 0);
  REQUIRE(open_deferred_libraries() == "");  // a CUDA build's machine has the toolkit's cuBLAS
  CHECK(maps_cublas());
  const auto libs = backend_loaded_libraries();
  for (const char* k : {"cublas", "cublaslt"}) {
    INFO(k);
    REQUIRE(libs.count(k) == 1);
    CHECK(mapped_files().count(libs.at(k).file) == 1);
    CHECK_FALSE(libs.at(k).version.empty());
  }
  CHECK(std::filesystem::path(libs.at("cublas").file).filename().string().rfind("libcublas.so", 0) == 0);
}
#endif
