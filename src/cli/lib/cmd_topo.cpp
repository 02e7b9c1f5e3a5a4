// `mgbench topo [--json FILE]`: the machine's GPUs, links, CPU/NUMA layout and network interfaces, and the library
// files the backends loaded. A machine without GPUs is a valid answer (exit 0), so it is usable on CPU hosts and CI.
#include <iostream>
#include <string>

#include "backend/loaded_libraries.h"
#include "cli/lib/command.h"
#include "comm/comm_libraries.h"
#include "core/error.h"
#include "core/atomic_file.h"
#include "topo/topology.h"

namespace mg {

namespace {

class TopoCommand : public Command {
 public:
  void setup(CLI::App& sub) override {
    json_opt_ = sub.add_option("--json", json_path_,
                               "also write the report as JSON to FILE; \"-\" writes only the JSON, to stdout");
  }

  int run() override {
    if (json_opt_->count() && json_path_.empty())
      throw UsageError("--json needs a file name, or - for stdout");
    nlohmann::json report = discover_topology();
    auto libraries = backend_loaded_libraries();
    libraries.merge(comm_loaded_libraries());
    for (const auto& [name, lib] : libraries) report["libraries"][name] = {{"file", lib.file}, {"version", lib.version}};
    if (json_path_ == "-") {
      std::cout << report.dump(2) << "\n";
      return 0;
    }
    if (!json_path_.empty()) write_file_atomic(json_path_, report.dump(2) + "\n");
    std::cout << format_topology(report);
    return 0;
  }

 private:
  CLI::Option* json_opt_ = nullptr;
  std::string json_path_;
};

}  // namespace

std::unique_ptr<Command> make_topo_command() { return std::make_unique<TopoCommand>(); }

}  // namespace mg
