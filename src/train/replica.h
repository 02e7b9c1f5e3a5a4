// One data-parallel replica: its network, parameters, input pipeline and gradient synchronisation, and the
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
#include "train/network.h"
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

  // One step; times are filled after the step completed (this synchronises the replica's streams).
  // Throws Error when the loss turns NaN/Inf (except fp16 overflow, which is skipped and counted).
  StepBreakdown step(int index);
  // Trace spans of the last step relative to `base`, which must be an event recorded earlier on this backend.
  void append_trace(Event& base, int replica, std::vector<TraceSpan>& out);
  Event& new_base_event();

  float last_loss() const { return last_loss_; }
  int64_t overflow_steps() const { return overflow_steps_; }
  int64_t skipped_images() const;
  uint64_t param_checksum() const { return store_ ? store_->checksum() : 0; }
  const std::vector<double>& last_bucket_times() const { return bucket_times_; }
  const GradSync* grad_sync() const { return sync_.get(); }
  // The profile of the last step: per parameter-owning layer, seconds into backward when its gradients were done.
  const std::vector<double>& last_layer_ready() const { return layer_ready_; }
  const GradReadyClock* ready_clock() const { return clock_.get(); }
  Backend& backend() { return be_; }
  ParamStore* params() { return store_.get(); }

 private:
  enum Ev { kStart, kCommDone, kOptEnd, kCount };
  const RunConfig& cfg_;
  Backend& be_;
  Communicator* comm_;
  ReplicaPlacement where_;
  std::unique_ptr<Network> net_;
  std::unique_ptr<ParamStore> store_;
  std::unique_ptr<GradSync> sync_;
  std::unique_ptr<GradReadyClock> clock_;
  std::vector<double> layer_ready_;
  std::unique_ptr<InputPipeline> input_;
  std::vector<std::unique_ptr<Event>> ev_;
  // per micro-batch: input done, forward done, backward done
  std::vector<std::unique_ptr<Event>> in_end_, fwd_end_, bwd_end_;
  std::vector<std::pair<Event*, Event*>> copies_;  // the step's batches' copy events (staged input only)
  std::unique_ptr<Event> base_;
  std::vector<double> bucket_times_;
  float loss_scale_ = 1.0f;
  int good_steps_ = 0;
  float last_loss_ = 0;
  int64_t overflow_steps_ = 0;
};

}  // namespace mg
