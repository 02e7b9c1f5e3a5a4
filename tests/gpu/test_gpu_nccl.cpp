// NCCL communicators on the GPU: one rank (every collective and dtype), two ranks where two GPUs exist, and
// a world whose second rank never joins, which must fail within the timeout instead of hanging.
#include <chrono>
#include <thread>

#include "gpu_test_util.h"
#include "support/skip.h"

#ifdef MG_HAVE_NCCL
#include "comm/rendezvous/in_process_store.h"
#include "comm/nccl/nccl_communicator.h"

using namespace gputest;

TEST_CASE("NCCL with one rank: every collective returns its input", "[gpu][nccl]") {
  InProcessStore store;
  auto comms = create_nccl_communicators(1, 0, {&gpu()}, store, "gpu-test-1", 60);
  REQUIRE(comms.size() == 1);
  Communicator& c = *comms[0];
  CHECK(c.rank() == 0);
  CHECK(c.size() == 1);
  CHECK(c.library() == "nccl");
  const size_t n = 3001;
  for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
    INFO(dtype_name(dt));
    const std::vector<float> v = rounded(random_vec(n, 21, -4.f, 4.f), dt);
    for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather,
                            CollectiveOp::Broadcast}) {
      INFO(collective_name(op));
      Dev send = upload(gpu(), v, dt);
      Dev recv = upload(gpu(), std::vector<float>(n, -1.f), dt);
      c.collective(op, send.p, recv.p, n, dt, 0, StreamKind::Comm);
      gpu().synchronize(StreamKind::Comm);
      CHECK(download(gpu(), recv.p, n, dt) == v);
    }
    Dev inplace = upload(gpu(), v, dt);
    c.allreduce_sum(inplace.p, n, dt);
    gpu().synchronize(StreamKind::Comm);
    CHECK(download(gpu(), inplace.p, n, dt) == v);
  }
  c.barrier();
  CHECK_THROWS_AS(c.collective(CollectiveOp::Broadcast, nullptr, nullptr, 0, DType::F32, 3, StreamKind::Comm),
                  UsageError);
  c.abort();
  Dev buf(gpu(), 4);
  CHECK_THROWS_AS(c.allreduce_sum(buf.p, 1, DType::F32), Error);
}

TEST_CASE("NCCL with two local GPUs sums across ranks", "[gpu][nccl]") {
  if (cuda_device_count() < 2) MG_SKIP("one GPU only: the two-rank NCCL test needs two");
  auto b0 = make_backend(DeviceKind::Cuda, 0, BackendOptions{});
  auto b1 = make_backend(DeviceKind::Cuda, 1, BackendOptions{});
  InProcessStore store;
  auto comms = create_nccl_communicators(2, 0, {b0.get(), b1.get()}, store, "gpu-test-2", 60);
  const size_t n = 1 << 20;
  std::vector<std::vector<float>> result(2);
  auto run = [&](int r, Backend& be) {
    be.attach_thread();
    Dev d = upload(be, std::vector<float>(n, static_cast<float>(r + 1)), DType::F32);
    comms[r]->allreduce_sum(d.p, n, DType::F32);
    be.synchronize(StreamKind::Comm);
    comms[r]->barrier();
    result[r] = download(be, d.p, n, DType::F32);
  };
  std::thread t0(run, 0, std::ref(*b0)), t1(run, 1, std::ref(*b1));
  t0.join();
  t1.join();
  CHECK(result[0] == std::vector<float>(n, 3.f));
  CHECK(result[1] == std::vector<float>(n, 3.f));
  comms.clear();
}

TEST_CASE("NCCL initialisation fails within the timeout when a rank never joins", "[gpu][nccl]") {
  InProcessStore store;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(create_nccl_communicators(2, 0, {&gpu()}, store, "gpu-test-missing", 3.0), Error);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(s < 30.0);
}

#endif  // MG_HAVE_NCCL
