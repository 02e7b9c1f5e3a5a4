#include "result/run_config_fields.h"

#include <type_traits>

#include "core/error.h"
#include "result/json_value.h"

namespace mg {

using nlohmann::json;

namespace {

// Field kinds. M is the member; the read side converts through json_value (a mismatch becomes a FieldError).
template <auto M>
json write_value(const RunConfig& c) {
  return c.*M;
}
template <auto M>
void read_value(RunConfig& c, const json& v) {
  using T = std::remove_reference_t<decltype(c.*M)>;
  std::optional<T> x = json_value<T>(v);
  if (!x) throw FieldError(json_value_refusal<T>(v));
  c.*M = *x;
}

template <auto M, const auto& Names>
json write_enum(const RunConfig& c) {
  return Names.name(c.*M);
}
template <auto M, const auto& Names>
void read_enum(RunConfig& c, const json& v) {
  const std::string s = v.get<std::string>();
  if (!Names.find(s, c.*M)) throw FieldError(s + " is not one of: " + Names.list());
}

// An optional enum: "" when unset.
template <auto M, const auto& Names>
json write_optional(const RunConfig& c) {
  return c.*M ? Names.name(*(c.*M)) : "";
}
template <auto M, const auto& Names>
void read_optional(RunConfig& c, const json& v) {
  const std::string s = v.get<std::string>();
  if (s.empty()) {
    (c.*M).reset();
    return;
  }
  typename std::remove_reference_t<decltype(c.*M)>::value_type e{};
  if (!Names.find(s, e)) throw FieldError("'" + s + "' is not one of: " + Names.list() + " (or \"\" for unset)");
  c.*M = e;
}

// A list of enums: an array of names.
template <auto M, const auto& Names>
json write_enum_list(const RunConfig& c) {
  json out = json::array();
  for (const auto& e : c.*M) out.push_back(Names.name(e));
  return out;
}
template <auto M, const auto& Names>
void read_enum_list(RunConfig& c, const json& v) {
  (c.*M).clear();
  for (const std::string& s : v.get<std::vector<std::string>>()) {
    typename std::remove_reference_t<decltype(c.*M)>::value_type e{};
    if (!Names.find(s, e)) throw FieldError("'" + s + "' is not one of: " + Names.list());
    (c.*M).push_back(e);
  }
}

// The command line's binding of each kind: a value or flag binds to the member, an enum through its names.
template <auto M>
void bind_value(FieldOptionBinder& b, const ConfigField& f, RunConfig& c) {
  if constexpr (std::is_same_v<std::remove_reference_t<decltype(c.*M)>, bool>) {
    b.flag(f, c.*M, true);
  } else {
    b.value(f, c.*M);
  }
}
// A flag that turns a default-on field off (--no-overlap sets overlap false).
template <auto M>
void bind_negated(FieldOptionBinder& b, const ConfigField& f, RunConfig& c) {
  b.flag(f, c.*M, false);
}
template <auto M, const auto& Names>
void bind_enum(FieldOptionBinder& b, const ConfigField& f, RunConfig& c) {
  auto* member = &(c.*M);
  b.name(f, Names.name(*member), [member](const std::string& text, const std::string& option) {
    *member = Names.parse(text, option);
  });
}
// An optional enum: "" means unset, as the result file spells it.
template <auto M, const auto& Names>
void bind_optional(FieldOptionBinder& b, const ConfigField& f, RunConfig& c) {
  auto* member = &(c.*M);
  b.name(f, "", [member](const std::string& text, const std::string& option) {
    if (text.empty()) {
      member->reset();
    } else {
      *member = Names.parse(text, option);
    }
  });
}

#define MG_VALUE(m) #m, &write_value<&RunConfig::m>, &read_value<&RunConfig::m>, &bind_value<&RunConfig::m>
#define MG_NEGATED(m) #m, &write_value<&RunConfig::m>, &read_value<&RunConfig::m>, &bind_negated<&RunConfig::m>
#define MG_ENUM(m, names) \
  #m, &write_enum<&RunConfig::m, names>, &read_enum<&RunConfig::m, names>, &bind_enum<&RunConfig::m, names>
#define MG_OPTIONAL(m, names) \
  #m, &write_optional<&RunConfig::m, names>, &read_optional<&RunConfig::m, names>, &bind_optional<&RunConfig::m, names>
// Fields whose option the command line binds itself (train_options.cpp), or that no option sets.
#define MG_VALUE_CLI(m) #m, &write_value<&RunConfig::m>, &read_value<&RunConfig::m>, nullptr
#define MG_ENUM_CLI(m, names) #m, &write_enum<&RunConfig::m, names>, &read_enum<&RunConfig::m, names>, nullptr
#define MG_ENUM_LIST_CLI(m, names) \
  #m, &write_enum_list<&RunConfig::m, names>, &read_enum_list<&RunConfig::m, names>, nullptr

// Roles, in ConfigField order: optional, fingerprint, compare_key, preset.
constexpr bool O = true, F = true, K = true, P = true, _ = false;

}  // namespace

const std::vector<ConfigField>& run_config_fields() {
  static const std::vector<ConfigField> fields = {
      // key, write, read, bind; option; roles: opt fp key preset; --help group; --help text
      {MG_VALUE_CLI(config_file), "config", _, _, _, _, kGroupGeneral,
       "preset JSON file (keys are long option names; the command line overrides)"},
      {MG_VALUE(model), "model", _, F, K, _, kGroupModelData, "network to train (see `mgbench models`)"},
      {MG_ENUM_CLI(precision, kPrecisionNames), "precision", _, F, K, _, kGroupModelData, "fp32 | tf32 | fp16 | bf16"},
      {MG_VALUE(batch_size), "batch-size", _, F, _, P, kGroupModelData,
       "images per device per step (global with --scaling strong); default 64 on GPU, 16 on CPU"},
      {MG_ENUM(scaling, kScalingNames), "scaling", _, _, _, P, kGroupModelData,
       "weak (batch per device) | strong (global batch fixed)"},
      {MG_VALUE(image_size), "image-size", _, F, _, P, kGroupModelData,
       "input height and width (default: the model's)"},
      {MG_VALUE(seq_len), "seq-len", O, F, _, P, kGroupModelData,
       "a language model's tokens per sequence (default: its context length)"},
      {MG_VALUE(num_classes), "num-classes", _, F, _, P, kGroupModelData,
       "classifier outputs (default 1000; image models)"},
      {MG_VALUE(data), "data", _, F, K, _, kGroupModelData,
       "synthetic | DIR (ImageNet-style folder) | FILE.mgrec | FILE.bin (tokens)"},
      {MG_ENUM(synthetic_source, kSyntheticSourceNames), "synthetic-source", _, F, K, _, kGroupModelData,
       "device (one batch kept on the device) | host (staged every step)"},
      {MG_VALUE(data_threads), "data-threads", _, _, _, _, kGroupModelData, "JPEG decode threads per replica"},
      {MG_VALUE(staging_depth), "staging-depth", _, _, _, _, kGroupModelData,
       "batches in flight between host and device"},
      {MG_VALUE(seed), "seed", _, F, _, _, kGroupModelData, "seed for weights, data order and synthetic data"},
      {MG_VALUE(skip_bad_images), "skip-bad-images", _, _, _, _, kGroupModelData,
       "skip (and count) corrupt images instead of failing"},
      {MG_ENUM(optimizer, kOptimizerNames), "optimizer", O, F, K, _, kGroupOptimizer,
       "sgd (with momentum) | adamw (decoupled weight decay, as torch.optim.AdamW)"},
      {MG_VALUE(lr), "lr", _, _, _, _, kGroupOptimizer, "learning rate (default: 0.01 for sgd, 0.001 for adamw)"},
      {MG_VALUE(momentum), "momentum", _, _, _, _, kGroupOptimizer, "SGD momentum (default 0.9)"},
      {MG_VALUE(weight_decay), "weight-decay", _, _, _, _, kGroupOptimizer,
       "weight decay (default: 1e-4 for sgd, 0.01 for adamw)"},
      {MG_VALUE(adam_beta1), "adam-beta1", O, _, _, _, kGroupOptimizer, "AdamW's first-moment decay (default 0.9)"},
      {MG_VALUE(adam_beta2), "adam-beta2", O, _, _, _, kGroupOptimizer, "AdamW's second-moment decay (default 0.999)"},
      {MG_VALUE(adam_eps), "adam-eps", O, _, _, _, kGroupOptimizer, "AdamW's epsilon (default 1e-8)"},
      {MG_VALUE(loss_scale), "loss-scale", _, _, _, _, kGroupOptimizer, "initial dynamic loss scale for fp16"},
      {MG_ENUM_CLI(device, kDeviceKindNames), "device", _, F, K, _, kGroupDevices,
       "cpu | cuda | auto (cuda when a GPU is present)"},
      {MG_VALUE_CLI(device_counts), "devices", _, _, _, _, kGroupDevices,
       "device counts to sweep, e.g. 1,2,4,8 (CPU: replicas)"},
      {MG_VALUE(gpu_ids), "gpu-ids", _, _, _, _, kGroupDevices, "device ordinals to use, e.g. 0,2,4,6"},
      {MG_VALUE(no_baseline), "no-baseline", _, _, _, _, kGroupDevices,
       "do not add the 1-device run when the list lacks it"},
      {MG_VALUE(threads), "threads", _, _, _, P, kGroupDevices, "CPU threads for this process (default: all cores)"},
      {MG_VALUE(threads_per_replica), "threads-per-replica", _, _, _, P, kGroupDevices,
       "CPU threads per replica (default: threads / replicas)"},
      {MG_ENUM(cpu_conv_algo, kCpuConvAlgoNames), "cpu-conv-algo", O, F, _, _, kGroupDevices,
       "CPU convolutions: fastest (per shape, once, at set-up: each pass's fastest oneDNN implementation, and direct "
       "against Winograd for fp32 3x3 stride-1 layers) | direct | winograd (pin one, untimed, oneDNN's first "
       "implementation of each pass; Winograd where it applies, direct elsewhere)"},
      {MG_VALUE(bucket_mb), "bucket-mb", _, F, _, _, kGroupDevices, "gradient bucket size in MiB"},
      {MG_NEGATED(overlap), "no-overlap", _, F, _, _, kGroupDevices,
       "start all-reduce only after the whole backward pass"},
      {MG_OPTIONAL(allreduce_dtype, kAllreduceDTypeNames), "allreduce-dtype", _, F, _, _, kGroupDevices,
       "fp32 | fp16 | bf16 (default: fp32 gradients)"},
      {MG_VALUE(accum_steps), "accum-steps", _, F, _, P, kGroupDevices,
       "micro-batches per replica between all-reduces"},
      {MG_ENUM(allreduce, kAllreduceModeNames), "allreduce", _, F, _, _, kGroupDevices,
       "ring | ps (reduce to rank 0, then broadcast: a parameter server) | none (independent replicas, no gradient "
       "exchange)"},
      {MG_OPTIONAL(nccl_algo, kNcclAlgoNames), "nccl-algo", _, _, _, _, kGroupDevices,
       "ring | tree | auto: sets NCCL_ALGO before NCCL starts"},
      {MG_VALUE(comm_timeout_s), "comm-timeout", _, _, _, _, kGroupDevices, "seconds before a lost rank fails the run"},
      {MG_ENUM_LIST_CLI(transports, kTransportNames), "transport", _, _, _, _, kGroupDevices,
       "transports to compare, e.g. auto,p2p,shm,net (NCCL) or local,tcp (CPU)"},
      {MG_VALUE(gloo_iface), "gloo-iface", _, _, _, _, kGroupDevices, "network interface for Gloo's TCP transport"},
      {MG_VALUE(steps), "steps", _, F, _, P, kGroupMeasurement,
       "timed steps per repeat (default 20 on GPU, 10 on CPU)"},
      {MG_VALUE(warmup), "warmup", _, F, _, P, kGroupMeasurement, "untimed warm-up steps (default 5 on GPU, 2 on CPU)"},
      {MG_VALUE(repeat), "repeat", _, F, _, P, kGroupMeasurement,
       "repeat the timed steps R times, keeping all samples"},
      {MG_VALUE(runs), "runs", O, _, _, _, kGroupMeasurement,
       "run the whole benchmark P times, each in a fresh process, and pool them: the step-time CI then includes the "
       "spread between runs"},
      {MG_VALUE(forward_only), "forward-only", _, F, K, _, kGroupMeasurement,
       "benchmark inference (forward pass only)"},
      {MG_VALUE(input_only), "input-only", _, F, K, _, kGroupMeasurement,
       "run the input pipeline only (decode, augment, stage), no training"},
      {MG_VALUE(layer_times), "layer-times", O, _, _, _, kGroupMeasurement,
       "time every layer's forward and backward in the last warm-up step (device events between the layers, "
       "outside the timed window) and print the step's time by layer kind"},
      {MG_VALUE(inject_slowdown), "inject-slowdown", O, _, _, _, kGroupMeasurement,
       "calibration only: make every timed step slower by this fraction of its own time (busy-wait), e.g. 0.10; "
       "recorded in the result (scripts/ci-regression.sh --calibrate)"},
      {MG_NEGATED(check), "no-check", O, _, _, _, kGroupMeasurement,
       "skip the correctness check of the model's layers and a few training steps before timing"},
      {MG_VALUE(json_path), "json", _, _, _, _, kGroupOutput, "write the result as JSON (atomically)"},
      {MG_VALUE(trace_path), "trace", _, _, _, _, kGroupOutput,
       "write a Chrome/Perfetto trace of the largest device count"},
      {MG_NEGATED(progress), "no-progress", _, _, _, _, kGroupOutput, "no progress line even on a terminal"},
      {MG_VALUE_CLI(command_line), "", _, _, _, _, "", ""},
  };
  return fields;
}

const ConfigField* config_field_of_option(const std::string& option) {
  if (option.empty()) return nullptr;
  for (const ConfigField& f : run_config_fields())
    if (option == f.option) return &f;
  return nullptr;
}

json to_json(const RunConfig& c) {
  json out = json::object();
  for (const ConfigField& f : run_config_fields()) out[f.key] = f.write(c);
  return out;
}

RunConfig config_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw UsageError(where + ": expected an object");
  RunConfig c;
  for (const ConfigField& f : run_config_fields()) {
    auto it = j.find(f.key);
    if (it == j.end()) {
      if (f.optional) continue;
      throw UsageError(where + ": missing field '" + f.key + "'");
    }
    try {
      f.read(c, *it);
    } catch (const json::exception&) {
      throw UsageError(where + "." + f.key + ": has the wrong type (" + it->type_name() + ")");
    } catch (const FieldError& e) {
      throw UsageError(where + "." + f.key + ": " + e.what());
    }
  }
  return c;
}

std::string config_fingerprint(const RunConfig& c) {
  std::string out;
  for (const ConfigField& f : run_config_fields())
    if (f.fingerprint) out += std::string(f.key) + "=" + field_text(f, c) + "\n";
  return out;
}

std::string compare_identity(const RunConfig& c) {
  std::string out;
  for (const ConfigField& f : run_config_fields()) {
    if (!f.compare_key) continue;
    // Where synthetic batches come from means nothing when the data is real.
    if (std::string(f.key) == "synthetic_source" && c.data != "synthetic") continue;
    out += std::string(f.key) + "=" + field_text(f, c) + "\n";
  }
  return out;
}

std::string field_text(const ConfigField& f, const RunConfig& c) {
  const json v = f.write(c);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

#undef MG_VALUE
#undef MG_NEGATED
#undef MG_ENUM
#undef MG_OPTIONAL
#undef MG_VALUE_CLI
#undef MG_ENUM_CLI
#undef MG_ENUM_LIST_CLI

}  // namespace mg
