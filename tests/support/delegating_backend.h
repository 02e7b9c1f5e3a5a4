// A Backend that forwards every call to another one, for tests that need to observe or alter one part of a
// real backend (derive and override that part).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace mg::test {

class DelegatingBackend : public Backend {
 public:
  explicit DelegatingBackend(Backend& b) : b_(b) {}
  DeviceKind kind() const override { return b_.kind(); }
  DeviceInfo info() const override { return b_.info(); }
  std::string unsupported_reason(Precision p) const override { return b_.unsupported_reason(p); }
  void attach_thread() override { b_.attach_thread(); }
  void* device_alloc(size_t n) override { return b_.device_alloc(n); }
  void device_free(void* p) override { b_.device_free(p); }
  void* host_alloc_pinned(size_t n) override { return b_.host_alloc_pinned(n); }
  void host_free_pinned(void* p) override { b_.host_free_pinned(p); }
  size_t peak_memory_bytes() const override { return b_.peak_memory_bytes(); }
  void reset_peak_memory() override { b_.reset_peak_memory(); }
  size_t device_memory_in_use() override { return b_.device_memory_in_use(); }
  PeakRate peak_flops(Precision p) override { return b_.peak_flops(p); }
  void copy_h2d(void* d, const void* s, size_t n, StreamKind k) override { b_.copy_h2d(d, s, n, k); }
  void copy_d2h(void* d, const void* s, size_t n, StreamKind k) override { b_.copy_d2h(d, s, n, k); }
  void copy_d2d(void* d, const void* s, size_t n, StreamKind k) override { b_.copy_d2d(d, s, n, k); }
  std::unique_ptr<Event> create_event() override { return b_.create_event(); }
  void record(Event& e, StreamKind s) override { b_.record(e, s); }
  void stream_wait(StreamKind s, Event& e) override { b_.stream_wait(s, e); }
  void synchronize(Event& e) override { b_.synchronize(e); }
  void synchronize(StreamKind s) override { b_.synchronize(s); }
  bool query(Event& e) override { return b_.query(e); }
  double elapsed_seconds(Event& a, Event& b) override { return b_.elapsed_seconds(a, b); }
  void host_fn(StreamKind s, std::function<void()> fn) override { b_.host_fn(s, std::move(fn)); }
  void* native_stream(StreamKind s) override { return b_.native_stream(s); }
  bool fuses_relu(LayerKind k) const override { return b_.fuses_relu(k); }
  bool fuses_add(LayerKind k, Precision p) const override { return b_.fuses_add(k, p); }
  std::map<std::string, int> conv_algorithm_counts() const override { return b_.conv_algorithm_counts(); }
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    return b_.create_layer(d, in, o);
  }
  void fill(const Tensor& t, float v) override { b_.fill(t, v); }
  void fill_uniform(const Tensor& t, float lo, float hi, uint64_t s) override { b_.fill_uniform(t, lo, hi, s); }
  void add_inplace(const Tensor& d, const Tensor& s) override { b_.add_inplace(d, s); }
  void scale(const Tensor& t, float a) override { b_.scale(t, a); }
  void cast(const Tensor& d, const Tensor& s) override { b_.cast(d, s); }
  void softmax_xent(const Tensor& l, const Tensor& y, const Tensor& loss, const Tensor& dl, float g) override {
    b_.softmax_xent(l, y, loss, dl, g);
  }
  void sgd_update(float* p, const float* g, float* m, size_t n, float lr, float mom, float wd, float gs) override {
    b_.sgd_update(p, g, m, n, lr, mom, wd, gs);
  }
  void adamw_update(float* p, const float* g, float* m, float* v, size_t n, int64_t step, float lr, float b1, float b2,
                    float eps, float wd, float gs) override {
    b_.adamw_update(p, g, m, v, n, step, lr, b1, b2, eps, wd, gs);
  }
  int64_t count_nonfinite(const Tensor& t) override { return b_.count_nonfinite(t); }

 protected:
  Backend& b_;
};

// The options the graph asked every layer for, by layer name.
class RecordingBackend final : public DelegatingBackend {
 public:
  using DelegatingBackend::DelegatingBackend;
  std::unique_ptr<LayerOp> create_layer(const LayerDesc& d, const std::vector<Shape>& in,
                                        const LayerOptions& o) override {
    seen[d.name] = o;
    return b_.create_layer(d, in, o);
  }
  std::map<std::string, LayerOptions> seen;
};

}  // namespace mg::test
