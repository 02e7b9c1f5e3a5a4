// make_data_source: picks the source for --data (synthetic, an image folder, or a .mgrec record file).
#include "data/data_source.h"

#include "core/error.h"
#include "data/decode_pool.h"
#include "data/image_folder.h"
#include "data/record_file.h"
#include "data/synthetic_source.h"

namespace mg {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::unique_ptr<DataSource> make_data_source(const DataSpec& spec) {
  if (spec.batch_size < 1) throw UsageError("--batch-size must be at least 1, got " + std::to_string(spec.batch_size));
  if (spec.image_size < 1) throw UsageError("--image-size must be at least 1, got " + std::to_string(spec.image_size));
  if (spec.path.empty() || spec.path == "synthetic") return make_host_synthetic_source(spec);
  if (ends_with(spec.path, ".mgrec")) return make_decode_pool_source(open_record_file(spec.path), spec);
  return make_decode_pool_source(make_folder_store(scan_image_folder(spec.path)), spec);
}

}  // namespace mg
