// One data-parallel replica: its model graph, parameters, input pipeline and gradient synchronisation, and the
// timed training step. A replica runs on one host thread and touches only its own backend.
//
// Step timeline (events on the Compute stream, so the parts add up to the step time):
//   start | input wait | forward (+loss) | backward | comm exposed (wait for all-reduce) | optimizer | end
// With --accum-steps K the input/forward/backward parts repeat K times and are summed. comm_overlapped is
// all-reduce time that ran under backward: total bucket time minus the exposed part (so it is not additive).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comm/communicator.h"
#include "data/input_pipeline.h"
#include "models/layer_desc.h"
#include "train/grad_ready_clock.h"
#include "train/grad_sync.h"
#include "train/layer_clock.h"
#include "train/loss_scaler.h"
#include "train/model_graph.h"
#include "train/param_store.h"
#include "result/run_config.h"
#include "result/run_result.h"

namespace mg {

struct ReplicaPlacement {
  int global_rank = 0;   // shard index
  int world = 1;         // replicas in the job
};

class Replica {
 public:
  Replica(const RunConfig& cfg, const ModelDesc& model, Backend& be, Communicator* comm, ReplicaPlacement where,
          int64_t batch_per_replica, int64_t image_size);
  ~Replica();

  // Enqueues step `index` (steps are launched in order 0, 1, 2, ...) without waiting for the device: the host
  // may run one step ahead, so a launch-bound model is not timed at host speed. Each step's events go to one
  // of two sets (index % 2); step index - 2 must have been collected. The only host wait inside is the fp16
  // overflow decision, which needs the synchronised gradients' non-finite count before the update.
  void launch(int index);
  // Waits for step `index` (launched, not yet collected; at most one step older than the last launch) and
  // reads its event times, bucket times and loss. Throws Error when the loss turned NaN/Inf (except an fp16
  // step skipped for overflow) -- so the check runs one step late, never stalling the device.
  StepBreakdown collect(int index);
  // launch + collect, for callers that want one step at a time.
  StepBreakdown step(int index);
  // Trace spans of the last collected step relative to `base`, an event recorded earlier on this backend.
  void append_trace(Event& base, int replica, std::vector<TraceSpan>& out);
  Event& new_base_event();

  float last_loss() const { return last_loss_; }
  int64_t overflow_steps() const { return scaler_.overflow_steps(); }
  float loss_scale() const { return scaler_.scale(); }
  int64_t skipped_images() const;
  uint64_t param_checksum() const { return store_ ? store_->checksum() : 0; }
  const std::vector<double>& last_bucket_times() const { return bucket_times_; }
  const GradSync* grad_sync() const { return sync_.get(); }
  // The profile of the last step: per parameter-owning layer, seconds into backward when its gradients were done.
  const std::vector<double>& last_layer_ready() const { return layer_ready_; }
  const GradReadyClock* ready_clock() const { return clocks_[0].get(); }
  // With --layer-times, the per-layer times of the last warm-up step once it is collected (else empty); its last
  // micro-batch under --accum-steps.
  const std::vector<LayerTime>& layer_times() const { return layer_times_; }
  Backend& backend() { return be_; }
  ParamStore* params() { return store_.get(); }

 private:
  // The events of one step; two sets alternate so step i can be read while step i + 1 runs.
  struct StepEvents {
    std::unique_ptr<Event> start, comm_done, opt_end;
    // per micro-batch: input done, forward done, backward done
    std::vector<std::unique_ptr<Event>> in_end, fwd_end, bwd_end;
    std::vector<std::pair<Event*, Event*>> copies;  // the step's batches' copy events (staged input only)
    int step = -1;        // launched step whose events these are
    bool collected = true;
    bool skipped = false;  // fp16 overflow: update skipped
  };
  const RunConfig& cfg_;
  Backend& be_;
  Communicator* comm_;
  ReplicaPlacement where_;
  std::unique_ptr<ModelGraph> net_;
  std::unique_ptr<ParamStore> store_;
  std::unique_ptr<GradSync> sync_;
  std::unique_ptr<GradReadyClock> clocks_[2];
  std::vector<double> layer_ready_;
  std::unique_ptr<LayerClock> layer_clock_;  // --layer-times
  int layer_clock_step_ = -1;                // the step it times
  LayerClock* timed_backward_ = nullptr;     // layer_clock_ during that step's last backward, else null
  std::vector<LayerTime> layer_times_;
  std::unique_ptr<InputPipeline> input_;
  StepEvents sets_[2];
  int last_collected_ = -1;
  float* loss_host_ = nullptr;  // pinned, one slot per event set: a device->pageable copy would block the host
  std::unique_ptr<Event> base_;
  std::vector<double> bucket_times_;
  LossScaler scaler_;
  float last_loss_ = 0;
  int64_t adam_steps_ = 0;  // AdamW updates applied (skipped fp16 overflow steps do not count), for bias correction
};

}  // namespace mg
