// Gloo's recorded file is the one this process mapped, and its version comes from that file's name.
#include <catch2/catch.hpp>

#include <filesystem>

#include "comm/gloo/gloo_library.h"
#include "support/mapped_files.h"

using namespace mg;

TEST_CASE("gloo library: the recorded file is mapped in this process and names the version", "[comm][libraries]") {
  const LoadedLibrary g = gloo_loaded_library();
  INFO(g.file);
  REQUIRE_FALSE(g.file.empty());
  CHECK(test::mapped_files().count(g.file) == 1);
  CHECK(std::filesystem::path(g.file).filename().string().find("libgloo") == 0);
  CHECK_FALSE(std::filesystem::is_symlink(g.file));
  if (g.file.find(".so.") != std::string::npos) CHECK(g.file.substr(g.file.rfind(".so.") + 4) == g.version);
  CHECK(gloo_header_version().find('.') != std::string::npos);
}
