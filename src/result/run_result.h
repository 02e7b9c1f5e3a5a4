// What a run measured: one DeviceCountResult per entry of the sweep, plus the environment. Produced by the
// trainer (and by prediction), consumed by reporting (JSON, table, trace, compare). All times are seconds.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/loaded_library.h"
#include "result/check_report.h"
#include "result/run_config.h"

namespace mg {

// One timed step of one replica (or the mean over replicas). input_wait + forward + backward + comm_exposed +
// optimizer = total: the five tile the step on the compute stream. comm_overlapped is all-reduce time on the comm
// stream that ran while backward was still computing: it lies inside backward, so it is reported beside the
// parts and never added to them.
struct StepBreakdown {
  double input_wait = 0;
  double forward = 0;
  double backward = 0;
  double comm_exposed = 0;     // optimizer waited for all-reduce after backward ended
  double comm_overlapped = 0;  // all-reduce time hidden under backward (inside `backward`)
  double optimizer = 0;
  double total = 0;            // step time
};

// The one list of breakdown parts, in step order, that the summary, the JSON file, the table and every merge
// walk, so a part cannot be summed in one place and forgotten in another.
struct BreakdownPart {
  const char* key;    // JSON name without the "_s" suffix
  const char* label;  // short table heading
  double StepBreakdown::*field;
  bool additive;      // part of the sum that equals total
};
inline constexpr BreakdownPart kBreakdownParts[] = {
    {"input_wait", "input", &StepBreakdown::input_wait, true},
    {"forward", "fwd", &StepBreakdown::forward, true},
    {"backward", "bwd", &StepBreakdown::backward, true},
    {"comm_exposed", "cexp", &StepBreakdown::comm_exposed, true},
    {"comm_overlapped", "covl", &StepBreakdown::comm_overlapped, false},
    {"optimizer", "opt", &StepBreakdown::optimizer, true},
};

struct StepStats {
  double median_s = 0, mean_s = 0, stddev_s = 0, p5_s = 0, p95_s = 0;
  double ci95_lo_s = 0, ci95_hi_s = 0;  // 95% CI of the median (stats/step_stats.h says how)
  double ci95_s = 0;                    // half-width: max(median-lo, hi-median)
  double jitter_s = 0;                  // 1.4826 * MAD
  int64_t samples = 0;
  int64_t process_runs = 1;                              // independent process runs pooled (--runs)
  std::string ci95_method = "order-statistic";  // or "between-runs" when process_runs >= 2
};

struct BucketTiming {
  size_t bytes = 0;
  double time_s = 0;   // mean per step
  double ready_s = 0;  // mean per step: from the start of (the last micro-batch's) backward to the moment backward
                       // had produced every gradient of this bucket
};

// One layer that owns parameters, in flat gradient order, with when backward completed its gradients: the
// profile `mgbench predict` re-buckets from (any --bucket-mb, without hardware).
struct GradientLayer {
  int layer = 0;          // index in the model
  size_t elements = 0;    // fp32 gradient elements
  double ready_s = 0;     // mean per step, from the start of (the last micro-batch's) backward
};

// --layer-times: one layer's share of one step (the last warm-up step, replica 0), from device events recorded
// between the layers. A ReLU or Add fused into its producer has no forward entry of its own (the producer's time
// holds it); "loss" is the softmax cross-entropy, between forward and backward.
struct LayerTime {
  int layer = 0;      // index in the model; -1 for the loss
  std::string name;   // the model's layer name ("layer2.0.conv1", "h.3.attn")
  std::string kind;   // conv, linear, attention, ... (models/layer_desc.h); "loss"
  double forward_s = 0;
  double backward_s = 0;  // with the gradient additions into its inputs' gradients
};

// What casting gradients to and from a 16-bit wire dtype cost on the profiled device: the trainer's own cast
// (Backend::cast on the Compute stream), timed with device events over the model's whole fp32 gradient after a
// 1-device run's timed window, median of `repetitions`. `mgbench predict` schedules the casts a multi-device run
// would do (docs/predict.md).
struct WireCastCost {
  std::string dtype;                    // fp16 | bf16
  double to_wire_s_per_element = 0;     // fp32 -> dtype, before the bucket's all-reduce
  double from_wire_s_per_element = 0;   // dtype -> fp32, before the optimizer
  size_t elements = 0;                  // per timed cast
  int repetitions = 0;
};

struct AllreduceStats {
  std::string library;   // nccl | gloo | none
  std::string dtype;     // wire dtype
  size_t bytes_per_step = 0;
  int buckets = 0;
  double time_s = 0;     // sum over buckets, mean per step
  double algbw_GBps = 0;  // bytes_per_step / time_s
  double busbw_GBps = 0;  // algbw * 2(N-1)/N
  std::vector<BucketTiming> per_bucket;
};

struct TraceSpan {  // one interval of one replica's stream, for --trace
  int replica = 0;
  std::string stream;  // compute | copy | comm
  std::string name;
  double start_s = 0;  // relative to the first timed step
  double dur_s = 0;
};

struct DeviceCountResult {
  int devices = 0;
  std::string transport = "default";
  std::map<std::string, std::string> transport_env;  // variables this entry set
  int64_t batch_per_device = 0;
  int64_t global_batch = 0;  // images per optimizer step over all devices (includes accum_steps)
  int threads_per_replica = 0;  // CPU threads each replica computed on (0: not recorded, or a GPU run)
  // A language model's samples are sequences of this many tokens (its images_per_sec counts sequences); 0 for
  // image models.
  int64_t tokens_per_sample = 0;
  double images_per_sec = 0;
  double tokens_per_sec = 0;  // images_per_sec x tokens_per_sample
  // Model FLOPs utilisation, mfu = images_per_sec_per_device x model_flops_per_sample / peak_flops_per_device:
  // the model's own multiply-adds (x2: conv, linear, attention's two products; forward, and x3 for a training
  // step), not what the kernels executed. 0 when the peak is unknown (peak_flops_source says why).
  double model_flops_per_sample = 0;
  double peak_flops_per_device = 0;
  std::string peak_flops_source;
  double mfu = 0;
  double images_per_sec_per_device = 0;
  double scaling_efficiency = 0;  // vs devices=1 of the same transport; 1.0 for the baseline
  double speedup = 0;
  double wall_s = 0;
  // Host wall time from the start of the first timed step to the end of the last (warm-up drained before it),
  // max over replicas: the denominator of images_per_sec. 0 in files written before it existed.
  double timed_wall_s = 0;
  // global_batch x timed steps / sum of per-step event times: the device-side rate, which misses host gaps
  // between steps (what a launch-bound model loses); the step distribution and breakdown use the same times.
  double images_per_sec_from_steps = 0;
  StepStats step_time;
  StepBreakdown breakdown;  // mean per step
  AllreduceStats allreduce;
  std::vector<GradientLayer> gradient_layers;  // the profile (training runs; empty for forward/input-only)
  std::vector<WireCastCost> wire_casts;        // the profile's cast costs (1-device training runs; else empty)
  std::vector<LayerTime> layer_times;          // --layer-times, in layer order then the loss; else empty
  size_t peak_memory_bytes = 0;  // max over replicas: bytes mgbench itself allocated at the high-water mark
  // Which convolution algorithm the layers ran, as layers per algorithm name (CPU: direct, winograd, chosen
  // at set-up unless --cpu-conv-algo pins one), as rank 0's first replica chose; processes choose on their own.
  // Empty where not recorded (a GPU run, or a file written before it existed).
  std::map<std::string, int> conv_algorithms;
  // What the device reports in use, max over replicas, sampled after warm-up and after the timed window (CUDA:
  // cudaMemGetInfo total - free, the whole device: CUDA context, cuDNN/cuBLAS/NCCL buffers, other processes;
  // CPU: the process's peak resident set, VmHWM). 0 when not measured.
  size_t device_memory_in_use_bytes = 0;
  double final_loss = 0;
  int64_t overflow_steps = 0;   // fp16 steps skipped for overflow
  int64_t skipped_images = 0;   // --skip-bad-images
  bool input_only = false;
  // FNV-1a of every replica's parameters after the run (global rank order): data-parallel replicas must agree.
  std::vector<uint64_t> replica_checksums;
  std::vector<StepBreakdown> samples;  // every timed step (all repeats), mean over replicas
  // With --runs, how many of the samples each process run contributed, in order (their sum is samples.size());
  // empty for a single run. The CI of the median is built from the runs' medians.
  std::vector<int64_t> run_samples;
  std::vector<TraceSpan> trace;        // filled only when tracing
};

struct Environment {
  std::string mgbench_version, git_commit, command_line, host, cpu;
  std::vector<DeviceInfo> devices;
  std::map<std::string, std::string> versions;  // cuda, cudnn, nccl, onednn, gloo, driver, ...
  // onednn, gloo, cudart, cublas, cublaslt, cudnn, nccl: the file loaded and the version it reports.
  std::map<std::string, LoadedLibrary> libraries;
  std::map<std::string, std::string> env_vars;  // NCCL_*, OMP_*, CUDA_VISIBLE_DEVICES, ...
  std::string launcher = "none";
  int world_size = 1;
  nlohmann::json topology;  // summary from src/topo
};

// When one process run of the benchmark began and ended, wall clock in seconds since the Unix epoch.
struct ProcessSpan {
  double started_unix_s = 0;
  double finished_unix_s = 0;
};

struct RunResult {
  // "training": measured by the trainer; "prediction": simulated by `mgbench predict` from a profile (same
  // fields, no samples of its own). Readers that only accept measurements check it.
  std::string kind = "training";
  Environment env;
  RunConfig config;
  std::vector<DeviceCountResult> runs;
  // The correctness check run before timing (src/check); ran=false when skipped with --no-check.
  CheckReport check;
  // Every process run behind this file in the order they ran (one, or one per --runs child), so compare
  // --paired can check that BASE and NEW alternated; empty in older files and predictions.
  std::vector<ProcessSpan> process_runs;
};

}  // namespace mg
