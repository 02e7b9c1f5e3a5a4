// Host-side producers of training batches, one per replica, each reading only its own shard.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace mg {

struct DataSpec {
  std::string path;        // "" = synthetic; a directory (ImageNet layout) or a .mgrec file
  int64_t batch_size = 0;  // per replica
  int64_t image_size = 224;
  int64_t num_classes = 1000;
  int shard = 0;           // global replica index
  int num_shards = 1;      // global replica count
  uint64_t seed = 1;
  int threads = 2;         // decode workers for real data
  bool skip_bad_images = false;
};

// Produces batches in host memory: images NHWC fp32 (normalised), labels int32.
class DataSource {
 public:
  virtual ~DataSource() = default;
  // Fills the next full batch of this shard. Blocks until ready. Throws Error naming a bad file.
  virtual void next(float* images, int32_t* labels) = 0;
  virtual int64_t samples_per_epoch() const = 0;  // all shards together
  virtual int64_t skipped_images() const { return 0; }
  virtual int64_t num_classes() const = 0;
  virtual std::string describe() const = 0;
};

// Synthetic host source (random images, labels uniform over classes), or the real-data source for spec.path.
// Bad input (missing/empty folder, corrupt record file, fewer samples than one global batch) throws UsageError.
std::unique_ptr<DataSource> make_data_source(const DataSpec& spec);

}  // namespace mg
