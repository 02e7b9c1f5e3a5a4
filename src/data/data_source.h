// Host-side producers of training batches, one per replica, each reading only its own shard, and the layout
// of a batch: images and a label each, or a language model's token ids and the next token of each.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/tensor.h"

namespace mg {

struct DataSpec {
  std::string path;        // "" = synthetic; a directory (ImageNet layout), a .mgrec file, or a token file (.bin)
  int64_t batch_size = 0;  // per replica
  int64_t image_size = 224;
  int64_t seq_len = 0;     // > 0: a language model's tokens per sample (image_size unused)
  int64_t num_classes = 1000;  // a language model's: its vocabulary
  int shard = 0;           // global replica index
  int num_shards = 1;      // global replica count
  uint64_t seed = 1;
  int threads = 2;         // decode workers for real data
  bool skip_bad_images = false;
};

// A batch's inputs: fp32 images {N,3,H,W} (NHWC in memory), or int32 token ids {N,T}.
Tensor batch_inputs(const DataSpec& spec, void* data = nullptr);
// A batch's labels: int32, one per image {N}, or one per token {N*T}: the token that follows it.
Tensor batch_labels(const DataSpec& spec, void* data = nullptr);

// Produces batches in host memory, laid out as batch_inputs and batch_labels say (images normalised).
class DataSource {
 public:
  virtual ~DataSource() = default;
  // Fills the next full batch of this shard. Blocks until ready. Throws Error naming a bad file.
  virtual void next(void* inputs, int32_t* labels) = 0;
  virtual int64_t samples_per_epoch() const = 0;  // all shards together
  virtual int64_t skipped_images() const { return 0; }
  virtual int64_t num_classes() const = 0;
  virtual std::string describe() const = 0;
};

// Throws UsageError when --data `path` holds the wrong kind of sample for the model: a token file (.bin) for an
// image model, or anything but a token file or "synthetic" for a language model. Cheap: names only.
void check_data_kind(const std::string& path, bool language_model);

// Synthetic host source (random images or tokens, labels uniform over classes), or the real-data source for
// spec.path. Bad input (missing/empty folder, corrupt record or token file, fewer samples than one global
// batch, images for a language model or tokens for an image model) throws UsageError.
std::unique_ptr<DataSource> make_data_source(const DataSpec& spec);

}  // namespace mg
