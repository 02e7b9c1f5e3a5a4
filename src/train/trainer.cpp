#include "train/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

#include <fmt/format.h>

#include "core/error.h"
#include "core/run_on_threads.h"
#include "core/stop.h"
#include "models/registry.h"
#include "result/run_config_fields.h"
#include "train/replica.h"
#include "train/replica_group.h"
#include "train/replica_merge.h"
#include "train/wire_cast_clock.h"

namespace mg {

namespace {

// Reusable barrier for the replica threads of this process (C++17 has no std::barrier).
class ThreadBarrier {
 public:
  explicit ThreadBarrier(int n) : n_(n) {}
  // Returns false when the barrier was broken by a failing thread.
  bool wait() {
    std::unique_lock<std::mutex> lk(mu_);
    if (broken_) return false;
    const int gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
      return true;
    }
    cv_.wait(lk, [&] { return gen_ != gen || broken_; });
    return !broken_ || gen_ != gen;
  }
  void break_all() {
    std::lock_guard<std::mutex> lk(mu_);
    broken_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, count_ = 0, gen_ = 0;
  bool broken_ = false;
};

// Processes of one job launched with different options would time different work or deadlock in mismatched
// collectives; the communicator bootstrap compares this across processes.
std::string config_fingerprint(const RunConfig& c, int64_t batch, int64_t image, int local) {
  return mg::config_fingerprint(c) +
         fmt::format("replica-batch={}\nresolved-image-size={}\nreplicas-per-process={}", batch, image, local);
}

// A replica's out-of-memory error names what the user can change: the model, batch and precision.
std::exception_ptr explain_out_of_memory(std::exception_ptr e, const RunConfig& cfg, int64_t batch, int64_t image,
                                         bool tokens) {
  try {
    std::rethrow_exception(e);
  } catch (const OutOfMemory& oom) {
    return std::make_exception_ptr(OutOfMemory(
        std::string(cfg.device == DeviceKind::Cpu ? "out of memory" : "out of device memory") + " training " +
        cfg.model + " at batch size " + std::to_string(batch) + " per device (" + precision_name(cfg.precision) +
        (tokens ? ", sequence " : ", image ") + std::to_string(image) +
        "); try a smaller --batch-size: " + oom.what()));
  } catch (...) {
    return e;
  }
}

// One replica's steps: warm-up, then the timed window, and what it measured there.
class TimedWindow {
 public:
  // profile_casts: a 1-device training run, whose profile `mgbench predict` reads, also times the wire casts.
  TimedWindow(const RunConfig& cfg, Replica& rep, Backend& be, ReplicaOutput& out, bool trace, int global_rank,
              bool profile_casts)
      : cfg_(cfg), rep_(rep), be_(be), out_(out), trace_(trace), global_rank_(global_rank),
        profile_casts_(profile_casts) {}

  // Runs every step unless `failed` or a stop request ends it early; on_timed(step time) after each timed step.
  // Steps are read one behind: step s is collected after step s + 1 was launched, so the host never waits for
  // the device inside the window (replica.h).
  void run(const std::atomic<bool>& failed, const std::function<void(double)>& on_timed) {
    const int total_steps = cfg_.warmup + cfg_.steps * cfg_.repeat;
    auto take = [&](int s, const StepBreakdown& b) {
      if (s == cfg_.warmup - 1 && cfg_.layer_times) out_.layer_times = rep_.layer_times();
      if (s < cfg_.warmup) return;
      record(b);
      on_timed(b.total);
    };
    int pending = -1;
    std::chrono::steady_clock::time_point window_start;
    for (int s = 0; s < total_steps && !failed && !stop_requested(); ++s) {
      if (s >= cfg_.warmup && !base_) {
        // The window starts on an idle device: warm-up drained, its memory use sampled.
        if (pending >= 0) take(pending, rep_.collect(pending));
        pending = -1;
        sample_memory_in_use();
        be_.reset_peak_memory();
        base_ = &rep_.new_base_event();
        window_start = std::chrono::steady_clock::now();
      }
      rep_.launch(s);
      if (pending >= 0) take(pending, rep_.collect(pending));
      pending = s;
    }
    if (pending >= 0 && !failed) take(pending, rep_.collect(pending));
    if (base_) out_.totals.window_s = seconds_since(window_start);
    finish();
    // After the window and its memory figures: the casts reuse the gradients, which nothing reads any more.
    if (profile_casts_ && base_ && !failed && !stop_requested() && rep_.params())
      out_.wire_casts = measure_wire_casts(be_, rep_.params()->grads(), rep_.params()->size(),
                                           std::max<size_t>(1, static_cast<size_t>(cfg_.bucket_mb * (1 << 20) / 4)));
  }

 private:
  void record(const StepBreakdown& b) {
    out_.totals.samples.push_back(b);
    const std::vector<double>& buckets = rep_.last_bucket_times();
    if (bucket_sums_.size() < buckets.size()) bucket_sums_.resize(buckets.size(), 0.0);
    for (size_t k = 0; k < buckets.size(); ++k) bucket_sums_[k] += buckets[k];
    const std::vector<double>& ready = rep_.last_layer_ready();
    if (out_.layers.empty() && rep_.ready_clock()) out_.layers = rep_.ready_clock()->layers();
    for (size_t l = 0; l < out_.layers.size() && l < ready.size(); ++l) out_.layers[l].ready_s += ready[l];
    if (trace_ && out_.totals.samples.size() <= 50) rep_.append_trace(*base_, global_rank_, out_.trace);
  }

  void sample_memory_in_use() {
    out_.totals.device_memory_in_use_bytes = std::max(out_.totals.device_memory_in_use_bytes, be_.device_memory_in_use());
  }

  static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // After the window: what the replica ends with.
  void finish() {
    ReplicaTotals& t = out_.totals;
    sample_memory_in_use();
    t.peak_memory_bytes = be_.peak_memory_bytes();
    t.loss = rep_.last_loss();
    t.overflow_steps = rep_.overflow_steps();
    t.checksum = rep_.param_checksum();
    out_.skipped_images = rep_.skipped_images();
    if (const GradSync* gs = rep_.grad_sync()) {
      for (const Bucket& k : gs->buckets()) {
        out_.bucket_bytes.push_back((k.end - k.begin) * dtype_size(gs->wire_dtype()));
        out_.bucket_ready_layer.push_back(k.ready_layer);
      }
      out_.wire_bytes = gs->wire_bytes();
      out_.wire_dtype = dtype_name(gs->wire_dtype());
    }
    // Mean per timed step, one entry per bucket on every replica (a forward-only run times none).
    const size_t steps = t.samples.size();
    t.bucket_time_s.assign(out_.bucket_bytes.size(), 0.0);
    for (size_t k = 0; k < t.bucket_time_s.size() && k < bucket_sums_.size() && steps > 0; ++k)
      t.bucket_time_s[k] = bucket_sums_[k] / static_cast<double>(steps);
  }

  const RunConfig& cfg_;
  Replica& rep_;
  Backend& be_;
  ReplicaOutput& out_;
  bool trace_;
  int global_rank_;
  bool profile_casts_;
  Event* base_ = nullptr;  // recorded at the window's start: trace times are relative to it
  std::vector<double> bucket_sums_;
};

// What one process trains: the model, the per-device batch and image size, and how many replicas.
struct RunShape {
  const RunConfig& cfg;
  const LaunchInfo& launch;
  const TrainRequest& req;
  ModelDesc model;
  int64_t image = 0;
  int local = 0;
  int world = 0;
  int64_t batch = 0;
};

RunShape run_shape(const RunConfig& cfg, const LaunchInfo& launch, const TrainRequest& req) {
  RunShape r{cfg, launch, req, build_model(cfg.model, cfg.num_classes)};
  // A language model's "image size" is its sequence length (models/layer_desc.h).
  const int64_t requested = r.model.tokens ? cfg.seq_len : cfg.image_size;
  r.image = requested > 0 ? requested : r.model.default_image_size;
  r.local = req.local_replicas;
  r.world = launch.world_size * r.local;
  r.batch = cfg.batch_size;
  if (cfg.scaling == Scaling::Strong) {
    if (cfg.batch_size % r.world != 0) {
      throw UsageError("--batch-size " + std::to_string(cfg.batch_size) + " cannot be split evenly over " +
                       std::to_string(r.world) + " devices (--scaling strong needs a multiple of the device count)");
    }
    r.batch = cfg.batch_size / r.world;
  }
  infer_shapes(r.model, r.batch, r.image);  // reject a bad image size before any device work
  return r;
}

ReplicaGroup open_replica_group(const RunShape& r) {
  const RunConfig& cfg = r.cfg;
  DeviceRequest devices;
  devices.kind = cfg.device;
  devices.replicas = r.local;
  devices.cpu_core_slots = r.req.cpu_core_slots;
  devices.gpu_ids = cfg.gpu_ids;
  devices.threads = cfg.threads;
  devices.threads_per_replica = cfg.threads_per_replica;
  devices.cpu_conv_algo = cfg.cpu_conv_algo;
  CommOptions copt;
  copt.timeout_s = cfg.comm_timeout_s;
  copt.gloo_iface = cfg.gloo_iface;
  copt.transport = r.req.transport;
  copt.job_key = r.req.job_key;
  copt.config_fingerprint = config_fingerprint(cfg, r.batch, r.image, r.local);
  return create_replica_group(plan_devices(devices, r.launch), cfg.precision, r.launch, copt);
}

// Freeing device memory synchronises a GPU (cudaFree), but not the CPU backend's worker streams: work queued
// behind an aborted collective still runs there and wrote into a replica's freed buffers (heap corruption on
// Ctrl-C in a sweep). Drain them before the replica is destroyed; on every failure path the communicators
// were aborted first, so nothing queued still waits on a peer.
struct DrainStreams {
  Backend& be;
  ~DrainStreams() {
    for (StreamKind s : {StreamKind::Comm, StreamKind::Copy}) {
      try {
        be.synchronize(s);
      } catch (...) {  // the failure that stopped the replica is already recorded
      }
    }
  }
};

// Replica i of this process: built, started with the others at the barrier, then its timed window.
void run_replica(const RunShape& r, ReplicaGroup& group, int i, ReplicaOutput& out, ThreadBarrier& barrier,
                 const std::atomic<bool>& failed, const std::function<void()>& record_failure) {
  const RunConfig& cfg = r.cfg;
  Backend& be = *group.backends[i];
  be.attach_thread();
  ReplicaPlacement where{r.launch.rank * r.local + i, r.world};
  Replica rep(cfg, r.model, be, group.comm(i), where, r.batch, r.image);
  TimedWindow window(cfg, rep, be, out, r.req.trace, where.global_rank,
                     r.world == 1 && !cfg.forward_only && !cfg.input_only);
  DrainStreams drain{be};
  double timed_sum = 0;
  int timed_done = 0;
  auto progress = [&](double step_s) {
    timed_sum += step_s;
    ++timed_done;
    if (i != 0 || r.launch.rank != 0 || !r.req.progress) return;
    r.req.progress(timed_done, cfg.steps * cfg.repeat,
                   timed_sum > 0 ? static_cast<double>(r.batch * cfg.accum_steps * r.world) * timed_done / timed_sum
                                 : 0.0);
  };
  // A failure while the replica is alive releases the others first: unwinding frees device memory, which
  // synchronises the device and would wait forever on a collective a lost peer never completes.
  try {
    if (!barrier.wait()) return;
    window.run(failed, progress);
  } catch (...) {
    record_failure();
    throw;
  }
}

// Every local replica on its own thread; the first failure stops them all and is the one thrown.
std::vector<ReplicaOutput> run_replicas(const RunShape& r, ReplicaGroup& group) {
  std::vector<ReplicaOutput> outs(r.local);
  ThreadBarrier barrier(r.local);
  std::atomic<bool> failed{false};
  // Aborting comes first: a replica that sees `failed` or the broken barrier returns and frees its buffers, and
  // abort() returns only when no peer's collective can still write into them. Setting the flag first let a
  // replica unwind while a peer's all-reduce still wrote its gradients (heap corruption on Ctrl-C in a sweep).
  auto fail_all = [&] {
    for (auto& c : group.comms) c->abort();
    failed = true;
    barrier.break_all();
  };
  // SIGINT/SIGTERM: the step loops see the flag between steps; replicas blocked in a collective (here or in a
  // peer process) are released by the abort.
  StopCallback on_stop(fail_all);
  // The first failure releases the others; theirs ("communicator was aborted") are its consequences.
  FirstFailure failure(fail_all);
  const std::function<void()> record_failure = [&] {
    failure.record(explain_out_of_memory(std::current_exception(), r.cfg, r.batch, r.image, r.model.tokens));
  };
  try {
    run_on_threads(r.local, [&](int i) {
      try {
        run_replica(r, group, i, outs[i], barrier, failed, record_failure);
      } catch (...) {
        record_failure();
      }
    }, failure);
  } catch (...) {
    throw_if_stopped();  // the replicas' own errors are the abort's consequences
    throw;
  }
  throw_if_stopped();
  return outs;
}

// Replicas of other processes: every local replica joins the all-gather on its own communicator.
std::vector<ReplicaTotals> gather_totals(const RunShape& r, ReplicaGroup& group,
                                         const std::vector<ReplicaOutput>& outs) {
  std::vector<ReplicaTotals> everyone;
  if (r.launch.world_size > 1) {
    std::vector<std::vector<ReplicaTotals>> gathered(r.local);
    FirstFailure gather_failure([&] {
      for (auto& c : group.comms) c->abort();
    });
    run_on_threads(r.local, [&](int i) {
      group.backends[i]->attach_thread();
      gathered[i] = gather_world_totals(*group.comms[i], outs[i].totals);
    }, gather_failure);
    everyone = std::move(gathered[0]);
  } else {
    for (const ReplicaOutput& o : outs) everyone.push_back(o.totals);
  }
  return everyone;
}

// The entry's figures that come from the run's shape and devices rather than from the replicas' steps.
DeviceCountResult run_entry(const RunShape& r, const ReplicaGroup& group) {
  const RunConfig& cfg = r.cfg;
  DeviceCountResult entry;
  entry.devices = r.world;
  entry.batch_per_device = r.batch;
  entry.global_batch = r.batch * r.world * cfg.accum_steps;
  entry.tokens_per_sample = r.model.tokens ? r.image : 0;
  if (!cfg.input_only) {
    entry.model_flops_per_sample = forward_gflops_per_image(r.model, r.image) * 1e9 * (cfg.forward_only ? 1 : 3);
    const PeakRate peak = group.backends[0]->peak_flops(cfg.precision);
    entry.peak_flops_per_device = peak.flops_per_s;
    entry.peak_flops_source = peak.source;
  }
  entry.threads_per_replica = group.plan.backend.threads;
  entry.conv_algorithms = group.backends[0]->conv_algorithm_counts();
  entry.input_only = cfg.input_only;
  entry.allreduce.library = group.comms.empty() || cfg.allreduce == AllreduceMode::None ? "none" : group.comms[0]->library();
  return entry;
}

}  // namespace

TrainedReplicas train_replicas(const RunConfig& cfg, const LaunchInfo& launch, const TrainRequest& req) {
  const RunShape r = run_shape(cfg, launch, req);
  ReplicaGroup group = open_replica_group(r);
  std::vector<ReplicaOutput> outs = run_replicas(r, group);
  const std::vector<ReplicaTotals> everyone = gather_totals(r, group, outs);
  return {merge_replicas(run_entry(r, group), everyone, outs), group.devices()};
}

}  // namespace mg
