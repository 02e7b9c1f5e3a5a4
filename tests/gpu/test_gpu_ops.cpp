// The CUDA backend's whole-tensor operations, memory accounting and streams, against the CPU backend.
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "backend/loaded_libraries.h"
#include "comm/comm_libraries.h"
#include "gpu_test_util.h"

using namespace gputest;

namespace {

std::vector<float> cpu_fill_uniform(size_t n, DType dt, float lo, float hi, uint64_t seed) {
  std::vector<uint8_t> b(n * dtype_size(dt));
  cpu().fill_uniform(Tensor{b.data(), Shape{static_cast<int64_t>(n)}, dt}, lo, hi, seed);
  if (dt == DType::I32) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(reinterpret_cast<int32_t*>(b.data())[i]);
    return v;
  }
  return decode(b, dt);
}

}  // namespace

TEST_CASE("fill_uniform gives the CPU backend's values bit for bit", "[gpu][ops]") {
  const size_t n = 100003;
  for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::I32}) {
    INFO(dtype_name(dt));
    const float lo = dt == DType::I32 ? 0.f : -2.5f, hi = dt == DType::I32 ? 1000.f : 3.f;
    Dev d(gpu(), n * dtype_size(dt));
    gpu().fill_uniform(Tensor{d.p, Shape{static_cast<int64_t>(n)}, dt}, lo, hi, 42);
    std::vector<float> got;
    if (dt == DType::I32) {
      std::vector<int32_t> raw(n);
      gpu().synchronize(StreamKind::Compute);
      gpu().copy_d2h(raw.data(), d.p, n * 4, StreamKind::Compute);
      gpu().synchronize(StreamKind::Compute);
      got.assign(raw.begin(), raw.end());
    } else {
      got = download(gpu(), d.p, n, dt);
    }
    const std::vector<float> want = cpu_fill_uniform(n, dt, lo, hi, 42);
    size_t mismatches = 0;
    for (size_t i = 0; i < n; ++i) mismatches += got[i] == want[i] ? 0 : 1;
    CHECK(mismatches == 0);
  }
}

TEST_CASE("fill, cast, add_inplace and scale match the CPU backend", "[gpu][ops]") {
  const size_t n = 4097;
  const std::vector<float> v = random_vec(n, 5, -3.f, 3.f);
  Dev f32 = upload(gpu(), v, DType::F32);
  const Shape s{static_cast<int64_t>(n)};
  for (DType dt : {DType::F16, DType::BF16}) {
    INFO(dtype_name(dt));
    Dev h(gpu(), n * 2);
    gpu().cast(Tensor{h.p, s, dt}, Tensor{f32.p, s, DType::F32});
    CHECK(download(gpu(), h.p, n, dt) == rounded(v, dt));  // round to nearest even, like core/half.h
    Dev back(gpu(), n * 4);
    gpu().cast(Tensor{back.p, s, DType::F32}, Tensor{h.p, s, dt});
    CHECK(download(gpu(), back.p, n, DType::F32) == rounded(v, dt));
  }
  Dev a = upload(gpu(), v, DType::F32);
  gpu().add_inplace(Tensor{a.p, s, DType::F32}, Tensor{f32.p, s, DType::F32});
  gpu().scale(Tensor{a.p, s, DType::F32}, 0.25f);
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = (v[i] + v[i]) * 0.25f;
  CHECK(download(gpu(), a.p, n, DType::F32) == want);
  gpu().fill(Tensor{a.p, s, DType::F32}, 1.5f);
  CHECK(download(gpu(), a.p, n, DType::F32) == std::vector<float>(n, 1.5f));
}

TEST_CASE("softmax cross-entropy matches the CPU backend", "[gpu][ops]") {
  const int64_t n = 37, k = 1000;
  for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
    INFO(dtype_name(dt));
    const std::vector<float> logits = rounded(random_vec(static_cast<size_t>(n * k), 3, -8.f, 8.f), dt);
    std::vector<int32_t> labels(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) labels[static_cast<size_t>(i)] = static_cast<int32_t>((i * 7919) % k);
    float cpu_loss = 0;
    std::vector<float> cpu_d(static_cast<size_t>(n * k));
    cpu().softmax_xent(Tensor{const_cast<float*>(logits.data()), Shape{n, k}, DType::F32},
                       Tensor{labels.data(), Shape{n}, DType::I32}, Tensor{&cpu_loss, Shape{1}, DType::F32},
                       Tensor{cpu_d.data(), Shape{n, k}, DType::F32}, 128.f);
    Dev gl = upload(gpu(), logits, dt);
    Dev glab(gpu(), labels.size() * 4);
    gpu().copy_h2d(glab.p, labels.data(), labels.size() * 4, StreamKind::Compute);
    Dev gloss(gpu(), 4), gd(gpu(), static_cast<size_t>(n * k) * dtype_size(dt));
    gpu().softmax_xent(Tensor{gl.p, Shape{n, k}, dt}, Tensor{glab.p, Shape{n}, DType::I32},
                       Tensor{gloss.p, Shape{1}, DType::F32}, Tensor{gd.p, Shape{n, k}, dt}, 128.f);
    const float loss = download(gpu(), gloss.p, 1, DType::F32)[0];
    CHECK(std::abs(loss - cpu_loss) <= 1e-4 * std::abs(cpu_loss));
    CHECK(rel_err(download(gpu(), gd.p, static_cast<size_t>(n * k), dt), cpu_d) <=
          (dt == DType::F32 ? 1e-5 : tolerance(Precision::BF16)));
  }
}

TEST_CASE("softmax cross-entropy turns an out-of-range label into a NaN loss", "[gpu][ops]") {
  const std::vector<float> logits = random_vec(20, 1);
  const int32_t labels[2] = {3, 10};  // 10 is outside [0, 10)
  Dev gl = upload(gpu(), logits, DType::F32);
  Dev glab(gpu(), 8), gloss(gpu(), 4);
  gpu().copy_h2d(glab.p, labels, 8, StreamKind::Compute);
  gpu().softmax_xent(Tensor{gl.p, Shape{2, 10}, DType::F32}, Tensor{glab.p, Shape{2}, DType::I32},
                     Tensor{gloss.p, Shape{1}, DType::F32}, Tensor{}, 1.f);
  CHECK(std::isnan(download(gpu(), gloss.p, 1, DType::F32)[0]));
}

TEST_CASE("SGD momentum update matches the CPU backend", "[gpu][ops]") {
  const size_t n = 10001;
  std::vector<float> p = random_vec(n, 1), g = random_vec(n, 2), v = random_vec(n, 3);
  Dev gp = upload(gpu(), p, DType::F32), gg = upload(gpu(), g, DType::F32), gv = upload(gpu(), v, DType::F32);
  for (int step = 0; step < 3; ++step) {
    cpu().sgd_update(p.data(), g.data(), v.data(), n, 0.1f, 0.9f, 1e-4f, 0.5f);
    gpu().sgd_update(static_cast<float*>(gp.p), static_cast<const float*>(gg.p), static_cast<float*>(gv.p), n, 0.1f,
                     0.9f, 1e-4f, 0.5f);
  }
  CHECK(rel_err(download(gpu(), gp.p, n, DType::F32), p) <= 1e-6);
  CHECK(rel_err(download(gpu(), gv.p, n, DType::F32), v) <= 1e-6);
}

TEST_CASE("AdamW update matches the CPU backend", "[gpu][ops]") {
  const size_t n = 10001;
  std::vector<float> p = random_vec(n, 1), g = random_vec(n, 2), m(n, 0.f), v(n, 0.f);
  Dev gp = upload(gpu(), p, DType::F32), gg = upload(gpu(), g, DType::F32), gm = upload(gpu(), m, DType::F32),
      gv = upload(gpu(), v, DType::F32);
  for (int64_t step = 1; step <= 3; ++step) {
    cpu().adamw_update(p.data(), g.data(), m.data(), v.data(), n, step, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 0.5f);
    gpu().adamw_update(static_cast<float*>(gp.p), static_cast<const float*>(gg.p), static_cast<float*>(gm.p),
                       static_cast<float*>(gv.p), n, step, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 0.5f);
  }
  CHECK(rel_err(download(gpu(), gp.p, n, DType::F32), p) <= 1e-6);
  CHECK(rel_err(download(gpu(), gm.p, n, DType::F32), m) <= 1e-6);
  CHECK(rel_err(download(gpu(), gv.p, n, DType::F32), v) <= 1e-6);
}

TEST_CASE("count_nonfinite counts NaN and Inf in every float type", "[gpu][ops]") {
  std::vector<float> v = random_vec(5000, 9);
  v[0] = NAN;
  v[17] = INFINITY;
  v[4999] = -INFINITY;
  for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
    Dev d = upload(gpu(), v, dt);
    CHECK(gpu().count_nonfinite(Tensor{d.p, Shape{5000}, dt}) == 3);
  }
}

TEST_CASE("device memory is counted and exhaustion names the request", "[gpu][memory]") {
  gpu().reset_peak_memory();
  const size_t before = gpu().peak_memory_bytes();
  {
    Dev a(gpu(), size_t{64} << 20);
    CHECK(gpu().peak_memory_bytes() >= before + (size_t{64} << 20));
  }
  const size_t huge = gpu().info().memory_bytes * 2;
  try {
    gpu().device_alloc(huge);
    FAIL("allocating twice the device memory succeeded");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find(std::to_string(huge)) != std::string::npos);
    CHECK(msg.find("peak") != std::string::npos);
  }
  Dev after(gpu(), 1024);  // the failure left the device usable
  CHECK(after.p != nullptr);
}

TEST_CASE("streams, events and host functions keep their order", "[gpu][streams]") {
  Backend& be = gpu();
  auto e0 = be.create_event(), e1 = be.create_event();
  std::atomic<int> seq{0};
  int first = -1, second = -1;
  be.record(*e0, StreamKind::Compute);
  be.host_fn(StreamKind::Compute, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    first = seq++;
  });
  be.record(*e1, StreamKind::Compute);
  be.stream_wait(StreamKind::Copy, *e1);
  be.host_fn(StreamKind::Copy, [&] { second = seq++; });
  be.synchronize(StreamKind::Copy);
  CHECK(first == 0);
  CHECK(second == 1);
  CHECK(be.query(*e1));
  CHECK(be.elapsed_seconds(*e0, *e1) >= 0.025);
  be.host_fn(StreamKind::Comm, [] { throw Error("boom from a host function"); });
  CHECK_THROWS_WITH(be.synchronize(StreamKind::Comm), Catch::Contains("boom"));
}

TEST_CASE("library versions name the CUDA stack", "[gpu][versions]") {
  REQUIRE(open_deferred_libraries() == "");  // cuBLAS is opened on first use, not at start
  auto v = backend_library_versions();
  for (const auto& kv : comm_library_versions()) v.push_back(kv);
  auto has = [&](const std::string& k) {
    for (auto& kv : v)
      if (kv.first == k && !kv.second.empty()) return true;
    return false;
  };
  for (const char* k : {"cuda_headers", "cudnn_headers", "cublas_headers", "nccl_headers", "cuda_driver",
                        "cuda_runtime", "cudnn", "cublas", "cublaslt", "nccl"}) {
    INFO(k);
    CHECK(has(k));
  }
}

TEST_CASE("loaded CUDA libraries are files this process mapped, with the versions they report", "[gpu][versions]") {
  REQUIRE(open_deferred_libraries() == "");  // before reading the maps: cuBLAS is opened on first use
  std::set<std::string> mapped;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find('/') != std::string::npos) mapped.insert(line.substr(line.find('/')));
  auto libs = backend_loaded_libraries();
  libs.merge(comm_loaded_libraries());
  std::map<std::string, std::string> versions;
  for (const auto& kv : backend_library_versions()) versions[kv.first] = kv.second;
  for (const auto& kv : comm_library_versions()) versions[kv.first] = kv.second;
  for (const char* k : {"cudart", "cublas", "cublaslt", "cudnn", "nccl"}) {
    INFO(k);
    REQUIRE(libs.count(k) == 1);
    CHECK(mapped.count(libs.at(k).file) == 1);
    CHECK_FALSE(libs.at(k).version.empty());
  }
  CHECK(libs.at("cudnn").version == versions.at("cudnn"));
  CHECK(libs.at("nccl").version == versions.at("nccl"));
  CHECK(libs.at("cudart").version == versions.at("cuda_runtime"));
}
