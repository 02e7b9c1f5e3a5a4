#include "cli/lib/train_options.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "backend/backend.h"
#include "cli/lib/option_lists.h"
#include "comm/transport.h"
#include "core/error.h"
#include "data/data_source.h"
#include "models/registry.h"
#include "result/config_ranges.h"
#include "train/device_plan.h"

namespace mg {

namespace {

void check_output_path(const std::string& path, const char* option) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError(std::string(option) + " " + path + ": directory " + dir.string() + " does not exist");
  if (access(dir.c_str(), W_OK) != 0) throw UsageError(std::string(option) + " " + path + ": directory " + dir.string() + " is not writable");
  if (fs::is_directory(p, ec)) throw UsageError(std::string(option) + " " + path + " is a directory");
}

}  // namespace

void add_train_options(CLI::App& app, TrainOptions& o) {
  RunConfig& c = o.cfg;
  // --help shows the options in these groups, in this order; options made later (subcommands) go back to "Options".
  app.option_defaults()->group("Model and data");
  app.add_option("--model", c.model, "network to train (see `mgbench models`)")->capture_default_str();
  app.add_option("--precision", o.precision, "fp32 | tf32 | fp16 | bf16")->capture_default_str();
  app.add_option("--batch-size", o.batch_size, "images per device per step (global with --scaling strong); default 64 on GPU, 16 on CPU");
  app.add_option("--scaling", o.scaling, "weak (batch per device) | strong (global batch fixed)")->capture_default_str();
  app.add_option("--image-size", c.image_size, "input height and width (default: the model's)");
  app.add_option("--seq-len", c.seq_len, "a language model's tokens per sequence (default: its context length)");
  app.add_option("--num-classes", o.num_classes, "classifier outputs (default 1000; image models)");
  app.add_option("--data", c.data, "synthetic | DIR (ImageNet-style folder) | FILE.mgrec | FILE.bin (tokens)")
      ->capture_default_str();
  app.add_option("--synthetic-source", o.synthetic_source, "device (one batch kept on the device) | host (staged every step)")->capture_default_str();
  app.add_option("--data-threads", c.data_threads, "JPEG decode threads per replica")->capture_default_str();
  app.add_option("--staging-depth", c.staging_depth, "batches in flight between host and device")->capture_default_str();
  app.add_option("--seed", c.seed, "seed for weights, data order and synthetic data")->capture_default_str();
  app.add_flag("--skip-bad-images", c.skip_bad_images, "skip (and count) corrupt images instead of failing");
  app.option_defaults()->group("Optimizer");
  app.add_option("--optimizer", o.optimizer,
                 "sgd (with momentum) | adamw (decoupled weight decay, as torch.optim.AdamW)")->capture_default_str();
  app.add_option("--lr", o.lr, "learning rate (default: 0.01 for sgd, 0.001 for adamw)");
  app.add_option("--momentum", o.momentum, "SGD momentum (default 0.9)");
  app.add_option("--weight-decay", o.weight_decay, "weight decay (default: 1e-4 for sgd, 0.01 for adamw)");
  app.add_option("--adam-beta1", o.adam_beta1, "AdamW's first-moment decay (default 0.9)");
  app.add_option("--adam-beta2", o.adam_beta2, "AdamW's second-moment decay (default 0.999)");
  app.add_option("--adam-eps", o.adam_eps, "AdamW's epsilon (default 1e-8)");
  app.add_option("--loss-scale", c.loss_scale, "initial dynamic loss scale for fp16")->capture_default_str();
  app.option_defaults()->group("Devices and communication");
  app.add_option("--device", o.device, "cpu | cuda | auto (cuda when a GPU is present)")->capture_default_str();
  app.add_option("--gpus,--devices", o.gpus, "device counts to sweep, e.g. 1,2,4,8 (CPU: replicas)")->delimiter(',');
  app.add_option("--gpu-ids", o.gpu_ids, "device ordinals to use, e.g. 0,2,4,6")->delimiter(',');
  app.add_flag("--no-baseline", c.no_baseline, "do not add the 1-device run when the list lacks it");
  app.add_option("--threads", o.threads, "CPU threads for this process (default: all cores)");
  app.add_option("--threads-per-replica", o.threads_per_replica, "CPU threads per replica (default: threads / replicas)");
  app.add_option("--cpu-conv-algo", o.cpu_conv_algo,
                 "CPU convolutions: fastest (per shape, once, at set-up: each pass's fastest oneDNN "
                 "implementation, and direct against Winograd for fp32 3x3 stride-1 layers) | direct | winograd "
                 "(pin one, untimed, oneDNN's first implementation of each pass; Winograd where it applies, direct "
                 "elsewhere)")->capture_default_str();
  app.add_option("--bucket-mb", c.bucket_mb, "gradient bucket size in MiB")->capture_default_str();
  app.add_flag("--no-overlap", o.no_overlap, "start all-reduce only after the whole backward pass");
  app.add_option("--allreduce-dtype", o.allreduce_dtype, "fp32 | fp16 | bf16 (default: fp32 gradients)");
  app.add_option("--accum-steps", c.accum_steps, "micro-batches per replica between all-reduces")->capture_default_str();
  app.add_option("--allreduce", o.allreduce,
                 "ring | ps (reduce to rank 0, then broadcast: a parameter server) | none (independent replicas, no "
                 "gradient exchange)")->capture_default_str();
  app.add_option("--nccl-algo", o.nccl_algo, "ring | tree | auto: sets NCCL_ALGO before NCCL starts");
  app.add_option("--comm-timeout", c.comm_timeout_s, "seconds before a lost rank fails the run")->capture_default_str();
  app.add_option("--transport", o.transports, "transports to compare, e.g. auto,p2p,shm,net (NCCL) or local,tcp (CPU)")->delimiter(',');
  app.add_option("--gloo-iface", c.gloo_iface, "network interface for Gloo's TCP transport");
  app.option_defaults()->group("Measurement");
  app.add_option("--steps", o.steps, "timed steps per repeat (default 20 on GPU, 10 on CPU)");
  app.add_option("--warmup", o.warmup, "untimed warm-up steps (default 5 on GPU, 2 on CPU)");
  app.add_option("--repeat", c.repeat, "repeat the timed steps R times, keeping all samples")->capture_default_str();
  app.add_option("--runs", c.runs, "run the whole benchmark P times, each in a fresh process, and pool them: the "
                 "step-time CI then includes the spread between runs")->capture_default_str();
  app.add_flag("--forward-only", c.forward_only, "benchmark inference (forward pass only)");
  app.add_flag("--input-only", c.input_only, "run the input pipeline only (decode, augment, stage), no training");
  app.add_option("--inject-slowdown", c.inject_slowdown,
                 "calibration only: make every timed step slower by this fraction of its own time (busy-wait), "
                 "e.g. 0.10; recorded in the result (scripts/ci-regression.sh --calibrate)");
  app.add_flag("--no-check", o.no_check,
               "skip the correctness check of the model's layers and a few training steps before timing");
  app.option_defaults()->group("Output");
  app.add_option("--json", c.json_path, "write the result as JSON (atomically)");
  app.add_option("--trace", c.trace_path, "write a Chrome/Perfetto trace of the largest device count");
  app.add_option("--html", o.html_path, "write a self-contained HTML report (plots, tables, environment)");
  CLI::Option* no_progress = app.add_flag("--no-progress", o.no_progress, "no progress line even on a terminal");
  app.add_flag("--progress", o.progress,
               "the progress line on stderr even when not on a terminal, e.g. for a log that follows the run")
      ->excludes(no_progress);
  app.option_defaults()->group("Options");
}

namespace {

// The model's inputs: a language model's are its tokens, its classes its vocabulary (no device work).
ModelDesc resolve_model(RunConfig& c, const TrainOptions& o) {
  c.model = canonical_model_name(c.model);
  const ModelDesc desc = build_model(c.model);
  check_data_kind(c.data, desc.tokens);  // before the pre-run check, which takes seconds
  if (desc.tokens) {
    if (c.image_size) throw UsageError("--image-size applies to image models; " + c.model + " takes --seq-len");
    if (o.num_classes) throw UsageError("--num-classes applies to image models; " + c.model + "'s vocabulary is fixed");
    c.num_classes = desc.num_classes;
  } else {
    if (c.seq_len) throw UsageError("--seq-len applies to language models; " + c.model + " takes --image-size");
    c.num_classes = o.num_classes.value_or(c.num_classes);
  }
  return desc;
}

// Device, precision and the choices named by a word; returns whether the run is on GPUs.
bool resolve_device_and_names(RunConfig& c, const TrainOptions& o) {
  // "auto" and the aliases gpu (cuda) and amp (bf16) are command-line conveniences, never recorded.
  c.device = device_kind_option(o.device);
  require_device_present(c.device);
  const bool gpu = c.device == DeviceKind::Cuda;
  c.precision = kPrecisionNames.parse(o.precision == "amp" ? "bf16" : o.precision, "--precision");
  // The CPU answers at once; each GPU is asked when the trainer opens it (the devices may differ).
  if (!gpu) require_precision(*make_backend(DeviceKind::Cpu, 0, BackendOptions{}), c.precision);
  c.scaling = kScalingNames.parse(o.scaling, "--scaling");
  c.allreduce = kAllreduceModeNames.parse(o.allreduce, "--allreduce");
  if (!o.allreduce_dtype.empty()) c.allreduce_dtype = kAllreduceDTypeNames.parse(o.allreduce_dtype, "--allreduce-dtype");
  if (!o.nccl_algo.empty()) c.nccl_algo = kNcclAlgoNames.parse(o.nccl_algo, "--nccl-algo");
  c.synthetic_source = kSyntheticSourceNames.parse(o.synthetic_source, "--synthetic-source");
  c.cpu_conv_algo = kCpuConvAlgoNames.parse(o.cpu_conv_algo, "--cpu-conv-algo");
  if (c.cpu_conv_algo != CpuConvAlgo::Fastest && gpu)
    throw UsageError("--cpu-conv-algo applies to --device cpu only (cuDNN chooses on a GPU)");
  if (c.cpu_conv_algo == CpuConvAlgo::Winograd && !cpu_has_winograd())
    throw UsageError("--cpu-conv-algo winograd: oneDNN has no Winograd convolution on this CPU (it needs AVX-512)");
  if (c.cpu_conv_algo == CpuConvAlgo::Winograd && c.precision != Precision::FP32)
    throw UsageError("--cpu-conv-algo winograd: oneDNN's Winograd convolution is fp32 only, not --precision " +
                     std::string(precision_name(c.precision)));
  return gpu;
}

// Batch, step counts and the other numbers, each within its range.
void resolve_numbers(RunConfig& c, const TrainOptions& o, const ModelDesc& desc, bool gpu) {
  c.batch_size = o.batch_size.value_or(gpu ? 64 : 16);
  if (c.batch_size < 1 || c.batch_size > 65536) {
    throw UsageError("--batch-size " + std::to_string(c.batch_size) + " must be between 1 and 65536");
  }
  c.steps = o.steps != 0 ? o.steps : (gpu ? 20 : 10);
  c.warmup = o.warmup >= 0 ? o.warmup : (gpu ? 5 : 2);
  if (c.steps < 1 || c.steps > 1000000) throw UsageError("--steps " + std::to_string(c.steps) + " must be between 1 and 1000000");
  if (o.warmup < -1 || c.warmup > 1000000) throw UsageError("--warmup " + std::to_string(o.warmup) + " must be between 0 and 1000000");
  if (c.repeat < 1 || c.repeat > 1000) throw UsageError("--repeat " + std::to_string(c.repeat) + " must be between 1 and 1000");
  if (c.runs < 1 || c.runs > 100) throw UsageError("--runs " + std::to_string(c.runs) + " must be between 1 and 100");
  check_accum_steps(c.accum_steps);
  if (c.staging_depth < 1 || c.staging_depth > 64) throw UsageError("--staging-depth " + std::to_string(c.staging_depth) + " must be between 1 and 64");
  if (c.data_threads < 1 || c.data_threads > 256) throw UsageError("--data-threads " + std::to_string(c.data_threads) + " must be between 1 and 256");
  check_bucket_mb(c.bucket_mb);
  if (!(c.comm_timeout_s > 0)) throw UsageError("--comm-timeout must be positive (seconds)");
  if (c.num_classes < 1 || c.num_classes > 1000000) throw UsageError("--num-classes " + std::to_string(c.num_classes) + " must be between 1 and 1000000");
  if (c.image_size < 0 || c.image_size > 4096) throw UsageError("--image-size " + std::to_string(c.image_size) + " must be between 1 and 4096");
  if (c.seq_len < 0 || c.seq_len > desc.default_image_size)
    throw UsageError("--seq-len " + std::to_string(c.seq_len) + " must be between 1 and " + c.model +
                     "'s context length, " + std::to_string(desc.default_image_size));
  for (const auto& [given, name] : {std::pair{o.threads, "--threads"}, std::pair{o.threads_per_replica, "--threads-per-replica"}}) {
    if (given && *given < 1)
      throw UsageError(std::string(name) + " " + std::to_string(*given) + " must be at least 1 (leave it out for the default)");
  }
  c.threads = o.threads.value_or(0);
  c.threads_per_replica = o.threads_per_replica.value_or(0);
}

// The optimizer's settings (an option of the other optimizer is an error) and the run's mode.
void resolve_optimizer(RunConfig& c, const TrainOptions& o) {
  c.optimizer = kOptimizerNames.parse(o.optimizer, "--optimizer");
  const bool adamw = c.optimizer == Optimizer::AdamW;
  c.lr = o.lr.value_or(adamw ? 1e-3f : c.lr);  // torch.optim.AdamW's defaults; RunConfig's are SGD's
  c.weight_decay = o.weight_decay.value_or(adamw ? 0.01f : c.weight_decay);
  if (adamw && o.momentum) throw UsageError("--momentum applies to --optimizer sgd (AdamW has --adam-beta1)");
  c.momentum = o.momentum.value_or(c.momentum);
  if (!adamw && (o.adam_beta1 || o.adam_beta2 || o.adam_eps))
    throw UsageError("--adam-beta1, --adam-beta2 and --adam-eps apply to --optimizer adamw");
  c.adam_beta1 = o.adam_beta1.value_or(c.adam_beta1);
  c.adam_beta2 = o.adam_beta2.value_or(c.adam_beta2);
  c.adam_eps = o.adam_eps.value_or(c.adam_eps);
  if (!(c.lr >= 0) || !(c.momentum >= 0) || !(c.weight_decay >= 0)) throw UsageError("--lr, --momentum and --weight-decay must be >= 0");
  for (const auto& [beta, name] :
       {std::pair{c.adam_beta1, "--adam-beta1"}, std::pair{c.adam_beta2, "--adam-beta2"}}) {
    if (!(beta >= 0 && beta < 1)) throw UsageError(std::string(name) + " must be in [0, 1)");
  }
  if (!(c.adam_eps > 0)) throw UsageError("--adam-eps must be positive");
  if (!(c.loss_scale >= 1)) throw UsageError("--loss-scale must be >= 1");
  if (c.forward_only && c.input_only) throw UsageError("--forward-only and --input-only exclude each other");
  if (!(c.inject_slowdown >= 0) || c.inject_slowdown > 10)
    throw UsageError("--inject-slowdown must be a fraction between 0 and 10, e.g. 0.10");
}

// The device counts to sweep, the devices to use and the transports to compare.
void resolve_devices(RunConfig& c, const TrainOptions& o, bool gpu) {
  if (!o.gpus.empty()) {
    c.device_counts = parse_ints(o.gpus, "--gpus");
  } else {
    // The host's cores, as a process alone on it has them: under a launcher the world replaces this default.
    c.device_counts = default_device_counts(c.device, process_cores(c.threads, LaunchInfo{}));
  }
  c.device_counts_defaulted = o.gpus.empty();
  c.gpu_ids = parse_ints(o.gpu_ids, "--gpu-ids");
  if (!c.gpu_ids.empty()) {
    std::vector<int> sorted = c.gpu_ids;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) throw UsageError("--gpu-ids lists a device twice");
    if (!gpu) throw UsageError("--gpu-ids applies to --device cuda only");
  }
  // Parsed once here (unknown, inapplicable or repeated entries rejected before any work); the sweep uses the list.
  std::string list;
  for (const std::string& t : split_list(o.transports)) list += (list.empty() ? "" : ",") + t;
  if (!list.empty()) c.transports = parse_transports(list, c.device);
}

}  // namespace

RunConfig finalize_train_options(TrainOptions& o, const std::string& command_line) {
  RunConfig c = o.cfg;
  c.command_line = command_line;
  c.progress = !o.no_progress;
  c.check = !o.no_check;
  c.overlap = !o.no_overlap;
  const ModelDesc desc = resolve_model(c, o);
  const bool gpu = resolve_device_and_names(c, o);
  resolve_numbers(c, o, desc, gpu);
  resolve_optimizer(c, o);
  resolve_devices(c, o, gpu);
  check_output_path(c.json_path, "--json");
  check_output_path(c.trace_path, "--trace");
  check_output_path(o.html_path, "--html");
  return c;
}

}  // namespace mg
