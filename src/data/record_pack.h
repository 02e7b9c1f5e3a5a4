// Packing an ImageNet-style folder into one .mgrec record file (docs/mgrec.md), the work behind
// `mgbench prepare-data`. Every image is fully decoded first, so a corrupt JPEG is reported here, naming the
// file, rather than hours into a training run.
#pragma once
#include <cstdint>
#include <string>

namespace mg {

struct RecordPackOptions {
  int threads = 1;        // threads reading and decoding images
  bool skip_bad = false;  // leave out images that fail to decode instead of failing
};

struct RecordPackSummary {
  int64_t images = 0;   // records written
  size_t classes = 0;   // class sub-folders
  int64_t bytes = 0;    // encoded image bytes written
  int64_t skipped = 0;  // images that failed to decode (skip_bad only)
};

// Writes `output` atomically (nothing is left behind on failure or a stop request); records are in folder
// order, so the same folder always gives the same file. A corrupt image without skip_bad, or a folder with no
// decodable image, is a UsageError.
RecordPackSummary pack_image_folder(const std::string& input, const std::string& output,
                                    const RecordPackOptions& opt);

}  // namespace mg
