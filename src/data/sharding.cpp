#include "data/sharding.h"

#include <numeric>
#include <utility>

#include "core/counter_rng.h"
#include "core/error.h"

namespace mg {

EpochSharder::EpochSharder(int64_t num_samples, int64_t batch_size, int shard, int num_shards, uint64_t seed,
                           const std::string& what)
    : n_(num_samples), batch_(batch_size), shard_(shard), shards_(num_shards), seed_(seed) {
  if (batch_size <= 0) throw UsageError("batch size must be positive, got " + std::to_string(batch_size));
  if (num_shards <= 0 || shard < 0 || shard >= num_shards) {
    throw UsageError("shard " + std::to_string(shard) + " outside 0.." + std::to_string(num_shards - 1));
  }
  const int64_t global = batch_size * num_shards;
  if (num_samples < global) {
    throw UsageError(what + " has " + std::to_string(num_samples) + " samples, fewer than one global batch (" +
                     std::to_string(batch_size) + " x " + std::to_string(num_shards) + " replicas = " +
                     std::to_string(global) + ")");
  }
}

std::vector<int64_t> EpochSharder::permutation(int64_t n, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  const uint64_t key = splitmix64(seed ^ splitmix64(static_cast<uint64_t>(epoch) + 0x5EED));
  for (int64_t i = n - 1; i > 0; --i) {
    // Lemire's multiply-shift maps 64 random bits onto [0, i] without a division; the bias is < 2^-32.
    const uint64_t r = splitmix64(key + static_cast<uint64_t>(i));
    const int64_t j = static_cast<int64_t>(
        (static_cast<unsigned __int128>(r) * static_cast<unsigned __int128>(i + 1)) >> 64);
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(j)]);
  }
  return p;
}

const std::vector<int64_t>& EpochSharder::perm(int64_t epoch) {
  if (epoch != cached_epoch_) {
    cached_ = permutation(n_, seed_, epoch);
    cached_epoch_ = epoch;
  }
  return cached_;
}

std::vector<SampleRef> EpochSharder::batch(int64_t step) {
  std::vector<SampleRef> out(static_cast<size_t>(batch_));
  const int64_t first = step * batch_ * shards_ + shard_ * batch_;
  for (int64_t k = 0; k < batch_; ++k) {
    const int64_t pos = first + k;
    const int64_t epoch = pos / n_;
    out[static_cast<size_t>(k)] = SampleRef{perm(epoch)[static_cast<size_t>(pos % n_)], epoch};
  }
  return out;
}

}  // namespace mg
