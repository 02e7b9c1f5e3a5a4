// --allreduce ps on Gloo: Reduce puts the sum on the root only, and reduce + broadcast (the parameter-server
// exchange) gives every rank the all-reduce result, in place and out of place, in every wire dtype.
#include <catch2/catch.hpp>

#include "support/cpu_world.h"
#include "core/half.h"
#include "core/run_on_threads.h"

using namespace mg;

namespace {

float rank_value(int rank, size_t i) { return static_cast<float>(2 * rank + 1 + static_cast<int>(i % 7)); }

void put(std::vector<char>& b, size_t i, DType dt, float v) {
  if (dt == DType::F32) reinterpret_cast<float*>(b.data())[i] = v;
  if (dt == DType::F16) reinterpret_cast<uint16_t*>(b.data())[i] = float_to_fp16(v);
  if (dt == DType::BF16) reinterpret_cast<uint16_t*>(b.data())[i] = float_to_bf16(v);
}
float get(const std::vector<char>& b, size_t i, DType dt) {
  if (dt == DType::F32) return reinterpret_cast<const float*>(b.data())[i];
  if (dt == DType::F16) return fp16_to_float(reinterpret_cast<const uint16_t*>(b.data())[i]);
  return bf16_to_float(reinterpret_cast<const uint16_t*>(b.data())[i]);
}

// Every rank's output after `ps` (reduce + broadcast) or a plain Reduce to `root`.
std::vector<std::vector<float>> run(test::CpuWorld& w, bool ps, DType dt, bool in_place, size_t count, int root) {
  const int n = static_cast<int>(w.comms.size());
  std::vector<std::vector<float>> out(n);
  mg::run_on_threads(n, [&](int r) {
    std::vector<char> a(count * dtype_size(dt)), b(count * dtype_size(dt));
    for (size_t i = 0; i < count; ++i) {
      put(a, i, dt, rank_value(r, i));
      put(b, i, dt, -3);
    }
    std::vector<char>& recv = in_place ? a : b;
    if (ps) {
      w.comms[r]->ps_allreduce_sum(a.data(), recv.data(), count, dt);
    } else {
      w.comms[r]->collective(CollectiveOp::Reduce, a.data(), recv.data(), count, dt, root,
                             StreamKind::Comm);
    }
    w.backends[r]->synchronize(StreamKind::Comm);
    for (size_t i = 0; i < count; ++i) out[r].push_back(get(recv, i, dt));
  });
  return out;
}

}  // namespace

TEST_CASE("gloo reduce sums on the root, ps all-reduce (reduce + broadcast) matches the all-reduce sum") {
  const size_t count = 1001;
  for (int n : {1, 2, 3}) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "ps-" + std::to_string(n));
    for (DType dt : {DType::F32, DType::BF16}) {
      for (bool in_place : {false, true}) {
        INFO("ranks " << n << " dtype " << dtype_name(dt) << " in_place " << in_place);
        const int root = n - 1;
        auto red = run(w, false, dt, in_place, count, root);
        auto ps = run(w, true, dt, in_place, count, 0);
        for (size_t i = 0; i < count; ++i) {
          float sum = 0;
          for (int q = 0; q < n; ++q) sum += rank_value(q, i);
          REQUIRE(red[root][i] == sum);
          for (int r = 0; r < n; ++r) REQUIRE(ps[r][i] == sum);
        }
      }
    }
  }
}
