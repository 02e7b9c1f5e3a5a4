// A scratch directory for one test, removed with everything in it when the test ends.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace mg::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "mg_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return (std::filesystem::path(path_) / rel).string(); }
  // Writes text and a newline to rel, creating the folders on the way (sysfs-style one-value files).
  void write(const std::string& rel, const std::string& text) const {
    const std::filesystem::path p = std::filesystem::path(path_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  }

 private:
  std::string path_;
};

}  // namespace mg::test
