// The training benchmark's command-line options (the top-level `mgbench` command) and their validation into
// a RunConfig. Every rejection is a UsageError that names the option and what it accepts.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "result/run_config.h"

namespace mg {

struct TrainOptions {
  RunConfig cfg;  // the field table's options set their members directly (result/run_config_fields.h)
  // The options the command line binds itself, as given: resolved against the machine in finalize_train_options.
  std::string device = "auto";
  std::string precision = "fp32";
  std::vector<std::string> gpus;  // "1,2,4" or repeated
  std::vector<std::string> transports;
  bool progress = false;  // --progress: the progress line on stderr even when not on a terminal
  std::string html_path;  // --html: not part of the run description (the JSON records the command line)
  std::map<std::string, CLI::Option*> options;  // every registered option by long name (without --)
  std::string value_error;  // a word or list that did not parse (first registered): finalize reports it, after --help
  // Whether the command line or a --config preset gave the option (unset: a device, model or optimizer default).
  bool given(const std::string& option) const;
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
