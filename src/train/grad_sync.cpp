#include "train/grad_sync.h"

#include <algorithm>

#include "core/error.h"

namespace mg {

std::vector<Bucket> plan_buckets(const ParamStore& store, size_t bucket_bytes) {
  // The store's layers in flat order (a layer's tensors are contiguous), as the profile records them.
  std::vector<int> layer;
  std::vector<size_t> elements;
  for (const ParamEntry& e : store.entries()) {
    if (layer.empty() || layer.back() != e.layer) {
      layer.push_back(e.layer);
      elements.push_back(0);
    }
    elements.back() += e.count;
  }
  std::vector<Bucket> out;
  for (const LayerBucket& r : plan_layer_buckets(elements, bucket_bytes)) {
    Bucket b;
    b.begin = r.begin;
    b.end = r.end;
    b.ready_layer = layer[r.owner];
    out.push_back(b);
  }
  return out;
}

GradSync::GradSync(Backend& be, Communicator* comm, const ParamStore& store, size_t bucket_bytes, DType wire,
                   bool overlap, bool ps)
    : be_(be), comm_(comm), store_(store), wire_(wire), overlap_(overlap), ps_(ps),
      buckets_(plan_buckets(store, bucket_bytes)) {
  launched_.assign(buckets_.size(), false);
  for (size_t b = 0; b < buckets_.size(); ++b) {
    ready_.push_back(be.create_event());
    for (int set = 0; set < 2; ++set) {
      start_[set].push_back(be.create_event());
      end_[set].push_back(be.create_event());
    }
    if (wire_ != DType::F32) wire_bufs_.emplace_back(be, (buckets_[b].end - buckets_[b].begin) * dtype_size(wire_));
  }
}

size_t GradSync::wire_bytes() const {
  return comm_ ? store_.size() * dtype_size(wire_) : 0;
}

void GradSync::launch(size_t b) {
  launched_[b] = true;
  if (!comm_) return;
  const Bucket& k = buckets_[b];
  const size_t n = k.end - k.begin;
  Tensor grads{store_.grads() + k.begin, Shape{static_cast<int64_t>(n)}, DType::F32};
  void* buf = grads.data;
  if (wire_ != DType::F32) {
    Tensor w = wire_bufs_[b].tensor(Shape{static_cast<int64_t>(n)}, wire_);
    be_.cast(w, grads);  // compress on the Compute stream, right after the gradients were produced
    buf = w.data;
  }
  be_.record(*ready_[b], StreamKind::Compute);
  be_.stream_wait(StreamKind::Comm, *ready_[b]);
  const int set = step_ % 2;
  be_.record(*start_[set][b], StreamKind::Comm);
  if (ps_) {
    comm_->ps_allreduce_sum(buf, buf, n, wire_, StreamKind::Comm);
  } else {
    comm_->allreduce_sum(buf, n, wire_, StreamKind::Comm);
  }
  be_.record(*end_[set][b], StreamKind::Comm);
}

void GradSync::begin_step(int step) {
  MG_ENSURE(step >= 0, "GradSync::begin_step: negative step");
  step_ = step;
  synced_step_[step % 2] = -1;  // its events are about to be re-recorded
  std::fill(launched_.begin(), launched_.end(), false);
}

bool GradSync::synced(int step) const { return step >= 0 && synced_step_[step % 2] == step; }

void GradSync::on_layer_done(int layer) {
  if (!overlap_) return;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    if (!launched_[b] && buckets_[b].ready_layer == layer) launch(b);
  }
}

void GradSync::finish(Event& backward_end) {
  be_.record(backward_end, StreamKind::Compute);
  for (size_t b = 0; b < buckets_.size(); ++b)
    if (!launched_[b]) launch(b);
  if (comm_) {
    for (size_t b = 0; b < buckets_.size(); ++b) {
      be_.stream_wait(StreamKind::Compute, *end_[step_ % 2][b]);
      if (wire_ != DType::F32) {
        const size_t n = buckets_[b].end - buckets_[b].begin;
        be_.cast(Tensor{store_.grads() + buckets_[b].begin, Shape{static_cast<int64_t>(n)}, DType::F32},
                 wire_bufs_[b].tensor(Shape{static_cast<int64_t>(n)}, wire_));
      }
    }
  }
  std::fill(launched_.begin(), launched_.end(), false);
  if (comm_) synced_step_[step_ % 2] = step_;
}

std::vector<double> GradSync::bucket_times(int step) {
  std::vector<double> t;
  if (!synced(step)) return t;
  const int set = step % 2;
  for (size_t b = 0; b < buckets_.size(); ++b) t.push_back(be_.elapsed_seconds(*start_[set][b], *end_[set][b]));
  return t;
}

std::vector<std::pair<Event*, Event*>> GradSync::bucket_events(int step) {
  std::vector<std::pair<Event*, Event*>> v;
  if (!synced(step)) return v;
  const int set = step % 2;
  for (size_t b = 0; b < buckets_.size(); ++b) v.emplace_back(start_[set][b].get(), end_[set][b].get());
  return v;
}

}  // namespace mg
