// Gloo collectives in one process (N replica threads, TCP pairs over loopback), checked against sums
// written out independently of the benchmark's checker.
#include <catch2/catch.hpp>

#include "comm/collective_check.h"
#include "core/error.h"
#include "core/run_on_threads.h"

using namespace mg;

using test::run_op;
using test::value;

TEST_CASE("gloo collectives sum, scatter, gather and broadcast exactly for 1..4 ranks in every dtype") {
  const size_t count = 37;  // odd: no rank's block lines up with a power of two
  for (int n = 1; n <= 4; ++n) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "collectives-" + std::to_string(n));
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
      for (bool in_place : {false, true}) {
        INFO("ranks " << n << " dtype " << dtype_name(dt) << " in_place " << in_place);
        test::check_collectives(w, dt, in_place, count);
      }
    }
  }
}

TEST_CASE("gloo allreduce of a large odd-sized buffer crosses Gloo's segment boundaries correctly") {
  test::CpuWorld w = test::make_cpu_world(3, 20, "large");
  const size_t count = (1 << 20) + 11;  // chunks above Gloo's 1 MiB segments, not a multiple of the ranks
  auto ar = run_op(w, CollectiveOp::AllReduce, DType::F32, true, count, 0);
  auto rs = run_op(w, CollectiveOp::ReduceScatter, DType::F32, false, count / 3, 0);
  for (int r = 0; r < 3; ++r) {
    for (size_t i = 0; i < count; i += 997) REQUIRE(ar[r][i] == value(0, i) + value(1, i) + value(2, i));
    REQUIRE(rs[r].back() == value(0, (r + 1) * (count / 3) - 1) * 3 + 3);
  }
}

TEST_CASE("gloo broadcast and allgather move int32 data, summing int32 is refused on the caller") {
  test::CpuWorld w = test::make_cpu_world(2, 20, "int32");
  std::vector<std::vector<int32_t>> src(2), dst(2, std::vector<int32_t>(2 * 5, -1));
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 5; ++i) src[r].push_back(1000 * r + i);
  }
  mg::run_on_threads(2, [&](int r) {
    w.comms[r]->collective(CollectiveOp::AllGather, src[r].data(), dst[r].data(), 5, DType::I32, 0, StreamKind::Comm);
    w.backends[r]->synchronize(StreamKind::Comm);
  });
  for (int r = 0; r < 2; ++r) CHECK(dst[r] == std::vector<int32_t>{0, 1, 2, 3, 4, 1000, 1001, 1002, 1003, 1004});
  CHECK_THROWS_AS(w.comms[0]->collective(CollectiveOp::AllReduce, src[0].data(), src[0].data(), 5, DType::I32, 0,
                                         StreamKind::Comm),
                  UsageError);
}
