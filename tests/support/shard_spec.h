// A data source's spec for the tests: a file or folder, a batch size, and which shard of how many to read.
#pragma once
#include <cstdint>
#include <string>

#include "data/data_source.h"

namespace mg::test {

inline DataSpec shard_spec(const std::string& path, int64_t batch, int shard, int shards) {
  DataSpec s;
  s.path = path;
  s.batch_size = batch;
  s.shard = shard;
  s.num_shards = shards;
  return s;
}

}  // namespace mg::test
