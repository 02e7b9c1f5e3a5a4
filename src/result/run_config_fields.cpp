#include "result/run_config_fields.h"

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

#define MG_VALUE(m) #m, &write_value<&RunConfig::m>, &read_value<&RunConfig::m>
#define MG_ENUM(m, names) #m, &write_enum<&RunConfig::m, names>, &read_enum<&RunConfig::m, names>
#define MG_OPTIONAL(m, names) #m, &write_optional<&RunConfig::m, names>, &read_optional<&RunConfig::m, names>
#define MG_ENUM_LIST(m, names) #m, &write_enum_list<&RunConfig::m, names>, &read_enum_list<&RunConfig::m, names>

// Roles, in ConfigField order: optional, fingerprint, compare_key, preset.
constexpr bool O = true, F = true, K = true, P = true, _ = false;

}  // namespace

const std::vector<ConfigField>& run_config_fields() {
  static const std::vector<ConfigField> fields = {
      // key/option, write, read                                        opt fp key preset
      {MG_VALUE(model), "model",                                         _, F, K, _},
      {MG_VALUE(image_size), "image-size",                               _, F, _, P},
      {MG_VALUE(seq_len), "seq-len",                                     O, F, _, P},
      {MG_VALUE(num_classes), "num-classes",                             _, F, _, P},
      {MG_ENUM(precision, kPrecisionNames), "precision",                 _, F, K, _},
      {MG_ENUM(device, kDeviceKindNames), "device",                      _, F, K, _},
      {MG_VALUE(device_counts), "devices",                               _, _, _, _},
      {MG_VALUE(gpu_ids), "gpu-ids",                                     _, _, _, _},
      {MG_VALUE(no_baseline), "no-baseline",                             _, _, _, _},
      {MG_VALUE(threads), "threads",                                     _, _, _, P},
      {MG_VALUE(threads_per_replica), "threads-per-replica",             _, _, _, P},
      {MG_ENUM(cpu_conv_algo, kCpuConvAlgoNames), "cpu-conv-algo",       O, F, _, _},
      {MG_VALUE(batch_size), "batch-size",                               _, F, _, P},
      {MG_ENUM(scaling, kScalingNames), "scaling",                       _, _, _, P},
      {MG_VALUE(steps), "steps",                                         _, F, _, P},
      {MG_VALUE(warmup), "warmup",                                       _, F, _, P},
      {MG_VALUE(repeat), "repeat",                                       _, F, _, P},
      {MG_VALUE(runs), "runs",                                           O, _, _, _},
      {MG_VALUE(forward_only), "forward-only",                           _, F, K, _},
      {MG_VALUE(input_only), "input-only",                               _, F, K, _},
      {MG_VALUE(inject_slowdown), "inject-slowdown",                     O, _, _, _},
      {MG_ENUM(optimizer, kOptimizerNames), "optimizer",                 O, F, K, _},
      {MG_VALUE(lr), "lr",                                               _, _, _, _},
      {MG_VALUE(momentum), "momentum",                                   _, _, _, _},
      {MG_VALUE(weight_decay), "weight-decay",                           _, _, _, _},
      {MG_VALUE(adam_beta1), "adam-beta1",                               O, _, _, _},
      {MG_VALUE(adam_beta2), "adam-beta2",                               O, _, _, _},
      {MG_VALUE(adam_eps), "adam-eps",                                   O, _, _, _},
      {MG_VALUE(loss_scale), "loss-scale",                               _, _, _, _},
      {MG_VALUE(data), "data",                                           _, F, K, _},
      {MG_ENUM(synthetic_source, kSyntheticSourceNames), "synthetic-source", _, F, K, _},
      {MG_VALUE(data_threads), "data-threads",                           _, _, _, _},
      {MG_VALUE(staging_depth), "staging-depth",                         _, _, _, _},
      {MG_VALUE(seed), "seed",                                           _, F, _, _},
      {MG_VALUE(skip_bad_images), "skip-bad-images",                     _, _, _, _},
      {MG_VALUE(bucket_mb), "bucket-mb",                                 _, F, _, _},
      {MG_VALUE(overlap), "no-overlap",                                  _, F, _, _},
      {MG_OPTIONAL(allreduce_dtype, kAllreduceDTypeNames), "allreduce-dtype", _, F, _, _},
      {MG_VALUE(accum_steps), "accum-steps",                             _, F, _, P},
      {MG_ENUM(allreduce, kAllreduceModeNames), "allreduce",             _, F, _, _},
      {MG_OPTIONAL(nccl_algo, kNcclAlgoNames), "nccl-algo",              _, _, _, _},
      {MG_VALUE(comm_timeout_s), "comm-timeout",                         _, _, _, _},
      {MG_ENUM_LIST(transports, kTransportNames), "transport",           _, _, _, _},
      {MG_VALUE(gloo_iface), "gloo-iface",                               _, _, _, _},
      {MG_VALUE(json_path), "json",                                      _, _, _, _},
      {MG_VALUE(trace_path), "trace",                                    _, _, _, _},
      {MG_VALUE(config_file), "config",                                  _, _, _, _},
      {MG_VALUE(command_line), "",                                       _, _, _, _},
      {MG_VALUE(progress), "no-progress",                                _, _, _, _},
      {MG_VALUE(check), "no-check",                                      O, _, _, _},
  };
  return fields;
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

}  // namespace mg
