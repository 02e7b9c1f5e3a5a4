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

// CLI11 runs option callbacks before it looks at --help: a value's error waits for finalize_train_options.
template <typename Fn>
void deferred(std::string& error, Fn&& parse) {
  try {
    parse();
  } catch (const UsageError& e) {
    if (error.empty()) error = e.what();
  }
}

// Registers each row's option with the row's help, group and shown default; its callbacks never hold the binder.
class CliFieldBinder final : public FieldOptionBinder {
 public:
  CliFieldBinder(CLI::App& app, TrainOptions& o) : app_(app), o_(o) {}

  void value(const ConfigField& f, std::string& v) override { typed(f, v); }
  void value(const ConfigField& f, int& v) override { typed(f, v); }
  void value(const ConfigField& f, int64_t& v) override { typed(f, v); }
  void value(const ConfigField& f, uint64_t& v) override { typed(f, v); }
  void value(const ConfigField& f, float& v) override { typed(f, v); }
  void value(const ConfigField& f, double& v) override { typed(f, v); }
  void value(const ConfigField& f, std::vector<int>& v) override {
    parsed<std::vector<std::string>>(f, [&v](const std::vector<std::string>& items, const std::string& option) {
      v = parse_ints(items, option.c_str());
    })->delimiter(',');
  }
  void flag(const ConfigField& f, bool& v, bool when_given) override {
    // A preset's `false` arrives as a count of -1 and sets the field the other way, its default.
    const auto set = [&v, when_given](int64_t count) { v = (count > 0) == when_given; };
    add(f, app_.add_flag_function("--" + std::string(f.option), set, f.help));
  }
  void name(const ConfigField& f, const std::string& current,
            std::function<void(const std::string&, const std::string&)> set) override {
    parsed<std::string>(f, std::move(set))->default_str(current);
  }
  // Puts an option in the row's group and records it by each long name (TrainOptions::given).
  CLI::Option* add(const ConfigField& f, CLI::Option* opt) {
    opt->group(f.group);
    for (const std::string& name : opt->get_lnames()) o_.options[name] = opt;
    return opt;
  }

 private:
  // An option whose text `parse(text, "--option")` turns into the field; its UsageError waits (deferred).
  template <typename T, typename Fn>
  CLI::Option* parsed(const ConfigField& f, Fn parse) {
    const std::string option = "--" + std::string(f.option);
    const auto callback = [parse, option, &error = o_.value_error](const T& text) {
      deferred(error, [&] { parse(text, option); });
    };
    return add(f, app_.add_option_function<T>(option, callback, f.help));
  }
  // The default is shown unless the help text says what it is (it depends on the device, model or optimizer).
  template <typename T>
  void typed(const ConfigField& f, T& v) {
    CLI::Option* opt = add(f, app_.add_option("--" + std::string(f.option), v, f.help));
    if (std::string(f.help).find("default") == std::string::npos) opt->capture_default_str();
  }

  CLI::App& app_;
  TrainOptions& o_;
};

// Options whose value needs the machine or has a command-line-only spelling (--device auto, --precision amp).
void bind_cli_field(CliFieldBinder& b, CLI::App& app, const ConfigField& f, TrainOptions& o) {
  const std::string option = f.option;
  if (option == "config") {
    b.add(f, app.set_config("--config", "", f.help));  // read by app.cpp's JsonConfig
  } else if (option == "precision") {
    b.add(f, app.add_option("--precision", o.precision, f.help))->capture_default_str();
  } else if (option == "device") {
    b.add(f, app.add_option("--device", o.device, f.help))->capture_default_str();
  } else if (option == "devices") {
    b.add(f, app.add_option("--gpus,--devices", o.gpus, f.help))->delimiter(',');
  } else if (option == "transport") {
    b.add(f, app.add_option("--transport", o.transports, f.help))->delimiter(',');
  } else if (!option.empty()) {
    throw std::logic_error(fmt::format("--{} has no binding: give its row a bind function", option));
  }
}

const CliOnlyOption& cli_only_option(const std::string& name) {
  for (const CliOnlyOption& o : train_cli_only_options())
    if (name == o.option) return o;
  throw std::logic_error(fmt::format("--{} is not in train_cli_only_options()", name));
}

}  // namespace

bool TrainOptions::given(const std::string& option) const {
  const auto it = options.find(option);
  if (it == options.end()) throw std::logic_error(fmt::format("--{} is not a training option", option));
  return it->second->count() > 0;
}

const std::vector<CliOnlyOption>& train_cli_only_options() {
  static const std::vector<CliOnlyOption> options = {
      {"html", kGroupOutput, "write a self-contained HTML report (plots, tables, environment)"},
      {"progress", kGroupOutput,
       "the progress line on stderr even when not on a terminal, e.g. for a log that follows the run"},
  };
  return options;
}

void add_train_options(CLI::App& app, TrainOptions& o) {
  CliFieldBinder binder(app, o);
  // --help lists the groups by their first option, and each group's options, in the table's order.
  for (const ConfigField& f : run_config_fields()) {
    if (f.bind) {
      f.bind(binder, f, o.cfg);
    } else {
      bind_cli_field(binder, app, f, o);
    }
  }
  const CliOnlyOption& html = cli_only_option("html");
  o.options["html"] = app.add_option("--html", o.html_path, html.help)->group(html.group);
  const CliOnlyOption& progress = cli_only_option("progress");
  CLI::Option* no_progress = o.options.at("no-progress");
  o.options["progress"] =
      app.add_flag("--progress", o.progress, progress.help)->group(progress.group)->excludes(no_progress);
}

namespace {

// The model's inputs: a language model's are its tokens, its classes its vocabulary (no device work).
ModelDesc resolve_model(RunConfig& c, const TrainOptions& o) {
  c.model = canonical_model_name(c.model);
  const ModelDesc desc = build_model(c.model);
  check_data_kind(c.data, desc.tokens);  // before the pre-run check, which takes seconds
  if (desc.tokens) {
    if (c.image_size || o.given("image-size"))
      throw UsageError(fmt::format("--image-size applies to image models; {} takes --seq-len", c.model));
    if (o.given("num-classes"))
      throw UsageError(fmt::format("--num-classes applies to image models; {}'s vocabulary is fixed", c.model));
    c.num_classes = desc.num_classes;
  } else {
    if (c.seq_len || o.given("seq-len"))
      throw UsageError(fmt::format("--seq-len applies to language models; {} takes --image-size", c.model));
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
  if (!o.given("batch-size")) c.batch_size = gpu ? 64 : 16;
  check_batch_size(c.batch_size);
  if (!o.given("steps")) c.steps = gpu ? 20 : 10;
  if (!o.given("warmup")) c.warmup = gpu ? 5 : 2;
  if (c.steps < 1 || c.steps > 1000000)
    throw UsageError(fmt::format("--steps {} must be between 1 and 1000000", c.steps));
  if (c.warmup < 0 || c.warmup > 1000000)
    throw UsageError(fmt::format("--warmup {} must be between 0 and 1000000", c.warmup));
  if (c.repeat < 1 || c.repeat > 1000)
    throw UsageError(fmt::format("--repeat {} must be between 1 and 1000", c.repeat));
  if (c.runs < 1 || c.runs > 100) throw UsageError(fmt::format("--runs {} must be between 1 and 100", c.runs));
  if (c.layer_times && c.warmup < 1)
    throw UsageError("--layer-times times the last warm-up step: give --warmup 1 or more");
  if (c.layer_times && c.input_only)
    throw UsageError("--layer-times times the model's layers; --input-only runs none");
  check_accum_steps(c.accum_steps);
  if (c.staging_depth < 1 || c.staging_depth > 64)
    throw UsageError(fmt::format("--staging-depth {} must be between 1 and 64", c.staging_depth));
  if (c.data_threads < 1 || c.data_threads > 256)
    throw UsageError(fmt::format("--data-threads {} must be between 1 and 256", c.data_threads));
  check_bucket_mb(c.bucket_mb);
  if (!(c.comm_timeout_s > 0)) throw UsageError("--comm-timeout must be positive (seconds)");
  if (c.num_classes < 1 || c.num_classes > 1000000)
    throw UsageError(fmt::format("--num-classes {} must be between 1 and 1000000", c.num_classes));
  // 0 stands for the model's default inside; given on the command line it is a mistake, as --batch-size 0 is.
  if (c.image_size < (o.given("image-size") ? 1 : 0) || c.image_size > 4096)
    throw UsageError(fmt::format("--image-size {} must be between 1 and 4096", c.image_size));
  if (c.seq_len < (o.given("seq-len") ? 1 : 0) || c.seq_len > desc.default_image_size)
    throw UsageError(fmt::format("--seq-len {} must be between 1 and {}'s context length, {}", c.seq_len, c.model,
                                 desc.default_image_size));
  for (const auto& [threads, name] :
       {std::pair{c.threads, "threads"}, std::pair{c.threads_per_replica, "threads-per-replica"}}) {
    if (o.given(name) && threads < 1)
      throw UsageError(fmt::format("--{} {} must be at least 1 (leave it out for the default)", name, threads));
  }
}

// The optimizer's settings (an option of the other optimizer is an error) and the run's mode.
void resolve_optimizer(RunConfig& c, const TrainOptions& o) {
  const bool adamw = c.optimizer == Optimizer::AdamW;
  // torch.optim.AdamW's defaults; RunConfig's are SGD's
  if (adamw && !o.given("lr")) c.lr = 1e-3f;
  if (adamw && !o.given("weight-decay")) c.weight_decay = 0.01f;
  if (adamw && o.given("momentum")) throw UsageError("--momentum applies to --optimizer sgd (AdamW has --adam-beta1)");
  if (!adamw && (o.given("adam-beta1") || o.given("adam-beta2") || o.given("adam-eps")))
    throw UsageError("--adam-beta1, --adam-beta2 and --adam-eps apply to --optimizer adamw");
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
  if (!o.value_error.empty()) throw UsageError(o.value_error);
  RunConfig c = o.cfg;
  c.command_line = command_line;
  if (o.given("config")) c.config_file = o.options.at("config")->as<std::string>();
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
