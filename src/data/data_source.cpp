// make_data_source: picks the source for --data (synthetic, an image folder, a .mgrec record file, or a token
// file), and the batch layout every source and stager shares.
#include "data/data_source.h"

#include <algorithm>

#include "core/ends_with.h"
#include "core/error.h"
#include "data/decode_pool.h"
#include "data/image_folder.h"
#include "data/record_file.h"
#include "data/synthetic_source.h"
#include "data/token_file.h"

namespace mg {

Tensor batch_inputs(const DataSpec& spec, void* data) {
  if (spec.seq_len > 0) return Tensor{data, Shape{spec.batch_size, spec.seq_len}, DType::I32};
  return Tensor{data, Shape{spec.batch_size, 3, spec.image_size, spec.image_size}, DType::F32};
}

Tensor batch_labels(const DataSpec& spec, void* data) {
  return Tensor{data, Shape{spec.batch_size * std::max<int64_t>(spec.seq_len, 1)}, DType::I32};
}

void check_data_kind(const std::string& path, bool language_model) {
  if (path.empty() || path == "synthetic") return;
  const bool token_file = ends_with(path, kTokenFileSuffix);
  if (language_model && !token_file) {
    throw UsageError("--data " + path + ": a language model reads a token file (" + kTokenFileSuffix +
                     ", made by `mgbench prepare-data TEXT OUT" + kTokenFileSuffix + "`), not images");
  }
  if (!language_model && token_file) throw UsageError("--data " + path + " holds tokens: it is for language models");
}

std::unique_ptr<DataSource> make_data_source(const DataSpec& spec) {
  if (spec.batch_size < 1) throw UsageError("--batch-size must be at least 1, got " + std::to_string(spec.batch_size));
  if (spec.image_size < 1) throw UsageError("--image-size must be at least 1, got " + std::to_string(spec.image_size));
  if (spec.path.empty() || spec.path == "synthetic") return make_host_synthetic_source(spec);
  check_data_kind(spec.path, spec.seq_len > 0);
  if (spec.seq_len > 0) return make_token_file_source(spec);
  if (ends_with(spec.path, ".mgrec")) return make_decode_pool_source(open_record_file(spec.path), spec);
  return make_decode_pool_source(make_folder_store(scan_image_folder(spec.path)), spec);
}

}  // namespace mg
