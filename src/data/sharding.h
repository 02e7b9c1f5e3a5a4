// Which samples each replica reads, step by step.
//
// The sample stream is the concatenation of one shuffled permutation of all samples per epoch (permutation
// e depends only on the seed and e). Global step t takes the next batch_size * num_shards positions of that
// stream, and shard s takes its contiguous batch_size of them. Every sample therefore appears exactly once per
// epoch across all shards, and batches are always full: an epoch's tail that does not fill a global batch
// WRAPS into the first samples of the next epoch's permutation rather than being dropped. Wrapping loses no
// data (dropping would discard up to one global batch every epoch, a large share of a small test folder) and
// keeps the exactly-once guarantee exact. A short batch is never produced: one replica's short batch would
// skew its batch-norm statistics and its share of the all-reduced gradient.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mg {

struct SampleRef {
  int64_t index = 0;  // into the dataset's samples
  int64_t epoch = 0;  // the permutation it came from (seeds the augmentation)
};

class EpochSharder {
 public:
  // Throws UsageError (naming `what`) when num_samples < batch_size * num_shards.
  EpochSharder(int64_t num_samples, int64_t batch_size, int shard, int num_shards, uint64_t seed,
               const std::string& what);

  // Samples of this shard's batch at global step `step` (0, 1, 2, ...).
  std::vector<SampleRef> batch(int64_t step);

  // Permutation of 0..n-1 for epoch e (Fisher-Yates driven by the counter RNG, so the same on every machine).
  static std::vector<int64_t> permutation(int64_t n, uint64_t seed, int64_t epoch);

 private:
  const std::vector<int64_t>& perm(int64_t epoch);

  int64_t n_, batch_, shard_, shards_;
  uint64_t seed_;
  int64_t cached_epoch_ = -1;
  std::vector<int64_t> cached_;
};

}  // namespace mg
