#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "data/sharding.h"

using namespace mg;

TEST_CASE("sharding: every sample exactly once per epoch across 1-4 shards, 1-2 ranks") {
  const int64_t n = 103;  // prime: epochs never align with global batches, so the tail always wraps
  for (int shards = 1; shards <= 4; ++shards) {
    for (int64_t b : {1, 5, 8}) {
      // Shards are global replica indices: two ranks of two replicas are shards 0..3 just like one rank of four.
      std::vector<EpochSharder> s;
      for (int i = 0; i < shards; ++i) s.emplace_back(n, b, i, shards, 42, "test");
      // Walk 3 epochs' worth of global steps and attribute each position to its epoch.
      std::map<int64_t, std::vector<int>> seen;  // epoch -> count per sample
      const int64_t steps = (3 * n) / (b * shards) + 1;
      for (int64_t t = 0; t < steps; ++t)
        for (int i = 0; i < shards; ++i)
          for (const auto& r : s[i].batch(t)) {
            REQUIRE(r.index >= 0);
            REQUIRE(r.index < n);
            auto& v = seen[r.epoch];
            v.resize(n);
            ++v[r.index];
          }
      for (int64_t e = 0; e < 3; ++e) {
        INFO("shards " << shards << " batch " << b << " epoch " << e);
        REQUIRE(seen[e].size() == size_t(n));
        for (int64_t i = 0; i < n; ++i) REQUIRE(seen[e][i] == 1);
      }
    }
  }
}

TEST_CASE("sharding: batches are always full and wrap the epoch tail") {
  EpochSharder s(10, 4, 0, 1, 1, "test");
  // Positions 8..11 of the stream: two from epoch 0's tail, two from epoch 1.
  auto b = s.batch(2);
  REQUIRE(b.size() == 4);
  REQUIRE(b[0].epoch == 0);
  REQUIRE(b[1].epoch == 0);
  REQUIRE(b[2].epoch == 1);
  REQUIRE(b[3].epoch == 1);
}

TEST_CASE("sharding: same seed same order, different seeds or epochs different orders") {
  const auto a = EpochSharder::permutation(1000, 7, 0);
  REQUIRE(a == EpochSharder::permutation(1000, 7, 0));
  REQUIRE(a != EpochSharder::permutation(1000, 8, 0));
  REQUIRE(a != EpochSharder::permutation(1000, 7, 1));
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(sorted[i] == i);
  int fixed = 0;
  for (int64_t i = 0; i < 1000; ++i) fixed += a[i] == i;
  REQUIRE(fixed < 10);  // a shuffle, not the identity (expected about 1)
  EpochSharder x(1000, 16, 1, 2, 7, "t"), y(1000, 16, 1, 2, 7, "t"), z(1000, 16, 1, 2, 9, "t");
  const auto bx = x.batch(3), by = y.batch(3), bz = z.batch(3);
  bool differ = false;
  for (size_t i = 0; i < bx.size(); ++i) {
    REQUIRE(bx[i].index == by[i].index);
    differ |= bx[i].index != bz[i].index;
  }
  REQUIRE(differ);
}

TEST_CASE("sharding: fewer samples than one global batch is a usage error naming the data") {
  REQUIRE_THROWS_AS(EpochSharder(15, 4, 0, 4, 1, "folder /x"), UsageError);
  REQUIRE_THROWS_WITH(EpochSharder(15, 4, 0, 4, 1, "folder /x"), Catch::Contains("folder /x") &&
                                                                     Catch::Contains("16"));
  REQUIRE_NOTHROW(EpochSharder(16, 4, 3, 4, 1, "folder /x"));
}
