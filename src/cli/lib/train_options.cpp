#include "cli/lib/train_options.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "backend/backend.h"
#include "cli/lib/option_lists.h"
#include "comm/transport.h"
#include "core/error.h"
#include "data/data_source.h"
#include "models/registry.h"
#include "result/config_ranges.h"
#include "result/run_config_fields.h"
#include "train/device_plan.h"

namespace mg {

namespace {

void check_output_path(const std::string& path, const char* option) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError(fmt::format("{} {}: directory {} does not exist", option, path, dir.string()));
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: directory {} is not writable", option, path, dir.string()));
  if (fs::is_directory(p, ec)) throw UsageError(fmt::format("{} {} is a directory", option, path));
}

// The long names of CLI11's "--gpus,--devices", without the dashes.
std::vector<std::string> long_names(const std::string& names) {
  std::vector<std::string> out;
  for (const std::string& n : split_list({names}))
    if (n.rfind("--", 0) == 0) out.push_back(n.substr(2));
  return out;
}

// The run-config field one of `names` sets; a name in neither list is a programming error (tests/cli_lib).
const ConfigField& field_of(const std::string& names) {
  for (const std::string& n : long_names(names))
    if (const ConfigField* f = config_field_of_option(n)) return *f;
  throw std::logic_error(fmt::format("{} is not an option of the run-config field table", names));
}

const CliOnlyOption& cli_only_option(const std::string& name) {
  for (const CliOnlyOption& o : train_cli_only_options())
    if (name == o.option) return o;
  throw std::logic_error(fmt::format("--{} is not in train_cli_only_options()", name));
}

// A field's option and flag: the help text and group are the field table's.
template <typename T>
CLI::Option* field_option(CLI::App& app, const std::string& names, T& value) {
  const ConfigField& f = field_of(names);
  return app.add_option(names, value, f.help)->group(f.group);
}
CLI::Option* field_flag(CLI::App& app, const std::string& names, bool& value) {
  const ConfigField& f = field_of(names);
  return app.add_flag(names, value, f.help)->group(f.group);
}

}  // namespace

const std::vector<CliOnlyOption>& train_cli_only_options() {
  static const std::vector<CliOnlyOption> options = {
      {"html", kGroupOutput, "write a self-contained HTML report (plots, tables, environment)"},
      {"progress", kGroupOutput,
       "the progress line on stderr even when not on a terminal, e.g. for a log that follows the run"},
  };
  return options;
}

void add_train_options(CLI::App& app, TrainOptions& o) {
  RunConfig& c = o.cfg;
  // --help lists the groups by their first option, and each group's options, in this order.
  const ConfigField& preset = field_of("--config");
  app.set_config("--config", "", preset.help)->group(preset.group);  // read by app.cpp's JsonConfig
  field_option(app, "--model", c.model)->capture_default_str();
  field_option(app, "--precision", o.precision)->capture_default_str();
  field_option(app, "--batch-size", o.batch_size);
  field_option(app, "--scaling", o.scaling)->capture_default_str();
  field_option(app, "--image-size", c.image_size);
  field_option(app, "--seq-len", c.seq_len);
  field_option(app, "--num-classes", o.num_classes);
  field_option(app, "--data", c.data)->capture_default_str();
  field_option(app, "--synthetic-source", o.synthetic_source)->capture_default_str();
  field_option(app, "--data-threads", c.data_threads)->capture_default_str();
  field_option(app, "--staging-depth", c.staging_depth)->capture_default_str();
  field_option(app, "--seed", c.seed)->capture_default_str();
  field_flag(app, "--skip-bad-images", c.skip_bad_images);
  field_option(app, "--optimizer", o.optimizer)->capture_default_str();
  field_option(app, "--lr", o.lr);
  field_option(app, "--momentum", o.momentum);
  field_option(app, "--weight-decay", o.weight_decay);
  field_option(app, "--adam-beta1", o.adam_beta1);
  field_option(app, "--adam-beta2", o.adam_beta2);
  field_option(app, "--adam-eps", o.adam_eps);
  field_option(app, "--loss-scale", c.loss_scale)->capture_default_str();
  field_option(app, "--device", o.device)->capture_default_str();
  field_option(app, "--gpus,--devices", o.gpus)->delimiter(',');
  field_option(app, "--gpu-ids", o.gpu_ids)->delimiter(',');
  field_flag(app, "--no-baseline", c.no_baseline);
  field_option(app, "--threads", o.threads);
  field_option(app, "--threads-per-replica", o.threads_per_replica);
  field_option(app, "--cpu-conv-algo", o.cpu_conv_algo)->capture_default_str();
  field_option(app, "--bucket-mb", c.bucket_mb)->capture_default_str();
  field_flag(app, "--no-overlap", o.no_overlap);
  field_option(app, "--allreduce-dtype", o.allreduce_dtype);
  field_option(app, "--accum-steps", c.accum_steps)->capture_default_str();
  field_option(app, "--allreduce", o.allreduce)->capture_default_str();
  field_option(app, "--nccl-algo", o.nccl_algo);
  field_option(app, "--comm-timeout", c.comm_timeout_s)->capture_default_str();
  field_option(app, "--transport", o.transports)->delimiter(',');
  field_option(app, "--gloo-iface", c.gloo_iface);
  field_option(app, "--steps", o.steps);
  field_option(app, "--warmup", o.warmup);
  field_option(app, "--repeat", c.repeat)->capture_default_str();
  field_option(app, "--runs", c.runs)->capture_default_str();
  field_flag(app, "--forward-only", c.forward_only);
  field_flag(app, "--input-only", c.input_only);
  field_option(app, "--inject-slowdown", c.inject_slowdown);
  field_flag(app, "--no-check", o.no_check);
  field_option(app, "--json", c.json_path);
  field_option(app, "--trace", c.trace_path);
  const CliOnlyOption& html = cli_only_option("html");
  app.add_option("--html", o.html_path, html.help)->group(html.group);
  CLI::Option* no_progress = field_flag(app, "--no-progress", o.no_progress);
  const CliOnlyOption& progress = cli_only_option("progress");
  app.add_flag("--progress", o.progress, progress.help)->group(progress.group)->excludes(no_progress);
}

namespace {

// The model's inputs: a language model's are its tokens, its classes its vocabulary (no device work).
ModelDesc resolve_model(RunConfig& c, const TrainOptions& o) {
  c.model = canonical_model_name(c.model);
  const ModelDesc desc = build_model(c.model);
  check_data_kind(c.data, desc.tokens);  // before the pre-run check, which takes seconds
  if (desc.tokens) {
    if (c.image_size)
      throw UsageError(fmt::format("--image-size applies to image models; {} takes --seq-len", c.model));
    if (o.num_classes)
      throw UsageError(fmt::format("--num-classes applies to image models; {}'s vocabulary is fixed", c.model));
    c.num_classes = desc.num_classes;
  } else {
    if (c.seq_len)
      throw UsageError(fmt::format("--seq-len applies to language models; {} takes --image-size", c.model));
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
    throw UsageError(fmt::format(
        "--cpu-conv-algo winograd: oneDNN's Winograd convolution is fp32 only, not --precision {}",
        precision_name(c.precision)));
  return gpu;
}

// Batch, step counts and the other numbers, each within its range.
void resolve_numbers(RunConfig& c, const TrainOptions& o, const ModelDesc& desc, bool gpu) {
  c.batch_size = o.batch_size.value_or(gpu ? 64 : 16);
  if (c.batch_size < 1 || c.batch_size > 65536) {
    throw UsageError(fmt::format("--batch-size {} must be between 1 and 65536", c.batch_size));
  }
  c.steps = o.steps != 0 ? o.steps : (gpu ? 20 : 10);
  c.warmup = o.warmup >= 0 ? o.warmup : (gpu ? 5 : 2);
  if (c.steps < 1 || c.steps > 1000000)
    throw UsageError(fmt::format("--steps {} must be between 1 and 1000000", c.steps));
  if (o.warmup < -1 || c.warmup > 1000000)
    throw UsageError(fmt::format("--warmup {} must be between 0 and 1000000", o.warmup));
  if (c.repeat < 1 || c.repeat > 1000)
    throw UsageError(fmt::format("--repeat {} must be between 1 and 1000", c.repeat));
  if (c.runs < 1 || c.runs > 100) throw UsageError(fmt::format("--runs {} must be between 1 and 100", c.runs));
  check_accum_steps(c.accum_steps);
  if (c.staging_depth < 1 || c.staging_depth > 64)
    throw UsageError(fmt::format("--staging-depth {} must be between 1 and 64", c.staging_depth));
  if (c.data_threads < 1 || c.data_threads > 256)
    throw UsageError(fmt::format("--data-threads {} must be between 1 and 256", c.data_threads));
  check_bucket_mb(c.bucket_mb);
  if (!(c.comm_timeout_s > 0)) throw UsageError("--comm-timeout must be positive (seconds)");
  if (c.num_classes < 1 || c.num_classes > 1000000)
    throw UsageError(fmt::format("--num-classes {} must be between 1 and 1000000", c.num_classes));
  if (c.image_size < 0 || c.image_size > 4096)
    throw UsageError(fmt::format("--image-size {} must be between 1 and 4096", c.image_size));
  if (c.seq_len < 0 || c.seq_len > desc.default_image_size)
    throw UsageError(fmt::format("--seq-len {} must be between 1 and {}'s context length, {}", c.seq_len, c.model,
                                 desc.default_image_size));
  for (const auto& [given, name] : {std::pair{o.threads, "--threads"}, std::pair{o.threads_per_replica, "--threads-per-replica"}}) {
    if (given && *given < 1)
      throw UsageError(fmt::format("{} {} must be at least 1 (leave it out for the default)", name, *given));
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
    if (!(beta >= 0 && beta < 1)) throw UsageError(fmt::format("{} must be in [0, 1)", name));
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
