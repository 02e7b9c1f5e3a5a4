// The CPU backend's streams and events refuse what CUDA refuses, so a misuse that only a GPU would catch
// (elapsed time of a never-recorded event, another device's event, a buffer freed under a pending copy) fails
// here, in CI.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "core/error.h"

using namespace mg;

namespace {

std::unique_ptr<Backend> cpu_backend(int ordinal = 0) {
  BackendOptions o;
  o.threads = 1;
  return make_backend(DeviceKind::Cpu, ordinal, o);
}

bool throws_containing(const std::function<void()>& f, const std::string& text) {
  try {
    f();
  } catch (const Error& e) {
    INFO(e.what());
    return std::string(e.what()).find(text) != std::string::npos;
  }
  return false;
}

}  // namespace

TEST_CASE("cpu events: elapsed time or a wait or a synchronisation on a never-recorded event is an error",
          "[backend][streams]") {
  auto be = cpu_backend();
  auto a = be->create_event(), b = be->create_event();
  be->record(*a, StreamKind::Compute);
  CHECK(throws_containing([&] { be->elapsed_seconds(*a, *b); }, "never recorded"));
  CHECK(throws_containing([&] { be->elapsed_seconds(*b, *a); }, "never recorded"));
  CHECK(throws_containing([&] { be->stream_wait(StreamKind::Comm, *b); }, "never recorded"));
  CHECK(throws_containing([&] { be->stream_wait(StreamKind::Compute, *b); }, "never recorded"));
  CHECK(throws_containing([&] { be->synchronize(*b); }, "never recorded"));
  // Once recorded (on any stream of this device) it is an ordinary event.
  be->record(*b, StreamKind::Copy);
  be->stream_wait(StreamKind::Comm, *b);
  be->synchronize(*b);
  CHECK(be->elapsed_seconds(*a, *b) >= 0.0);
  be->synchronize(StreamKind::Comm);
}

TEST_CASE("cpu events: an event of one device used on another is an error", "[backend][streams]") {
  auto d0 = cpu_backend(0), d1 = cpu_backend(1);
  auto e0 = d0->create_event(), e1 = d1->create_event();
  d0->record(*e0, StreamKind::Compute);
  d1->record(*e1, StreamKind::Compute);
  CHECK(throws_containing([&] { d1->record(*e0, StreamKind::Compute); }, "used on device cpu:1"));
  CHECK(throws_containing([&] { d1->stream_wait(StreamKind::Comm, *e0); }, "event of device cpu:0"));
  CHECK(throws_containing([&] { d1->elapsed_seconds(*e1, *e0); }, "event of device cpu:0"));
  CHECK(throws_containing([&] { d0->synchronize(*e1); }, "event of device cpu:1"));
  CHECK(d0->elapsed_seconds(*e0, *e0) == 0.0);
}

TEST_CASE("cpu memory: freeing a buffer a queued copy still uses is reported at the next synchronize",
          "[backend][streams]") {
  auto be = cpu_backend();
  std::vector<float> host(1024, 1.0f);
  void* dev = be->device_alloc(host.size() * sizeof(float));
  // Hold the copy stream so the copy below is still queued when the buffer is freed.
  be->host_fn(StreamKind::Copy, [] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
  be->copy_h2d(dev, host.data(), host.size() * sizeof(float), StreamKind::Copy);
  be->device_free(dev);  // the copy has not run: an error on a GPU (the memory may be reused under it)
  CHECK(throws_containing([&] { be->synchronize(StreamKind::Copy); }, "freed while a copy on the copy stream"));
  // Reported once, like any stream failure; correct use afterwards is fine.
  be->synchronize(StreamKind::Copy);
  void* ok = be->device_alloc(64);
  be->copy_h2d(ok, host.data(), 64, StreamKind::Copy);
  be->synchronize(StreamKind::Copy);
  be->device_free(ok);
  be->synchronize(StreamKind::Copy);
}

TEST_CASE("cpu memory: freeing a pointer the backend did not allocate is an error", "[backend][streams]") {
  auto be = cpu_backend();
  int x = 0;
  CHECK_THROWS_AS(be->device_free(&x), Error);
}
