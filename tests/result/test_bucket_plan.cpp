#include <catch2/catch.hpp>

#include "result/bucket_plan.h"

using namespace mg;

TEST_CASE("bucket layout: from the end of the gradient backwards, the last bucket taking the remainder") {
  // 10 elements in buckets of 4 fp32 values (16 bytes): [6,10), [2,6), [0,2).
  const auto b = plan_bucket_ranges(10, 16);
  REQUIRE(b.size() == 3);
  CHECK(b[0].begin == 6);
  CHECK(b[0].end == 10);
  CHECK(b[1].begin == 2);
  CHECK(b[1].end == 6);
  CHECK(b[2].begin == 0);
  CHECK(b[2].end == 2);
  CHECK(plan_bucket_ranges(10, 0).size() == 1);       // 0: one bucket
  CHECK(plan_bucket_ranges(10, 1 << 20).size() == 1);  // larger than the gradient: one bucket
  CHECK(plan_bucket_ranges(10, 3).size() == 1);        // less than one element per bucket: one bucket
  CHECK(plan_bucket_ranges(0, 16).empty());
  const auto exact = plan_bucket_ranges(8, 16);        // divides evenly: no empty bucket
  REQUIRE(exact.size() == 2);
  CHECK(exact[1].begin == 0);
}

TEST_CASE("bucket layout over layers: each bucket owned by the layer holding its first element") {
  // Layers of 3, 0, 5 and 2 elements (flat [0,3), none, [3,8), [8,10)); buckets of 4 elements: [6,10), [2,6), [0,2).
  const auto b = plan_layer_buckets({3, 0, 5, 2}, 16);
  REQUIRE(b.size() == 3);
  CHECK(b[0].begin == 6);
  CHECK(b[0].end == 10);
  CHECK(b[0].owner == 2);  // element 6 lies in the third layer, not the fourth, which completes last
  CHECK(b[1].begin == 2);
  CHECK(b[1].owner == 0);
  CHECK(b[2].owner == 0);
  const auto at_boundary = plan_layer_buckets({3, 0, 5, 2}, 28);  // 7 elements: [3,10), [0,3)
  REQUIRE(at_boundary.size() == 2);
  CHECK(at_boundary[0].begin == 3);
  CHECK(at_boundary[0].owner == 2);  // the empty layer at offset 3 owns nothing
  CHECK(at_boundary[1].owner == 0);
  CHECK(plan_layer_buckets({}, 16).empty());
  CHECK(plan_layer_buckets({0, 0}, 16).empty());
}
