// Runs one collective on every rank of a CpuWorld with inputs whose sums are exact in every dtype, and returns
// each rank's output, so tests can check results written out independently of the benchmark's checker.
#pragma once
#include <catch2/catch.hpp>

#include <vector>

#include "support/cpu_world.h"
#include "core/half.h"
#include "core/run_on_threads.h"

namespace mg::test {

inline float value(int rank, size_t i) { return static_cast<float>(rank + 1 + static_cast<int>(i % 5)); }

inline void put(std::vector<char>& buf, size_t i, DType dt, float v) {
  if (dt == DType::F32) reinterpret_cast<float*>(buf.data())[i] = v;
  if (dt == DType::F16) reinterpret_cast<uint16_t*>(buf.data())[i] = float_to_fp16(v);
  if (dt == DType::BF16) reinterpret_cast<uint16_t*>(buf.data())[i] = float_to_bf16(v);
}
inline float get(const char* p, size_t i, DType dt) {
  if (dt == DType::F32) return reinterpret_cast<const float*>(p)[i];
  if (dt == DType::F16) return fp16_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
  return bf16_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
}

// Runs op on every rank of an n-rank world and returns each rank's output elements.
inline std::vector<std::vector<float>> run_op(CpuWorld& w, CollectiveOp op, DType dt, bool in_place, size_t count,
                                       int root) {
  const int n = static_cast<int>(w.comms.size());
  const size_t es = dtype_size(dt);
  std::vector<std::vector<float>> out(n);
  mg::run_on_threads(n, [&](int r) {
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
    w.comms[r]->collective(op, send, recv, count, dt, root, StreamKind::Comm);
    w.backends[r]->synchronize(StreamKind::Comm);
    for (size_t i = 0; i < nout; ++i) out[r].push_back(get(recv, i, dt));
  });
  return out;
}

// All four collectives on every rank, compared element by element with sums written out here.
inline void check_collectives(CpuWorld& w, DType dt, bool in_place, size_t count) {
  const int n = static_cast<int>(w.comms.size());
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

}  // namespace mg::test
