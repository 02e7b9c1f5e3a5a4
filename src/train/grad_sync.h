// Gradient synchronisation of one replica: gradients fused into buckets of --bucket-mb in reverse layer order,
// each bucket's all-reduce launched on the Comm stream as soon as backward has produced all of its gradients,
// so communication overlaps the rest of backward (PyTorch DDP's and Horovod's scheme). With overlap off, all
// buckets start after backward ends (the baseline users compare against).
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "backend/device_buffer.h"
#include "comm/communicator.h"
#include "result/bucket_plan.h"
#include "train/param_store.h"

namespace mg {

struct Bucket {
  size_t begin = 0, end = 0;  // flat gradient elements [begin, end)
  int ready_layer = 0;        // backward of this layer completes the bucket (it owns element `begin`)
};

// The layout of result/bucket_plan.h over this store's gradient, each bucket with the layer that completes it.
std::vector<Bucket> plan_buckets(const ParamStore& store, size_t bucket_bytes);

class GradSync {
 public:
  // comm == nullptr: no exchange (single replica or --allreduce none); buckets still planned for reporting.
  // ps: each bucket is summed on rank 0 and broadcast from it (--allreduce ps) instead of all-reduced.
  GradSync(Backend& be, Communicator* comm, const ParamStore& store, size_t bucket_bytes, DType wire, bool overlap,
           bool ps = false);

  const std::vector<Bucket>& buckets() const { return buckets_; }
  size_t wire_bytes() const;  // bytes all-reduced per step
  DType wire_dtype() const { return wire_; }

  // Starts step `step`: its bucket events go to one of two sets (step % 2), so a step's timing can be read
  // while the next step runs (the trainer reads one step behind, without a host synchronisation per step).
  void begin_step(int step);
  // Call from ModelGraph::backward's after_layer hook (only on the micro-batch that syncs).
  void on_layer_done(int layer);
  // After backward: launches what is left, then makes the Compute stream wait for every bucket (and converts
  // low-precision wire buffers back). Records `backward_end` on Compute before waiting.
  void finish(Event& backward_end);
  // Per-bucket all-reduce time of `step` (seconds; waits for its buckets). Empty when that step exchanged
  // nothing (no communicator, --forward-only) or is no longer held (older than the step before the current).
  std::vector<double> bucket_times(int step);
  // Comm-stream events of `step`, for traces: (start, end) per bucket; empty as for bucket_times.
  std::vector<std::pair<Event*, Event*>> bucket_events(int step);

 private:
  void launch(size_t b);
  Backend& be_;
  Communicator* comm_;
  const ParamStore& store_;
  DType wire_;
  bool overlap_;
  bool ps_ = false;
  std::vector<Bucket> buckets_;
  std::vector<bool> launched_;
  bool synced(int step) const;
  int step_ = 0;
  int synced_step_[2] = {-1, -1};  // per event set: the step whose buckets were recorded there
  std::vector<std::unique_ptr<Event>> ready_, start_[2], end_[2];
  std::vector<DeviceBuffer> wire_bufs_;  // per bucket, when wire dtype is not fp32
};

}  // namespace mg
