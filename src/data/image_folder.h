// ImageNet-style folders: DIR/<class>/<image>.jpg. Class sub-folders sorted by name give labels 0..K-1 (as
// torchvision's ImageFolder does), so the same folder always maps to the same labels.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/sample_store.h"

namespace mg {

struct FolderIndex {
  std::string root;
  std::vector<std::string> classes;  // sorted sub-folder names; index = label
  std::vector<std::string> files;    // full paths, grouped by class, sorted within a class
  std::vector<int32_t> labels;       // per file
};

// True for .jpg / .jpeg in any letter case.
bool has_jpeg_extension(const std::string& path);

// Scans dir. UsageError (naming dir) when it is missing, not a directory, empty, has no class sub-folders, or
// its class sub-folders hold no JPEG files.
FolderIndex scan_image_folder(const std::string& dir);

// A SampleStore that reads each image from its file.
std::unique_ptr<SampleStore> make_folder_store(FolderIndex index);

}  // namespace mg
