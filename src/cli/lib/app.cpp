#include "cli/lib/app.h"

#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "backend/backend.h"
#include "cli/lib/command.h"
#include "cli/lib/json_config.h"
#include "cli/lib/train_options.h"
#include "cli/lib/train_run.h"
#include "comm/rendezvous/mpi_bootstrap.h"
#include "comm/comm_libraries.h"
#include "core/build_info.h"
#include "core/error.h"
#include "core/stop.h"

namespace mg {

namespace {

std::string version_text() {
  std::string s = std::string("mgbench ") + mgbench_version() + " (commit " + mgbench_git_commit() + ")\n";
  const std::string unopened = open_deferred_libraries();
  for (const auto& kv : backend_library_versions()) s += "  " + kv.first + " " + kv.second + "\n";
  for (const auto& kv : comm_library_versions()) s += "  " + kv.first + " " + kv.second + "\n";
  if (!unopened.empty()) s += "  " + unopened + "\n";
  if (!cuda_built()) s += "  cuda: not built (CPU backend only)\n";
  return s;
}

std::string join_argv(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.find_first_of(" \t\"'") != std::string::npos) a = "'" + a + "'";
    s += (i ? " " : "") + a;
  }
  return s;
}

// A stop request makes the communicators and children fail with their own errors; what the user asked for
// was the stop, so that is what is reported (exit 128 + signal: 130 SIGINT, 143 SIGTERM).
int interrupted_status() {
  std::fprintf(stderr, "mgbench: %s\n", Interrupted(stop_signal()).what());
  return 128 + stop_signal();
}

}  // namespace

int run_cli(int argc, char** argv) {
  install_stop_handlers();
  LaunchGuard launch_guard;  // MPI_Finalize (when MPI was used) after every communicator is gone
  CLI::App app{"mgbench: data-parallel training throughput and scaling across devices (CUDA or CPU)", "mgbench"};
  app.config_formatter(std::make_shared<JsonConfig>());  // reads --config, which add_train_options registers
  app.allow_config_extras(false);
  TrainOptions train;
  add_train_options(app, train);  // before --version: --help lists --config above it
  app.set_version_flag("--version", std::function<std::string()>(version_text));  // built only when asked
  app.require_subcommand(0, 1);

  struct Sub {
    CLI::App* app;
    std::unique_ptr<Command> cmd;
  };
  std::vector<Sub> subs;
  auto add = [&](const char* name, const char* help, std::unique_ptr<Command> cmd) {
    CLI::App* sub = app.add_subcommand(name, help);
    cmd->setup(*sub);
    subs.push_back({sub, std::move(cmd)});
  };
  add("models", "list the networks with parameters and GFLOPs", make_models_command());
  add("topo", "show devices, links and network interfaces", make_topo_command());
  add("comm", "collective benchmark (all-reduce, ...) on the trainer's communicators", make_comm_command());
  add("compare", "compare two results and decide regressions", make_compare_command());
  add("predict", "predict scaling on interconnects you do not have, from a 1-device profile", make_predict_command());
  add("check", "verify layers, collectives, staging and training on this device against a reference",
      make_check_command());
  add("prepare-data", "pack an image folder into a .mgrec record file, or text into a token file",
      make_prepare_data_command());
  add("report", "one self-contained HTML page of plots from result, comm and compare files", make_report_command());

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {  // --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "mgbench: error: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {  // thrown by the JSON preset reader
    std::fprintf(stderr, "mgbench: error: %s\n", e.what());
    return 2;
  }

  try {
    for (auto& s : subs) {
      if (s.app->parsed()) return s.cmd->run();
    }
    const RunConfig cfg = finalize_train_options(train, join_argv(argc, argv));
    return run_training(cfg, train.html_path, train.progress);
  } catch (const Interrupted&) {
    return interrupted_status();
  } catch (const UsageError& e) {
    if (stop_requested()) return interrupted_status();
    std::fprintf(stderr, "mgbench: error: %s\n", e.what());
    return 2;
  } catch (const Error& e) {
    if (stop_requested()) return interrupted_status();
    std::fprintf(stderr, "mgbench: failed: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "mgbench: failed: out of host memory\n");
    return 1;
  } catch (const std::exception& e) {
    if (stop_requested()) return interrupted_status();
    std::fprintf(stderr, "mgbench: failed: %s\n", e.what());
    return 1;
  }
}

}  // namespace mg
