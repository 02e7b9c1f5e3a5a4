// Gloo collectives in one process (N replica threads, TCP pairs over loopback), checked against sums
// written out independently of the benchmark's checker.
#include <catch2/catch.hpp>

#include <thread>

#include "comm/comm_test_world.h"
#include "core/error.h"
#include "core/half.h"

using namespace mg;

namespace {

float value(int rank, size_t i) { return static_cast<float>(rank + 1 + static_cast<int>(i % 5)); }

void put(std::vector<char>& buf, size_t i, DType dt, float v) {
  if (dt == DType::F32) reinterpret_cast<float*>(buf.data())[i] = v;
  if (dt == DType::F16) reinterpret_cast<uint16_t*>(buf.data())[i] = float_to_fp16(v);
  if (dt == DType::BF16) reinterpret_cast<uint16_t*>(buf.data())[i] = float_to_bf16(v);
}
float get(const char* p, size_t i, DType dt) {
  if (dt == DType::F32) return reinterpret_cast<const float*>(p)[i];
  if (dt == DType::F16) return fp16_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
  return bf16_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
}

// Runs op on every rank of an n-rank world and returns each rank's output elements.
std::vector<std::vector<float>> run_op(test::CpuWorld& w, CollectiveOp op, DType dt, bool in_place, size_t count,
                                       int root) {
  const int n = static_cast<int>(w.comms.size());
  const size_t es = dtype_size(dt);
  std::vector<std::vector<float>> out(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      const size_t big = count * n;
      std::vector<char> a(big * es), b(big * es);
      for (size_t i = 0; i < big; ++i) {
        put(a, i, dt, -7);
        put(b, i, dt, -7);
      }
      char* send = a.data();
      char* recv = in_place ? a.data() : b.data();
      size_t nout = count;
      switch (op) {
        case CollectiveOp::AllReduce:
          for (size_t i = 0; i < count; ++i) put(a, i, dt, value(r, i));
          break;
        case CollectiveOp::Broadcast:
          if (r == root || !in_place) {
            for (size_t i = 0; i < count; ++i) put(a, i, dt, value(r, i));
          }
          break;
        case CollectiveOp::ReduceScatter:
          for (size_t i = 0; i < big; ++i) put(a, i, dt, value(r, i));
          if (in_place) recv = a.data() + r * count * es;
          break;
        case CollectiveOp::AllGather:
          nout = big;
          if (in_place) send = a.data() + r * count * es;
          for (size_t i = 0; i < count; ++i) {
            std::vector<char>& dst = a;
            put(dst, (in_place ? r * count : 0) + i, dt, value(r, r * count + i));
          }
          break;
        case CollectiveOp::Reduce:  // tests/comm/test_ps_allreduce.cpp
          break;
      }
      w.comms[r]->collective(op, send, recv, count, dt, root, *w.backends[r], StreamKind::Comm);
      w.backends[r]->synchronize(StreamKind::Comm);
      for (size_t i = 0; i < nout; ++i) out[r].push_back(get(recv, i, dt));
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace

TEST_CASE("gloo collectives sum, scatter, gather and broadcast exactly for 1..4 ranks in every dtype") {
  const size_t count = 37;  // odd: no rank's block lines up with a power of two
  for (int n = 1; n <= 4; ++n) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "collectives-" + std::to_string(n));
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
      for (bool in_place : {false, true}) {
        INFO("ranks " << n << " dtype " << dtype_name(dt) << " in_place " << in_place);
        auto ar = run_op(w, CollectiveOp::AllReduce, dt, in_place, count, 0);
        auto rs = run_op(w, CollectiveOp::ReduceScatter, dt, in_place, count, 0);
        auto ag = run_op(w, CollectiveOp::AllGather, dt, in_place, count, 0);
        const int root = n - 1;
        auto bc = run_op(w, CollectiveOp::Broadcast, dt, in_place, count, root);
        for (int r = 0; r < n; ++r) {
          for (size_t i = 0; i < count; ++i) {
            float sum = 0, block_sum = 0;
            for (int q = 0; q < n; ++q) {
              sum += value(q, i);
              block_sum += value(q, r * count + i);
            }
            REQUIRE(ar[r][i] == sum);
            REQUIRE(rs[r][i] == block_sum);
            REQUIRE(bc[r][i] == value(root, i));
          }
          for (size_t i = 0; i < count * n; ++i) REQUIRE(ag[r][i] == value(static_cast<int>(i / count), i));
        }
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

TEST_CASE("gloo broadcast and allgather move int32 data; summing int32 is refused on the caller") {
  test::CpuWorld w = test::make_cpu_world(2, 20, "int32");
  std::vector<std::vector<int32_t>> src(2), dst(2, std::vector<int32_t>(2 * 5, -1));
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 5; ++i) src[r].push_back(1000 * r + i);
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      w.comms[r]->collective(CollectiveOp::AllGather, src[r].data(), dst[r].data(), 5, DType::I32, 0,
                             *w.backends[r], StreamKind::Comm);
      w.backends[r]->synchronize(StreamKind::Comm);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 2; ++r) CHECK(dst[r] == std::vector<int32_t>{0, 1, 2, 3, 4, 1000, 1001, 1002, 1003, 1004});
  CHECK_THROWS_AS(w.comms[0]->collective(CollectiveOp::AllReduce, src[0].data(), src[0].data(), 5, DType::I32, 0,
                                         *w.backends[0], StreamKind::Comm),
                  UsageError);
}
