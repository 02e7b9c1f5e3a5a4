// The in-process communicator (replica threads exchanging through shared memory): exact results for every
// collective, dtype, placement and awkward size; bitwise-identical sums in rank order on every rank; many
// operations queued back to back; disagreeing calls refused; and the selection that picks it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>

#include "comm/collective_check.h"
#include "comm/local/local_communicator.h"
#include "core/error.h"
#include "core/run_on_threads.h"
#include "support/delegating_backend.h"

using namespace mg;

TEST_CASE("local collectives are exact for 1..4 ranks, every dtype, in and out of place, odd sizes") {
  for (int n = 1; n <= 4; ++n) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "local-" + std::to_string(n), "local");
    REQUIRE(w.comms[0]->library() == "local");
    // 1 and 3: fewer elements than ranks' slices; 37: odd; 5003: more than one 16 KiB block per rank.
    for (size_t count : {size_t{1}, size_t{3}, size_t{37}, size_t{5003}}) {
      for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
        for (bool in_place : {false, true}) {
          INFO("ranks " << n << " count " << count << " dtype " << dtype_name(dt) << " in_place " << in_place);
          test::check_collectives(w, dt, in_place, count);
        }
      }
    }
  }
}

TEST_CASE("local all-reduce sums in rank order, so every rank holds bitwise the same result") {
  for (int n : {2, 3, 4}) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "order", "local");
    // Several blocks per slice, slices not a multiple of anything, and above the size from which outputs
    // that are not inputs are written with non-temporal stores.
    const size_t count = (1 << 20) + 7;
    std::vector<std::vector<float>> in(n, std::vector<float>(count));
    std::mt19937 rng(42 + n);
    std::uniform_real_distribution<float> u(-1e3f, 1e3f);
    for (auto& v : in) {
      for (float& x : v) x = u(rng);  // rounding makes the order of the sum visible
    }
    std::vector<float> expected(count);
    for (size_t i = 0; i < count; ++i) {
      float s = in[0][i];
      for (int r = 1; r < n; ++r) s += in[r][i];
      expected[i] = s;
    }
    for (bool in_place : {true, false}) {
      // Out of place, the output starts one element past a 16-byte boundary, where fp32 keeps normal stores
      // (streamed ones need 16 bytes; the out-of-place test below covers them).
      std::vector<std::vector<float>> out(n, std::vector<float>(count + 1, -1.0f)), buf = in;
      mg::run_on_threads(n, [&](int r) {
        float* recv = in_place ? buf[r].data() : out[r].data() + 1;
        w.comms[r]->collective(CollectiveOp::AllReduce, buf[r].data(), recv, count, DType::F32, 0, StreamKind::Comm);
        w.backends[r]->synchronize(StreamKind::Comm);
      });
      for (int r = 0; r < n; ++r) {
        INFO("ranks " << n << " rank " << r << " in_place " << in_place);
        const float* got = in_place ? buf[r].data() : out[r].data() + 1;
        CHECK(std::memcmp(got, expected.data(), count * sizeof(float)) == 0);
        if (!in_place) CHECK(out[r][0] == -1.0f);
        if (!in_place) CHECK(buf[r] == in[r]);  // out of place leaves the input alone
      }
    }
  }
}

TEST_CASE("many local all-reduces queued back to back on the Comm stream each see their own inputs") {
  const int n = 3, ops = 300;
  test::CpuWorld w = test::make_cpu_world(n, 20, "queue", "local");
  std::vector<std::vector<std::vector<float>>> bufs(n);
  mg::run_on_threads(n, [&](int r) {
    for (int k = 0; k < ops; ++k) {
      const size_t count = 1 + static_cast<size_t>(k) * 37 % 3000;  // alternate tiny and multi-block sizes
      bufs[r].emplace_back(count, static_cast<float>(k + r));
    }
    // No synchronization between operations: a rank may run ahead into the next one while its peers still
    // work on the previous, which is what the rendezvous must make safe.
    for (int k = 0; k < ops; ++k) {
      w.comms[r]->allreduce_sum(bufs[r][k].data(), bufs[r][k].size(), DType::F32);
    }
    w.backends[r]->synchronize(StreamKind::Comm);
  });
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < ops; ++k) {
      INFO("rank " << r << " op " << k);
      const float want = static_cast<float>(3 * k + 0 + 1 + 2);
      for (float x : bufs[r][k]) REQUIRE(x == want);
    }
  }
}

TEST_CASE("local ranks that disagree on a call fail on every rank instead of reading past a buffer") {
  test::CpuWorld w = test::make_cpu_world(2, 20, "disagree", "local");
  std::vector<float> a(100, 1.0f), b(50, 1.0f);
  std::string errors[2];
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      try {
        std::vector<float>& v = r == 0 ? a : b;
        w.comms[r]->allreduce_sum(v.data(), v.size(), DType::F32);
        w.backends[r]->synchronize(StreamKind::Comm);
      } catch (const Error& e) {
        errors[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 2; ++r) {
    CHECK_THAT(errors[r], Catch::Contains("disagree") && Catch::Contains("100 fp32") && Catch::Contains("50 fp32"));
  }
  CHECK(a[0] == 1.0f);
  CHECK(b[0] == 1.0f);
}

TEST_CASE("replica threads get the local communicator by default, Gloo with tcp, and local refuses processes") {
  CHECK(test::make_cpu_world(2, 20, "pick-auto", "auto").comms[0]->library() == "local");
  CHECK(test::make_cpu_world(2, 20, "pick-local", "local").comms[1]->library() == "local");
  CHECK(test::make_cpu_world(2, 20, "pick-tcp", "tcp").comms[0]->library() == "gloo");
  auto be = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  LaunchInfo li;
  li.launcher = Launcher::Env;
  li.world_size = 2;
  li.master_addr = "127.0.0.1";
  li.master_port = 1;
  CommOptions opt;
  opt.transport = Transport::Local;
  CHECK_THROWS_WITH(create_communicators(li, {be.get()}, opt), Catch::Contains("threads of one process"));
}

// A backend that claims to be a GPU: the CPU communicators must refuse it when they are created, since their
// collectives no longer look at the device kind.
class ClaimsCuda final : public test::DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  DeviceKind kind() const override { return DeviceKind::Cuda; }
};

TEST_CASE("CPU communicators are bound to their backends and refuse a non-CPU one when created") {
  test::CpuWorld w = test::make_cpu_world(2, 20, "bound", "auto");
  for (int r = 0; r < 2; ++r) CHECK(&w.comms[r]->backend() == w.backends[r].get());
  auto cpu = make_backend(DeviceKind::Cpu, 0, BackendOptions{1});
  ClaimsCuda gpu(*cpu);
  for (const char* transport : {"auto", "tcp"}) {
    INFO(transport);
    CommOptions opt;
    opt.timeout_s = 5;
    opt.transport = kTransportNames.parse(transport, "test transport");
    opt.job_key = std::string("refuse-") + transport;
    CHECK_THROWS_WITH(create_communicators(LaunchInfo{}, {cpu.get(), &gpu}, opt),
                      Catch::Contains("--comm gloo works on --device cpu"));
  }
}

TEST_CASE("local reduce sums into the root's output only, in and out of place") {
  for (int n = 1; n <= 4; ++n) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "reduce", "local");
    for (bool in_place : {false, true}) {
      const size_t count = 5003;
      const int root = n - 1;
      std::vector<std::vector<float>> send(n), recv(n, std::vector<float>(count, -7.0f));
      std::vector<std::thread> threads;
      for (int r = 0; r < n; ++r) {
        for (size_t i = 0; i < count; ++i) send[r].push_back(test::value(r, i));
        threads.emplace_back([&, r] {
          float* out = in_place ? send[r].data() : recv[r].data();
          w.comms[r]->collective(CollectiveOp::Reduce, send[r].data(), out, count, DType::F32, root,
                                 StreamKind::Comm);
          w.backends[r]->synchronize(StreamKind::Comm);
        });
      }
      for (auto& t : threads) t.join();
      for (int r = 0; r < n; ++r) {
        INFO("ranks " << n << " rank " << r << " in_place " << in_place);
        const std::vector<float>& got = in_place ? send[r] : recv[r];
        for (size_t i = 0; i < count; ++i) {
          float sum = 0;
          for (int q = 0; q < n; ++q) sum += test::value(q, i);
          REQUIRE(got[i] == (r == root ? sum : in_place ? test::value(r, i) : -7.0f));
        }
      }
    }
  }
}

// The sum the reducing collectives promise: element i of every input in rank order, rounded to dt after every
// add (what an fp16/bf16 add is), so the expected bytes can be compared bitwise.
static float rank_order_sum(const std::vector<const char*>& in, size_t i, DType dt) {
  auto round = [dt](float v) {
    if (dt == DType::F16) return fp16_to_float(float_to_fp16(v));
    if (dt == DType::BF16) return bf16_to_float(float_to_bf16(v));
    return v;
  };
  float s = test::get(in[0], i, dt);
  for (size_t r = 1; r < in.size(); ++r) s = round(s + test::get(in[r], i, dt));
  return s;
}

TEST_CASE("local out-of-place reductions: every dtype, 1..4 ranks, odd and streamed sizes, bitwise equal, inputs "
          "untouched") {
  const std::vector<DType> dtypes = {DType::F32, DType::F16, DType::BF16};
  for (int n = 1; n <= 4; ++n) {
    test::CpuWorld w = test::make_cpu_world(n, 20, "oop-" + std::to_string(n), "local");
    for (DType dt : dtypes) {
      const size_t es = dtype_size(dt);
      // 1: fewer elements than ranks; 17: one 16-element line plus a tail; 1003: not a multiple of any rank
      // count or line; 0: per op, slices of just over 1 MiB, whose outputs are written with streamed stores
      // (fp32 with 2 and 3 ranks, 16-bit types with 2: the paths are the same for any count, and these sizes
      // are what makes the test slow under the sanitizers).
      for (size_t small_count : {size_t{1}, size_t{17}, size_t{1003}, size_t{0}}) {
        if (small_count == 0 && n != 2 && !(n == 3 && dt == DType::F32)) continue;
        for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::Reduce}) {
          // A reduce-scatter rank reduces its whole block, an all-reduce or reduce rank 1/n of the buffer.
          const size_t slices = op == CollectiveOp::ReduceScatter ? 1 : static_cast<size_t>(n);
          const size_t count = small_count ? small_count : slices * ((size_t{1} << 20) / es + 64) + 13;
          // Unshifted, the output starts 64 bytes (the guard) into a 16-byte-aligned allocation: aligned, so
          // fp32's one-pass kernel streams where the slice is large enough. Shifted one element, it takes the
          // stores' unaligned path (fp32 keeps normal stores; the 16-bit types' streamed copy has a head).
          for (size_t shift : {size_t{0}, size_t{1}}) {
            if (shift && small_count == 0 && dt != DType::F32) continue;
            INFO("ranks " << n << " " << dtype_name(dt) << " count " << count << " " << collective_name(op)
                          << " output shifted " << shift);
            const size_t n_in = op == CollectiveOp::ReduceScatter ? count * n : count;
            const int root = n - 1;
            std::vector<std::vector<char>> in(n, std::vector<char>(n_in * es)), out(n);
            std::mt19937 rng(7 * n + static_cast<int>(count));
            std::uniform_real_distribution<float> u(-100.0f, 100.0f);  // rounding makes the order visible
            for (auto& v : in) {
              for (size_t i = 0; i < n_in; ++i) test::put(v, i, dt, u(rng));
            }
            const std::vector<std::vector<char>> original = in;
            // A 64-byte guard before and after every output: nothing outside it may be written.
            const size_t guard = 64 / es, total = count + 2 * guard + shift;
            for (auto& v : out) {
              v.resize(total * es);
              for (size_t i = 0; i < total; ++i) test::put(v, i, dt, -7.0f);
              if (shift == 0) REQUIRE(reinterpret_cast<uintptr_t>(v.data() + guard * es) % 16 == 0);
            }
            mg::run_on_threads(n, [&](int r) {
              w.comms[r]->collective(op, in[r].data(), out[r].data() + (guard + shift) * es, count, dt, root,
                                     StreamKind::Comm);
              w.backends[r]->synchronize(StreamKind::Comm);
            });
            for (int r = 0; r < n; ++r) {
              INFO("rank " << r);
              REQUIRE(in[r] == original[r]);
              std::vector<char> want(out[r].size());
              for (size_t i = 0; i < total; ++i) test::put(want, i, dt, -7.0f);
              if (op != CollectiveOp::Reduce || r == root) {
                // Reduce-scatter: rank r's block of every input.
                const size_t first = op == CollectiveOp::ReduceScatter ? static_cast<size_t>(r) * count : 0;
                std::vector<const char*> block;
                for (int q = 0; q < n; ++q) block.push_back(original[q].data() + first * es);
                for (size_t i = 0; i < count; ++i) test::put(want, guard + shift + i, dt, rank_order_sum(block, i, dt));
              }
              REQUIRE(std::memcmp(out[r].data(), want.data(), want.size()) == 0);
            }
            // All-reduce: every rank bitwise the same (implied above, stated here for what the trainer relies on).
            if (op == CollectiveOp::AllReduce) {
              for (int r = 1; r < n; ++r) REQUIRE(out[r] == out[0]);
            }
          }
        }
      }
    }
  }
}
