#include "train/replica.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "core/error.h"

namespace mg {

namespace {

DataSpec data_spec(const RunConfig& cfg, const ModelDesc& model, ReplicaPlacement where, int64_t batch,
                   int64_t image) {
  DataSpec s;
  s.path = cfg.data == "synthetic" ? "" : cfg.data;
  s.batch_size = batch;
  s.image_size = image;
  s.seq_len = model.tokens ? image : 0;  // a language model's "image size" (models/layer_desc.h)
  s.num_classes = model.num_classes;
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
    : cfg_(cfg), be_(be), comm_(comm), where_(where),
      scaler_(cfg.precision == Precision::FP16 && !cfg.forward_only && !cfg.input_only, cfg.loss_scale) {
  const bool train = !cfg.forward_only && !cfg.input_only;
  const DataSpec spec = data_spec(cfg, model, where, batch, image);
  if (spec.path.empty() && cfg.synthetic_source == SyntheticSource::Device) {
    input_ = make_device_synthetic_input(be, spec);
  } else {
    // Copy events are read one step late: the batches of two steps are held.
    input_ = make_stager(be, make_data_source(spec), spec, cfg.staging_depth, 2 * cfg.accum_steps);
  }
  if (!cfg.input_only) {
    net_ = std::make_unique<ModelGraph>(be, model, batch, image, cfg.precision, cfg.seed, train);
    store_ = std::make_unique<ParamStore>(be, net_->param_shapes(), train && cfg.optimizer == Optimizer::AdamW);
    store_->initialize(cfg.seed);  // same seed on every replica: identical starting weights
    net_->bind(*store_);
    Communicator* sync_comm = cfg.allreduce != AllreduceMode::None ? comm : nullptr;
    sync_ = std::make_unique<GradSync>(be, sync_comm, *store_, static_cast<size_t>(cfg.bucket_mb * 1048576.0),
                                       cfg.allreduce_dtype.value_or(DType::F32), cfg.overlap, cfg.allreduce == AllreduceMode::Ps);
    if (train) {  // one per event set, like the step's own events (read one step late)
      for (auto& c : clocks_) c = std::make_unique<GradReadyClock>(be, *store_);
    }
  }
  for (StepEvents& e : sets_) {
    e.start = be.create_event();
    e.comm_done = be.create_event();
    e.opt_end = be.create_event();
    for (int k = 0; k < cfg.accum_steps; ++k) {
      e.in_end.push_back(be.create_event());
      e.fwd_end.push_back(be.create_event());
      e.bwd_end.push_back(be.create_event());
    }
  }
  if (net_ && cfg.layer_times && cfg.warmup > 0) {
    layer_clock_ = std::make_unique<LayerClock>(be, model);
    layer_clock_step_ = cfg.warmup - 1;
  }
  base_ = be.create_event();
  loss_host_ = static_cast<float*>(be.host_alloc_pinned(2 * sizeof(float)));
  loss_host_[0] = loss_host_[1] = 0.0f;
}

Replica::~Replica() {
  try {
    // A launched step may still write the pinned loss slot.
    be_.synchronize(StreamKind::Compute);
  } catch (const std::exception&) {
    // the failure was (or will be) reported by the step that hit it
  }
  try {
    be_.host_free_pinned(loss_host_);
  } catch (const std::exception&) {
    // a destructor cannot report a failed free
  }
}

int64_t Replica::skipped_images() const { return input_ ? input_->skipped_images() : 0; }

Event& Replica::new_base_event() {
  be_.record(*base_, StreamKind::Compute);
  return *base_;
}

void Replica::launch(int index) {
  const bool train = !cfg_.forward_only && !cfg_.input_only;
  const int K = cfg_.accum_steps;
  const auto host_start = std::chrono::steady_clock::now();  // --inject-slowdown measures from here
  StepEvents& ev = sets_[index % 2];
  MG_ENSURE(ev.collected, "Replica::launch(" + std::to_string(index) + ") before step " +
                              std::to_string(ev.step) + " was collected");
  ev.step = index;
  ev.collected = false;
  ev.skipped = false;
  ev.copies.clear();
  if (sync_) sync_->begin_step(index);
  be_.record(*ev.start, StreamKind::Compute);
  const float scale = scaler_.scale();  // the scale this step's backward runs with
  LayerClock* lc = index == layer_clock_step_ ? layer_clock_.get() : nullptr;
  for (int k = 0; k < K; ++k) {
    LayerClock* timed = k == K - 1 ? lc : nullptr;  // the last micro-batch, whose backward also syncs
    if (!train && k > 0) input_->release();  // the previous micro-batch's slot, timed as input work
    DeviceBatch batch = input_->next();
    if (batch.copy_begin && batch.copy_end) ev.copies.emplace_back(batch.copy_begin, batch.copy_end);
    be_.record(*ev.in_end[k], StreamKind::Compute);
    if (net_) {
      if (timed) timed->start();
      net_->forward(batch.inputs, train, timed ? std::function<void(int)>([timed](int l) { timed->forward_done(l); })
                                               : nullptr);
      if (train) net_->loss(batch.labels, scale);
      if (timed && train) timed->loss_done();
    }
    be_.record(*ev.fwd_end[k], StreamKind::Compute);
    if (!train) {  // no backward; the slot is released before the next batch or after the step's last event
      be_.record(*ev.bwd_end[k], StreamKind::Compute);
      continue;
    }
    input_->release();  // nothing after this reads the batch, so its slot can be refilled under backward
    if (k == K - 1) {
      GradReadyClock* clock = clocks_[index % 2].get();
      timed_backward_ = timed;  // a member, so the hook's captures fit std::function's inline storage
      net_->backward(k > 0, [this, clock](int layer) {
        if (timed_backward_) timed_backward_->backward_done(layer);
        clock->on_layer_done(layer);
        sync_->on_layer_done(layer);
      });
      sync_->finish(*ev.bwd_end[k]);
    } else {
      net_->backward(k > 0, nullptr);
      be_.record(*ev.bwd_end[k], StreamKind::Compute);
    }
  }
  be_.record(*ev.comm_done, StreamKind::Compute);

  if (train) {
    const bool averaged = comm_ && cfg_.allreduce != AllreduceMode::None;
    const double replicas = averaged ? comm_->size() : 1;
    // Decided from the synchronised gradients, identical on every replica (loss_scaler.h says why).
    Tensor g{store_->grads(), Shape{static_cast<int64_t>(store_->size())}, DType::F32};
    ev.skipped = scaler_.check_and_update(be_, g);
    if (!ev.skipped) {
      const float grad_scale = static_cast<float>(1.0 / (replicas * K * scale));
      if (cfg_.optimizer == Optimizer::AdamW) {
        be_.adamw_update(store_->params(), store_->grads(), store_->momentum(), store_->second_moment(),
                         store_->size(), ++adam_steps_, cfg_.lr, cfg_.adam_beta1, cfg_.adam_beta2, cfg_.adam_eps,
                         cfg_.weight_decay, grad_scale);
      } else {
        be_.sgd_update(store_->params(), store_->grads(), store_->momentum(), store_->size(), cfg_.lr,
                       cfg_.momentum, cfg_.weight_decay, grad_scale);
      }
    }
    be_.copy_d2h(&loss_host_[index % 2], net_->loss_tensor().data, sizeof(float), StreamKind::Compute);
  }
  if (cfg_.inject_slowdown > 0) inject_slowdown(be_, cfg_.inject_slowdown, host_start);
  be_.record(*ev.opt_end, StreamKind::Compute);
  if (!train) input_->release();
}

StepBreakdown Replica::collect(int index) {
  const bool train = !cfg_.forward_only && !cfg_.input_only;
  StepEvents& ev = sets_[index % 2];
  MG_ENSURE(ev.step == index && !ev.collected,
            "Replica::collect(" + std::to_string(index) + "): that step is not launched or already collected");
  be_.synchronize(*ev.opt_end);
  ev.collected = true;
  last_collected_ = index;
  // Waits for the step's buckets too, which surfaces a failed collective of this step.
  bucket_times_ = sync_ ? sync_->bucket_times(index) : std::vector<double>{};

  if (train) {
    const float loss = loss_host_[index % 2];
    last_loss_ = loss;
    if (!std::isfinite(loss) && !ev.skipped) {
      throw Error("training loss became " + std::string(std::isnan(loss) ? "NaN" : "Inf") + " at step " +
                  std::to_string(index + 1) + " (try a lower --lr, or check the data)");
    }
  }

  StepBreakdown s;
  Event* prev = ev.start.get();
  for (size_t k = 0; k < ev.in_end.size(); ++k) {
    s.input_wait += be_.elapsed_seconds(*prev, *ev.in_end[k]);
    s.forward += be_.elapsed_seconds(*ev.in_end[k], *ev.fwd_end[k]);
    s.backward += be_.elapsed_seconds(*ev.fwd_end[k], *ev.bwd_end[k]);
    prev = ev.bwd_end[k].get();
  }
  s.comm_exposed = be_.elapsed_seconds(*prev, *ev.comm_done);
  s.optimizer = be_.elapsed_seconds(*ev.comm_done, *ev.opt_end);
  s.total = be_.elapsed_seconds(*ev.start, *ev.opt_end);
  if (clocks_[index % 2]) layer_ready_ = clocks_[index % 2]->ready_times(*ev.fwd_end.back());
  if (index == layer_clock_step_) layer_times_ = layer_clock_->read();
  double comm_total = 0;
  for (double t : bucket_times_) comm_total += t;
  s.comm_overlapped = std::max(0.0, comm_total - s.comm_exposed);
  return s;
}

StepBreakdown Replica::step(int index) {
  launch(index);
  return collect(index);
}

void Replica::append_trace(Event& base, int replica, std::vector<TraceSpan>& out) {
  MG_ENSURE(last_collected_ >= 0, "Replica::append_trace before any step was collected");
  StepEvents& ev = sets_[last_collected_ % 2];
  auto span = [&](const char* stream, std::string name, Event& a, Event& b) {
    TraceSpan t;
    t.replica = replica;
    t.stream = stream;
    t.name = std::move(name);
    t.start_s = be_.elapsed_seconds(base, a);
    t.dur_s = std::max(0.0, be_.elapsed_seconds(a, b));
    out.push_back(std::move(t));
  };
  Event* prev = ev.start.get();
  for (size_t k = 0; k < ev.in_end.size(); ++k) {
    const std::string mb = ev.in_end.size() > 1 ? " [" + std::to_string(k) + "]" : "";
    span("compute", "input wait" + mb, *prev, *ev.in_end[k]);
    span("compute", "forward" + mb, *ev.in_end[k], *ev.fwd_end[k]);
    span("compute", "backward" + mb, *ev.fwd_end[k], *ev.bwd_end[k]);
    prev = ev.bwd_end[k].get();
  }
  span("compute", "wait all-reduce", *prev, *ev.comm_done);
  span("compute", "optimizer", *ev.comm_done, *ev.opt_end);
  for (size_t k = 0; k < ev.copies.size(); ++k) {
    span("copy", "host-to-device batch" + (ev.copies.size() > 1 ? " [" + std::to_string(k) + "]" : std::string()),
         *ev.copies[k].first, *ev.copies[k].second);
  }
  if (sync_) {
    auto evs = sync_->bucket_events(last_collected_);
    for (size_t b = 0; b < evs.size(); ++b)
      span("comm", "all-reduce bucket " + std::to_string(b), *evs[b].first, *evs[b].second);
  }
}

}  // namespace mg
