// The training benchmark's command-line options (the top-level `mgbench` command) and their validation into
// a RunConfig. Every rejection is a UsageError that names the option and what it accepts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "result/run_config.h"

namespace mg {

struct TrainOptions {
  RunConfig cfg;
  std::string device = "auto";
  std::string precision = "fp32";
  std::string scaling = "weak";
  std::string allreduce = "ring";
  std::string allreduce_dtype;  // "" = the gradients' dtype
  std::string nccl_algo;        // "" = NCCL_ALGO as the user set it
  std::string synthetic_source = "device";
  std::string cpu_conv_algo = "fastest";
  std::string optimizer = "sgd";
  std::optional<float> lr, momentum, weight_decay;  // unset: the optimizer's defaults
  std::optional<float> adam_beta1, adam_beta2, adam_eps;  // AdamW only
  std::vector<std::string> gpus;  // "1,2,4" or repeated
  std::vector<std::string> gpu_ids;
  std::vector<std::string> transports;
  bool no_overlap = false;
  bool no_progress = false;
  bool progress = false;  // --progress: the progress line on stderr even when not on a terminal
  bool no_check = false;
  std::optional<int64_t> batch_size;  // unset: the device's default
  std::optional<int64_t> num_classes;  // unset: RunConfig's; a language model's are its vocabulary
  std::optional<int> threads, threads_per_replica;  // unset: derived from the cores (RunConfig's 0)
  int steps = 0, warmup = -1;
  std::string html_path;  // --html: not part of the run description (the JSON records the command line)
};

// A training option that is no run-config field (the result does not record it as one), with its --help text.
struct CliOnlyOption {
  const char* option;  // long name, without --
  const char* group;   // --help group
  const char* help;
};

// All of them; field options take their text from result/run_config_fields.cpp (tests/cli_lib checks both lists).
const std::vector<CliOnlyOption>& train_cli_only_options();

// Registers the training options (and --config) on the top-level app.
void add_train_options(CLI::App& app, TrainOptions& o);
// Resolves defaults that depend on the machine (device auto, batch size, sweep) and validates everything.
RunConfig finalize_train_options(TrainOptions& o, const std::string& command_line);

}  // namespace mg
