// The communicator libraries' recorded files are the ones this process mapped, with the versions they report.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "comm/comm_libraries.h"
#include "support/mapped_files.h"
#ifdef MG_HAVE_NCCL
#include <nccl.h>
#endif

using namespace mg;

TEST_CASE("comm libraries: Gloo always, and in a CUDA build NCCL as loaded and as compiled against",
          "[comm][libraries]") {
  const auto libs = comm_loaded_libraries();
  std::map<std::string, std::string> versions;
  for (const auto& kv : comm_library_versions()) versions[kv.first] = kv.second;
  REQUIRE(libs.count("gloo") == 1);
  CHECK(versions.count("gloo") == 1);
#ifdef MG_HAVE_NCCL
  REQUIRE(libs.count("nccl") == 1);
  const LoadedLibrary& n = libs.at("nccl");
  INFO(n.file);
  CHECK(test::mapped_files().count(n.file) == 1);
  CHECK(std::filesystem::path(n.file).filename().string().find("libnccl") == 0);
  int code = 0;
  REQUIRE(ncclGetVersion(&code) == ncclSuccess);
  const std::string loaded =
      std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." + std::to_string(code % 100);
  CHECK(n.version == loaded);
  CHECK(versions.at("nccl") == loaded);
  CHECK(versions.at("nccl_headers") ==
        std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH));
#else
  CHECK(libs.size() == 1);
  CHECK(versions.size() == 1);
#endif
}
