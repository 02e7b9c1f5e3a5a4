#include "train/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "backend/device_buffer.h"
#include "core/error.h"
#include "core/stop.h"
#include "models/registry.h"
#include "train/replica.h"

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

struct ReplicaOutput {
  std::vector<StepBreakdown> samples;
  std::vector<std::vector<double>> bucket_times;  // per timed step
  std::vector<TraceSpan> trace;
  size_t peak_memory = 0;
  size_t device_in_use = 0;
  double window_s = 0;  // wall time of the timed window
  float loss = 0;
  int64_t overflow = 0, skipped = 0;
  uint64_t checksum = 0;
  std::vector<size_t> bucket_bytes;
  std::vector<int> bucket_ready_layer;
  std::vector<GradientLayer> layers;  // the profile: ready_s summed over timed steps
  size_t wire_bytes = 0;
  std::string wire_dtype = "fp32";
};

// Sums (or gathers) per-process values across the launcher's processes through replica 0's communicator.
std::vector<float> allreduce_host(Communicator& comm, Backend& be, const std::vector<float>& v) {
  DeviceBuffer buf(be, std::max<size_t>(v.size(), 1) * sizeof(float));
  std::vector<float> out(v);
  be.copy_h2d(buf.get(), v.data(), v.size() * sizeof(float), StreamKind::Comm);
  comm.allreduce_sum(buf.get(), v.size(), DType::F32, be, StreamKind::Comm);
  be.copy_d2h(out.data(), buf.get(), v.size() * sizeof(float), StreamKind::Comm);
  be.synchronize(StreamKind::Comm);
  return out;
}

// Processes of one job launched with different options would time different work or deadlock in mismatched
// collectives; the communicator bootstrap compares this across processes.
std::string config_fingerprint(const RunConfig& c, int64_t batch, int64_t image, int local) {
  return fmt::format(
      "model={}\nnum-classes={}\nprecision={}\ndevice={}\nbatch-size={}\nimage-size={}\nsteps={}\nwarmup={}\n"
      "repeat={}\naccum-steps={}\nbucket-mb={}\noverlap={}\nallreduce={}\nallreduce-dtype={}\nforward-only={}\n"
      "input-only={}\ndata={}\nsynthetic={}\nseed={}\nreplicas-per-process={}",
      c.model, c.num_classes, precision_name(c.precision), device_kind_name(c.device), batch, image, c.steps,
      c.warmup, c.repeat, c.accum_steps, c.bucket_mb, c.overlap, c.allreduce == AllreduceMode::Ring ? "ring" : c.allreduce == AllreduceMode::Ps ? "ps" : "none", c.allreduce_dtype,
      c.forward_only, c.input_only, c.data, c.synthetic_source, c.seed, local);
}

}  // namespace

int cpu_threads_per_replica(const RunConfig& cfg, const LaunchInfo& launch, int slots) {
  if (cfg.threads_per_replica > 0) return cfg.threads_per_replica;
  const int cores = cfg.threads > 0 ? cfg.threads : process_core_share(launch);
  return std::max(1, cores / std::max(1, slots));
}

DeviceCountResult train_replicas(const RunConfig& cfg, const LaunchInfo& launch, const TrainRequest& req) {
  const ModelDesc model = build_model(cfg.model, cfg.num_classes);
  const int64_t image = cfg.image_size > 0 ? cfg.image_size : model.default_image_size;
  const int local = req.local_replicas;
  const int world = launch.world_size * local;
  int64_t batch = cfg.batch_size;
  if (cfg.scaling == Scaling::Strong) {
    if (cfg.batch_size % world != 0) {
      throw UsageError("--batch-size " + std::to_string(cfg.batch_size) + " cannot be split evenly over " +
                       std::to_string(world) + " devices (--scaling strong needs a multiple of the device count)");
    }
    batch = cfg.batch_size / world;
  }
  infer_shapes(model, batch, image);  // reject a bad image size before any device work

  // Backends, one per local replica.
  std::vector<std::unique_ptr<Backend>> backends;
  BackendOptions bopt;
  if (cfg.device == DeviceKind::Cpu) bopt.threads = cpu_threads_per_replica(cfg, launch, std::max(local, req.cpu_core_slots));
  for (int i = 0; i < local; ++i) {
    const int slot = launch.local_rank * local + i;
    int ordinal = slot;
    if (!cfg.gpu_ids.empty()) {
      if (slot >= static_cast<int>(cfg.gpu_ids.size())) {
        throw UsageError("--gpu-ids lists " + std::to_string(cfg.gpu_ids.size()) + " devices but " +
                         std::to_string(slot + 1) + " are needed");
      }
      ordinal = cfg.gpu_ids[slot];
    }
    backends.push_back(make_backend(cfg.device, ordinal, bopt));
    if (!backends.back()->supports(cfg.precision)) {
      throw UsageError(std::string("--precision ") + precision_name(cfg.precision) + " is not supported on " +
                       backends.back()->info().name + " (" + device_kind_name(cfg.device) + " supports: " +
                       (cfg.device == DeviceKind::Cpu ? "fp32, bf16 where the CPU has AVX-512 BF16"
                                                      : "fp32, fp16 (sm_70+), tf32 and bf16 (sm_80+)") +
                       ")");
    }
  }

  if (req.devices_out) {
    for (auto& b : backends) req.devices_out->push_back(b->info());
  }

  std::vector<std::unique_ptr<Communicator>> comms;
  if (world > 1) {
    CommOptions copt;
    copt.library = cfg.device == DeviceKind::Cuda ? "nccl" : "gloo";
    copt.timeout_s = cfg.comm_timeout_s;
    copt.gloo_iface = cfg.gloo_iface;
    copt.transport = req.transport == "default" ? "auto" : req.transport;
    copt.job_key = req.job_key;
    copt.config_fingerprint = config_fingerprint(cfg, batch, image, local);
    std::vector<Backend*> raw;
    for (auto& b : backends) raw.push_back(b.get());
    comms = create_communicators(launch, raw, copt);
  }

  const int total_steps = cfg.warmup + cfg.steps * cfg.repeat;
  std::vector<ReplicaOutput> outs(local);
  std::vector<std::exception_ptr> errors(local);
  ThreadBarrier barrier(local);
  std::atomic<bool> failed{false};
  auto fail_all = [&] {
    failed = true;
    barrier.break_all();
    for (auto& c : comms) c->abort();
  };
  // SIGINT/SIGTERM: the step loops see the flag between steps; replicas blocked in a collective (here or in a
  // peer process) are released by the abort.
  StopCallback on_stop(fail_all);

  std::vector<std::thread> threads;
  for (int i = 0; i < local; ++i) {
    threads.emplace_back([&, i] {
      try {
        Backend& be = *backends[i];
        be.attach_thread();
        ReplicaPlacement where{launch.rank * local + i, world};
        Replica rep(cfg, model, be, comms.empty() ? nullptr : comms[i].get(), where, batch, image);
        ReplicaOutput& out = outs[i];
        // A failure while the replica is alive aborts the communicators first: unwinding frees device memory,
        // which synchronises the device and would wait forever on a collective a lost peer never completes.
        try {
          if (!barrier.wait()) return;
          Event* base = nullptr;
          double timed_sum = 0;
          int timed_done = 0;
          auto take = [&](int s, const StepBreakdown& b) {
            if (s < cfg.warmup) return;
            out.samples.push_back(b);
            out.bucket_times.push_back(rep.last_bucket_times());
            const std::vector<double>& ready = rep.last_layer_ready();
            if (out.layers.empty() && rep.ready_clock()) out.layers = rep.ready_clock()->layers();
            for (size_t l = 0; l < out.layers.size() && l < ready.size(); ++l) out.layers[l].ready_s += ready[l];
            if (req.trace && timed_done < 50) rep.append_trace(*base, where.global_rank, out.trace);
            timed_sum += b.total;
            ++timed_done;
            if (i == 0 && launch.rank == 0 && req.progress) {
              req.progress(timed_done, cfg.steps * cfg.repeat,
                           timed_sum > 0 ? static_cast<double>(batch * cfg.accum_steps * world) * timed_done / timed_sum
                                         : 0.0);
            }
          };
          // Steps are read one behind: step s is collected after step s + 1 was launched, so the host never
          // waits for the device inside the window (replica.h).
          int pending = -1;
          std::chrono::steady_clock::time_point window_start;
          for (int s = 0; s < total_steps && !failed && !stop_requested(); ++s) {
            if (s >= cfg.warmup && !base) {
              // The window starts on an idle device: warm-up drained, its memory use sampled.
              if (pending >= 0) take(pending, rep.collect(pending));
              pending = -1;
              out.device_in_use = std::max(out.device_in_use, be.device_memory_in_use());
              be.reset_peak_memory();
              base = &rep.new_base_event();
              window_start = std::chrono::steady_clock::now();
            }
            rep.launch(s);
            if (pending >= 0) take(pending, rep.collect(pending));
            pending = s;
          }
          if (pending >= 0 && !failed) take(pending, rep.collect(pending));
          if (base) out.window_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - window_start).count();
          out.device_in_use = std::max(out.device_in_use, be.device_memory_in_use());
          out.peak_memory = be.peak_memory_bytes();
          out.loss = rep.last_loss();
          out.overflow = rep.overflow_steps();
          out.skipped = rep.skipped_images();
          out.checksum = rep.param_checksum();
          if (const GradSync* gs = rep.grad_sync()) {
            for (const Bucket& k : gs->buckets()) {
              out.bucket_bytes.push_back((k.end - k.begin) * dtype_size(gs->wire_dtype()));
              out.bucket_ready_layer.push_back(k.ready_layer);
            }
            out.wire_bytes = gs->wire_bytes();
            out.wire_dtype = dtype_name(gs->wire_dtype());
          }
        } catch (...) {
          fail_all();
          throw;
        }
      } catch (const OutOfMemory& e) {
        errors[i] = std::make_exception_ptr(OutOfMemory(
            std::string(cfg.device == DeviceKind::Cpu ? "out of memory" : "out of device memory") + " training " +
            cfg.model + " at batch size " + std::to_string(batch) +
            " per device (" + precision_name(cfg.precision) + ", image " + std::to_string(image) +
            "); try a smaller --batch-size: " + e.what()));
        fail_all();
      } catch (...) {
        errors[i] = std::current_exception();
        fail_all();
      }
    });
  }
  for (auto& t : threads) t.join();
  throw_if_stopped();  // the replicas' own errors are the abort's consequences
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);

  // Merge: per timed step, the mean over replicas (all processes).
  const size_t n = outs[0].samples.size();
  DeviceCountResult r;
  r.devices = world;
  r.transport = req.transport;
  r.transport_env = req.transport_env;
  r.batch_per_device = batch;
  r.global_batch = batch * world * cfg.accum_steps;
  r.threads_per_replica = cfg.device == DeviceKind::Cpu ? bopt.threads : 0;
  r.input_only = cfg.input_only;
  r.samples.resize(n);
  const size_t nb = outs[0].bucket_bytes.size();
  std::vector<float> flat(n * 7 + nb + 2, 0.0f);
  for (const auto& o : outs) {
    for (size_t s = 0; s < n; ++s) {
      const StepBreakdown& b = o.samples[s];
      const double parts[7] = {b.input_wait, b.forward, b.backward, b.comm_exposed, b.comm_overlapped, b.optimizer, b.total};
      for (int p = 0; p < 7; ++p) flat[s * 7 + p] += static_cast<float>(parts[p]);
      for (size_t k = 0; k < nb && k < o.bucket_times[s].size(); ++k) flat[n * 7 + k] += static_cast<float>(o.bucket_times[s][k] / n);
    }
    flat[n * 7 + nb] += o.loss;
    flat[n * 7 + nb + 1] += static_cast<float>(o.overflow);
  }
  if (launch.world_size > 1) flat = allreduce_host(*comms[0], *backends[0], flat);
  for (size_t s = 0; s < n; ++s) {
    double* parts[7] = {&r.samples[s].input_wait, &r.samples[s].forward, &r.samples[s].backward, &r.samples[s].comm_exposed,
                        &r.samples[s].comm_overlapped, &r.samples[s].optimizer, &r.samples[s].total};
    for (int p = 0; p < 7; ++p) *parts[p] = flat[s * 7 + p] / world;
  }
  r.final_loss = flat[n * 7 + nb] / world;
  r.overflow_steps = static_cast<int64_t>(flat[n * 7 + nb + 1] / world);

  // The profile: this process's replicas, mean over timed steps (each replica timed the same layers).
  r.gradient_layers = outs[0].layers;
  for (size_t l = 0; l < r.gradient_layers.size(); ++l) {
    double sum = 0;
    for (const auto& o : outs) sum += l < o.layers.size() ? o.layers[l].ready_s : 0.0;
    r.gradient_layers[l].ready_s = n > 0 ? sum / (static_cast<double>(n) * outs.size()) : 0.0;
  }

  r.allreduce.library = comms.empty() || cfg.allreduce == AllreduceMode::None ? "none" : comms[0]->library();
  r.allreduce.dtype = outs[0].wire_dtype;
  r.allreduce.bytes_per_step = outs[0].wire_bytes;
  r.allreduce.buckets = static_cast<int>(nb);
  for (size_t k = 0; k < nb; ++k) {
    BucketTiming bt;
    bt.bytes = outs[0].bucket_bytes[k];
    bt.time_s = r.allreduce.library == "none" ? 0.0 : flat[n * 7 + k] / world;
    for (const GradientLayer& g : r.gradient_layers)
      if (g.layer == outs[0].bucket_ready_layer[k]) bt.ready_s = g.ready_s;
    r.allreduce.per_bucket.push_back(bt);
  }

  // Peak memory (max) and parameter checksums (must agree) over every replica of every process.
  // Per global rank, so the sum over processes places each value: peak KiB, device KiB in use, window seconds.
  std::vector<float> peaks(static_cast<size_t>(world) * 3, 0.0f), sums(static_cast<size_t>(world) * 4, 0.0f);
  for (int i = 0; i < local; ++i) {
    const int g = launch.rank * local + i;
    peaks[g] = static_cast<float>(outs[i].peak_memory / 1024.0);  // KiB: exact enough in fp32
    peaks[world + g] = static_cast<float>(outs[i].device_in_use / 1024.0);
    peaks[2 * world + g] = static_cast<float>(outs[i].window_s);
    const uint64_t c = outs[i].checksum;
    for (int q = 0; q < 4; ++q) sums[g * 4 + q] = static_cast<float>((c >> (16 * q)) & 0xffff);  // exact in fp32
  }
  if (launch.world_size > 1) {
    peaks = allreduce_host(*comms[0], *backends[0], peaks);
    sums = allreduce_host(*comms[0], *backends[0], sums);
  }
  for (int g = 0; g < world; ++g) {
    r.peak_memory_bytes = std::max(r.peak_memory_bytes, static_cast<size_t>(peaks[g] * 1024.0));
    r.device_memory_in_use_bytes =
        std::max(r.device_memory_in_use_bytes, static_cast<size_t>(peaks[world + g] * 1024.0));
    r.timed_wall_s = std::max(r.timed_wall_s, static_cast<double>(peaks[2 * world + g]));
  }
  for (int g = 0; g < world; ++g) {
    uint64_t c = 0;
    for (int q = 0; q < 4; ++q) c |= static_cast<uint64_t>(sums[g * 4 + q]) << (16 * q);
    r.replica_checksums.push_back(c);
  }
  for (const auto& o : outs) r.skipped_images += o.skipped;
  if (req.trace) r.trace = outs[0].trace;
  for (int i = 1; i < local && req.trace; ++i) r.trace.insert(r.trace.end(), outs[i].trace.begin(), outs[i].trace.end());
  double sum = 0;
  for (const auto& s : r.samples) sum += s.total;
  r.wall_s = sum;
  return r;
}

}  // namespace mg
