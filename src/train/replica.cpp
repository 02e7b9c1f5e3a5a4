#include "train/replica.h"

#include <chrono>
#include <cmath>
#include <string>

#include "core/error.h"

namespace mg {

namespace {

DType wire_dtype(const RunConfig& cfg) {
  if (cfg.allreduce_dtype.empty() || cfg.allreduce_dtype == "fp32") return DType::F32;
  if (cfg.allreduce_dtype == "fp16") return DType::F16;
  if (cfg.allreduce_dtype == "bf16") return DType::BF16;
  throw UsageError("--allreduce-dtype " + cfg.allreduce_dtype + " is not one of fp32, fp16, bf16");
}

DataSpec data_spec(const RunConfig& cfg, ReplicaPlacement where, int64_t batch, int64_t image) {
  DataSpec s;
  s.path = cfg.data == "synthetic" ? "" : cfg.data;
  s.batch_size = batch;
  s.image_size = image;
  s.num_classes = cfg.num_classes;
  s.shard = where.global_rank;
  s.num_shards = where.world;
  s.seed = cfg.seed;
  s.threads = cfg.data_threads;
  s.skip_bad_images = cfg.skip_bad_images;
  return s;
}

// --inject-slowdown (calibration): wait for the step's device work, then busy-wait the set fraction of the time
// it took, so the step's recorded end moves by that fraction on any backend. Busy, not sleeping, so the injected
// time competes for the core the way real extra work does.
void inject_slowdown(Backend& be, double fraction, std::chrono::steady_clock::time_point start) {
  using clock = std::chrono::steady_clock;
  be.synchronize(StreamKind::Compute);
  const auto took = std::chrono::duration<double>(clock::now() - start);
  const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(took * fraction);
  while (clock::now() < until) {
  }
}

}  // namespace

Replica::Replica(const RunConfig& cfg, const ModelDesc& model, Backend& be, Communicator* comm,
                 ReplicaPlacement where, int64_t batch, int64_t image)
    : cfg_(cfg), be_(be), comm_(comm), where_(where) {
  const bool train = !cfg.forward_only && !cfg.input_only;
  const DataSpec spec = data_spec(cfg, where, batch, image);
  if (spec.path.empty() && cfg.synthetic_source == "device") {
    input_ = make_device_synthetic_input(be, spec);
  } else {
    input_ = make_stager(be, make_data_source(spec), spec, cfg.staging_depth);
  }
  if (!cfg.input_only) {
    net_ = std::make_unique<Network>(be, model, batch, image, cfg.precision, cfg.seed, train);
    store_ = std::make_unique<ParamStore>(be, net_->param_shapes());
    store_->initialize(cfg.seed);  // same seed on every replica: identical starting weights
    net_->bind(*store_);
    Communicator* sync_comm = cfg.allreduce != AllreduceMode::None ? comm : nullptr;
    sync_ = std::make_unique<GradSync>(be, sync_comm, *store_, static_cast<size_t>(cfg.bucket_mb * 1048576.0),
                                       wire_dtype(cfg), cfg.overlap, cfg.allreduce == AllreduceMode::Ps);
    if (train) clock_ = std::make_unique<GradReadyClock>(be, *store_);
  }
  for (int i = 0; i < kCount; ++i) ev_.push_back(be.create_event());
  for (int k = 0; k < cfg.accum_steps; ++k) {
    in_end_.push_back(be.create_event());
    fwd_end_.push_back(be.create_event());
    bwd_end_.push_back(be.create_event());
  }
  base_ = be.create_event();
  loss_scale_ = cfg.precision == Precision::FP16 ? cfg.loss_scale : 1.0f;
}

Replica::~Replica() = default;

int64_t Replica::skipped_images() const { return input_ ? input_->skipped_images() : 0; }

Event& Replica::new_base_event() {
  be_.record(*base_, StreamKind::Compute);
  return *base_;
}

StepBreakdown Replica::step(int index) {
  const bool train = !cfg_.forward_only && !cfg_.input_only;
  const int K = cfg_.accum_steps;
  const auto host_start = std::chrono::steady_clock::now();
  be_.record(*ev_[kStart], StreamKind::Compute);
  copies_.clear();
  for (int k = 0; k < K; ++k) {
    DeviceBatch batch = input_->next();
    if (batch.copy_begin && batch.copy_end) copies_.emplace_back(batch.copy_begin, batch.copy_end);
    be_.record(*in_end_[k], StreamKind::Compute);
    if (net_) {
      net_->forward(batch.images, train);
      if (train) net_->loss(batch.labels, loss_scale_);
    }
    be_.record(*fwd_end_[k], StreamKind::Compute);
    input_->release();  // nothing after this reads the batch, so its slot can be refilled under backward
    if (train && k == K - 1) {
      net_->backward(k > 0, [this](int layer) {
        clock_->on_layer_done(layer);
        sync_->on_layer_done(layer);
      });
      sync_->finish(*bwd_end_[k]);
    } else {
      if (train) net_->backward(k > 0, nullptr);
      be_.record(*bwd_end_[k], StreamKind::Compute);
    }
  }
  be_.record(*ev_[kCommDone], StreamKind::Compute);

  bool skipped = false;
  if (train) {
    const bool averaged = comm_ && cfg_.allreduce != AllreduceMode::None;
    const double replicas = averaged ? comm_->size() : 1;
    if (cfg_.precision == Precision::FP16) {
      Tensor g{store_->grads(), Shape{static_cast<int64_t>(store_->size())}, DType::F32};
      if (be_.count_nonfinite(g) > 0) skipped = true;  // overflow: skip the update, halve the scale
    }
    if (!skipped) {
      const float grad_scale = static_cast<float>(1.0 / (replicas * K * loss_scale_));
      be_.sgd_update(store_->params(), store_->grads(), store_->momentum(), store_->size(), cfg_.lr,
                     cfg_.momentum, cfg_.weight_decay, grad_scale);
    }
  }
  if (cfg_.inject_slowdown > 0) inject_slowdown(be_, cfg_.inject_slowdown, host_start);
  be_.record(*ev_[kOptEnd], StreamKind::Compute);
  be_.synchronize(*ev_[kOptEnd]);
  be_.synchronize(StreamKind::Comm);  // surfaces a failed collective

  if (train) {
    float loss = 0;
    be_.copy_d2h(&loss, net_->loss_tensor().data, sizeof(float), StreamKind::Compute);
    be_.synchronize(StreamKind::Compute);
    last_loss_ = loss;
    if (cfg_.precision == Precision::FP16) {
      if (skipped || !std::isfinite(loss)) {
        ++overflow_steps_;
        loss_scale_ = std::max(1.0f, loss_scale_ * 0.5f);
        good_steps_ = 0;
      } else if (++good_steps_ == 2000) {  // the usual growth interval (apex/torch GradScaler)
        loss_scale_ *= 2.0f;
        good_steps_ = 0;
      }
    } else if (!std::isfinite(loss)) {
      throw Error("training loss became " + std::string(std::isnan(loss) ? "NaN" : "Inf") + " at step " +
                  std::to_string(index + 1) + " (try a lower --lr, or check the data)");
    }
  }

  StepBreakdown s;
  Event* prev = ev_[kStart].get();
  for (int k = 0; k < K; ++k) {
    s.input_wait += be_.elapsed_seconds(*prev, *in_end_[k]);
    s.forward += be_.elapsed_seconds(*in_end_[k], *fwd_end_[k]);
    s.backward += be_.elapsed_seconds(*fwd_end_[k], *bwd_end_[k]);
    prev = bwd_end_[k].get();
  }
  s.comm_exposed = be_.elapsed_seconds(*prev, *ev_[kCommDone]);
  s.optimizer = be_.elapsed_seconds(*ev_[kCommDone], *ev_[kOptEnd]);
  s.total = be_.elapsed_seconds(*ev_[kStart], *ev_[kOptEnd]);
  bucket_times_ = sync_ ? sync_->bucket_times() : std::vector<double>{};
  if (clock_) layer_ready_ = clock_->ready_times(*fwd_end_[K - 1]);
  double comm_total = 0;
  for (double t : bucket_times_) comm_total += t;
  s.comm_overlapped = std::max(0.0, comm_total - s.comm_exposed);
  return s;
}

void Replica::append_trace(Event& base, int replica, std::vector<TraceSpan>& out) {
  auto span = [&](const char* stream, std::string name, Event& a, Event& b) {
    TraceSpan t;
    t.replica = replica;
    t.stream = stream;
    t.name = std::move(name);
    t.start_s = be_.elapsed_seconds(base, a);
    t.dur_s = std::max(0.0, be_.elapsed_seconds(a, b));
    out.push_back(std::move(t));
  };
  Event* prev = ev_[kStart].get();
  for (size_t k = 0; k < in_end_.size(); ++k) {
    const std::string mb = in_end_.size() > 1 ? " [" + std::to_string(k) + "]" : "";
    span("compute", "input wait" + mb, *prev, *in_end_[k]);
    span("compute", "forward" + mb, *in_end_[k], *fwd_end_[k]);
    span("compute", "backward" + mb, *fwd_end_[k], *bwd_end_[k]);
    prev = bwd_end_[k].get();
  }
  span("compute", "wait all-reduce", *prev, *ev_[kCommDone]);
  span("compute", "optimizer", *ev_[kCommDone], *ev_[kOptEnd]);
  for (size_t k = 0; k < copies_.size(); ++k) {
    span("copy", "host-to-device batch" + (copies_.size() > 1 ? " [" + std::to_string(k) + "]" : std::string()),
         *copies_[k].first, *copies_[k].second);
  }
  if (sync_) {
    auto evs = sync_->bucket_events();
    for (size_t b = 0; b < evs.size(); ++b)
      span("comm", "all-reduce bucket " + std::to_string(b), *evs[b].first, *evs[b].second);
  }
}

}  // namespace mg
