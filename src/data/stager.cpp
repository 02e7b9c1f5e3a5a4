// The Stager: a ring of `depth` slots, each a pinned host buffer and a device buffer, filled by a producer
// thread so the copy of batch i+1 (on the Copy stream) overlaps compute on batch i.
//
// Per slot, two events keep the buffers safe without host round trips:
//   copied   - recorded on Copy after the slot's host->device copy; Compute waits on it before reading, and the
//              producer waits on it (host side) before refilling the host buffer.
//   consumed - recorded on Compute by release(); the Copy stream waits on it before overwriting the device
//              buffer with the slot's next batch.
// The producer only enqueues that wait after release() recorded the event it waits on (it blocks on a host
// counter first), so it never waits on a stale recording.
//
// input_wait_s is the host time next() spent until Compute could be ordered after the batch: waiting for the
// source to produce it, plus, on CPU where Compute is the calling thread, for the copy itself. On CUDA the
// copy wait is device-side (cudaStreamWaitEvent) and shows up in the step's device time instead; blocking the
// host on it there would also count GPU compute still queued ahead of the copy as "input".
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "data/input_pipeline.h"

namespace mg {

namespace {

class Stager final : public InputPipeline {
 public:
  Stager(Backend& be, std::unique_ptr<DataSource> src, const DataSpec& spec, int depth, int held)
      : be_(be), src_(std::move(src)), depth_(depth), inputs_(batch_inputs(spec)), labels_(batch_labels(spec)) {
    input_bytes_ = inputs_.bytes();
    label_bytes_ = labels_.bytes();
    try {
      for (int i = 0; i < depth_; ++i) {
        slots_.emplace_back();
        Slot& s = slots_.back();
        s.host_inputs = be_.host_alloc_pinned(input_bytes_);
        s.host_labels = static_cast<int32_t*>(be_.host_alloc_pinned(label_bytes_));
        s.dev_inputs = be_.device_alloc(input_bytes_);
        s.dev_labels = be_.device_alloc(label_bytes_);
        s.copied = be_.create_event();
        s.consumed = be_.create_event();
      }
      // A batch's copy events are re-recorded when the producer reaches batch k + ring; by then the consumer
      // has taken at most k + ring - depth, so the ring covers the `held` batches whose events may still be
      // read, the depth the producer runs ahead, and one spare.
      for (int i = 0; i < depth_ + held + 1; ++i) {
        copy_begin_.push_back(be_.create_event());
        copy_end_.push_back(be_.create_event());
      }
    } catch (...) {
      free_slots();
      throw;
    }
    producer_ = std::thread([this] { produce(); });
  }

  ~Stager() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    producer_.join();
    src_.reset();  // its workers may hold pointers into our host buffers until they stop
    try {
      // Nothing may still read or write the buffers we free: drain the copies and released compute work.
      be_.synchronize(StreamKind::Copy);
      for (int64_t k = std::max<int64_t>(0, released_ - depth_); k < released_; ++k)
        be_.synchronize(*slots_[static_cast<size_t>(k % depth_)].consumed);
    } catch (const std::exception&) {
      // A failed copy was already reported by next(); a destructor must not throw.
    }
    free_slots();
  }

  DeviceBatch next() override {
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t k = taken_;
    if (k - released_ >= depth_) {
      throw Error("input pipeline: next() called with " + std::to_string(depth_) +
                  " batches not yet released (staging depth " + std::to_string(depth_) + ")");
    }
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return produced_ > k || error_; });
      if (produced_ <= k) std::rethrow_exception(error_);  // the source failed before producing batch k
    }
    Slot& s = slots_[static_cast<size_t>(k % depth_)];
    be_.stream_wait(StreamKind::Compute, *s.copied);
    const auto t1 = std::chrono::steady_clock::now();
    ++taken_;
    DeviceBatch b;
    b.inputs = Tensor{s.dev_inputs, inputs_.shape, inputs_.dtype};
    b.labels = Tensor{s.dev_labels, labels_.shape, labels_.dtype};
    b.input_wait_s = std::chrono::duration<double>(t1 - t0).count();
    b.copy_begin = copy_begin_[static_cast<size_t>(k % static_cast<int64_t>(copy_begin_.size()))].get();
    b.copy_end = copy_end_[static_cast<size_t>(k % static_cast<int64_t>(copy_end_.size()))].get();
    return b;
  }

  void release() override {
    MG_ENSURE(released_ < taken_, "input pipeline: release() without a batch from next()");
    be_.record(*slots_[static_cast<size_t>(released_ % depth_)].consumed, StreamKind::Compute);
    {
      std::lock_guard<std::mutex> lk(mu_);
      ++released_;
    }
    cv_.notify_all();
  }

  int64_t skipped_images() const override { return src_ ? src_->skipped_images() : 0; }

 private:
  struct Slot {
    void* host_inputs = nullptr;
    int32_t* host_labels = nullptr;
    void* dev_inputs = nullptr;
    void* dev_labels = nullptr;
    std::unique_ptr<Event> copied, consumed;
  };
  // Per-batch copy timing for traces, in a ring longer than the producer can run ahead (depth) plus the batches
  // a step holds, so a batch's events are not re-recorded before the step that used it reads them.
  std::vector<std::unique_ptr<Event>> copy_begin_, copy_end_;

  void produce() {
    try {
      be_.attach_thread();
      for (int64_t k = 0;; ++k) {
        Slot& s = slots_[static_cast<size_t>(k % depth_)];
        // The host buffer is free once its previous copy completed (the first round has none to wait for).
        if (k >= depth_) be_.synchronize(*s.copied);
        {
          std::lock_guard<std::mutex> lk(mu_);
          if (stop_) return;
        }
        src_->next(s.host_inputs, s.host_labels);
        {
          std::unique_lock<std::mutex> lk(mu_);
          // The device buffer still holds batch k - depth until it is released.
          cv_.wait(lk, [&] { return stop_ || released_ > k - depth_; });
          if (stop_) return;
        }
        if (k >= depth_) be_.stream_wait(StreamKind::Copy, *s.consumed);
        const size_t t = static_cast<size_t>(k % static_cast<int64_t>(copy_begin_.size()));
        be_.record(*copy_begin_[t], StreamKind::Copy);
        be_.copy_h2d(s.dev_inputs, s.host_inputs, input_bytes_, StreamKind::Copy);
        be_.copy_h2d(s.dev_labels, s.host_labels, label_bytes_, StreamKind::Copy);
        be_.record(*s.copied, StreamKind::Copy);
        be_.record(*copy_end_[t], StreamKind::Copy);
        {
          std::lock_guard<std::mutex> lk(mu_);
          produced_ = k + 1;
        }
        cv_.notify_all();
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lk(mu_);
        error_ = std::current_exception();
      }
      cv_.notify_all();
    }
  }

  void free_slots() {
    for (auto& s : slots_) {
      if (s.host_inputs) be_.host_free_pinned(s.host_inputs);
      if (s.host_labels) be_.host_free_pinned(s.host_labels);
      if (s.dev_inputs) be_.device_free(s.dev_inputs);
      if (s.dev_labels) be_.device_free(s.dev_labels);
    }
    slots_.clear();
  }

  Backend& be_;
  std::unique_ptr<DataSource> src_;
  const int depth_;
  const Tensor inputs_, labels_;  // a batch's layout (no data)
  size_t input_bytes_ = 0, label_bytes_ = 0;
  std::vector<Slot> slots_;
  int64_t taken_ = 0;  // consumer thread only

  std::mutex mu_;
  std::condition_variable cv_;
  int64_t produced_ = 0;  // batches whose copy is enqueued
  int64_t released_ = 0;  // written by the consumer under mu_, read by the producer
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread producer_;
};

}  // namespace

std::unique_ptr<InputPipeline> make_stager(Backend& be, std::unique_ptr<DataSource> src, const DataSpec& spec,
                                           int depth, int held) {
  MG_ENSURE(held >= 1, "make_stager: batches held must be at least 1");
  if (depth < 1) throw UsageError("--staging-depth must be at least 1, got " + std::to_string(depth));
  if (spec.batch_size < 1) throw UsageError("--batch-size must be at least 1, got " + std::to_string(spec.batch_size));
  MG_ENSURE(src != nullptr, "make_stager without a data source");
  return std::make_unique<Stager>(be, std::move(src), spec, depth, held);
}

}  // namespace mg
