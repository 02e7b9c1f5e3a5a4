// The in-process communicator (replica threads exchanging through shared memory): exact results for every
// collective, dtype, placement and awkward size; bitwise-identical sums in rank order on every rank; many
// operations queued back to back; disagreeing calls refused; and the selection that picks it.
#include <catch2/catch.hpp>

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
      // Out of place, the output starts one element past a 16-byte boundary: the stores' unaligned head.
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
