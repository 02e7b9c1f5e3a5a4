// A value other than the default for every run-description field, as the result JSON spells it: what the field
// table tests (tests/result) and compare's key test (tests/stats) vary one field at a time. A field added to
// result/run_config_fields.cpp without an entry here fails those tests.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace mg::test {

inline const std::map<std::string, nlohmann::json>& other_config_values() {
  static const std::map<std::string, nlohmann::json> values = {
      {"model", "vgg16"},           {"image_size", 128},        {"num_classes", 10},
      {"precision", "bf16"},        {"device", "cuda"},         {"device_counts", {1, 2, 4}},
      {"gpu_ids", {0, 2}},          {"no_baseline", true},      {"threads", 3},
      {"threads_per_replica", 2},   {"cpu_conv_algo", "winograd"},  {"batch_size", 7},          {"scaling", "strong"},
      {"steps", 3},                 {"warmup", 1},              {"repeat", 2},
      {"runs", 4},                  {"forward_only", true},     {"input_only", true},       {"layer_times", true},
      {"inject_slowdown", 0.25},    {"lr", 0.5},                {"momentum", 0.5},
      {"weight_decay", 0.25},       {"loss_scale", 128.0},      {"data", "/data/train.mgrec"},
      {"synthetic_source", "host"}, {"data_threads", 5},        {"staging_depth", 3},
      {"seed", 9},                  {"skip_bad_images", true},  {"bucket_mb", 1.5},
      {"overlap", false},           {"allreduce_dtype", "bf16"}, {"accum_steps", 4},
      {"allreduce", "ps"},          {"nccl_algo", "tree"},      {"comm_timeout_s", 30.0},
      {"transports", {"tcp", "local"}}, {"gloo_iface", "lo"},   {"json_path", "a.json"},
      {"trace_path", "t.json"},     {"config_file", "c.json"},  {"command_line", "mgbench --steps 3"},
      {"progress", false},          {"check", false},           {"optimizer", "adamw"},
      {"adam_beta1", 0.5},          {"adam_beta2", 0.75},       {"adam_eps", 0.125},
      {"seq_len", 48},
  };
  return values;
}

}  // namespace mg::test
