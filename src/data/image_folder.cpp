#include "data/image_folder.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/error.h"

namespace mg {

namespace fs = std::filesystem;

bool has_jpeg_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg";
}

FolderIndex scan_image_folder(const std::string& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec || !fs::exists(st)) throw UsageError("data folder " + dir + " does not exist");
  if (!fs::is_directory(st)) throw UsageError("data path " + dir + " is neither a folder nor a .mgrec file");

  FolderIndex idx;
  idx.root = dir;
  bool any_entry = false;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    any_entry = true;
    if (it->is_directory(ec)) idx.classes.push_back(it->path().filename().string());
  }
  if (ec) throw UsageError("cannot list data folder " + dir + ": " + ec.message());
  if (!any_entry) throw UsageError("data folder " + dir + " is empty");
  if (idx.classes.empty()) {
    throw UsageError("data folder " + dir + " has no class sub-folders (expected " + dir +
                     "/<class>/<image>.jpg)");
  }
  std::sort(idx.classes.begin(), idx.classes.end());

  for (size_t c = 0; c < idx.classes.size(); ++c) {
    const fs::path cdir = fs::path(dir) / idx.classes[c];
    std::vector<std::string> files;
    for (fs::directory_iterator it(cdir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec) && has_jpeg_extension(it->path().string())) files.push_back(it->path().string());
    }
    if (ec) throw UsageError("cannot list class folder " + cdir.string() + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      idx.files.push_back(std::move(f));
      idx.labels.push_back(static_cast<int32_t>(c));
    }
  }
  if (idx.files.empty()) {
    throw UsageError("data folder " + dir + " has " + std::to_string(idx.classes.size()) +
                     " class sub-folders but no .jpg/.jpeg files in them");
  }
  return idx;
}

namespace {

class FolderStore final : public SampleStore {
 public:
  explicit FolderStore(FolderIndex idx) : idx_(std::move(idx)) {}

  int64_t size() const override { return static_cast<int64_t>(idx_.files.size()); }
  int32_t label(int64_t i) const override { return idx_.labels[static_cast<size_t>(i)]; }
  int64_t num_classes() const override { return static_cast<int64_t>(idx_.classes.size()); }
  std::string name(int64_t i) const override { return idx_.files[static_cast<size_t>(i)]; }
  std::string describe() const override {
    return "image folder " + idx_.root + " (" + std::to_string(size()) + " images, " +
           std::to_string(num_classes()) + " classes)";
  }

  void read(int64_t i, std::vector<uint8_t>& bytes) const override {
    const std::string& path = idx_.files[static_cast<size_t>(i)];
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) throw Error("cannot open image " + path + ": " + std::strerror(errno));
    const std::streamoff n = f.tellg();
    if (n < 0) throw Error("cannot size image " + path);
    bytes.resize(static_cast<size_t>(n));
    f.seekg(0);
    if (n > 0 && !f.read(reinterpret_cast<char*>(bytes.data()), n)) {
      throw Error("cannot read image " + path + ": " + std::strerror(errno));
    }
  }

 private:
  FolderIndex idx_;
};

}  // namespace

std::unique_ptr<SampleStore> make_folder_store(FolderIndex index) {
  return std::make_unique<FolderStore>(std::move(index));
}

}  // namespace mg
