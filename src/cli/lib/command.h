// A subcommand of mgbench (models, topo, comm, compare, prepare-data, report, predict). app.cpp creates the CLI11
// subcommand, lets the Command declare its options on it, and calls run() when the user chose it.
// run() returns the exit status; bad input is thrown as UsageError (exit 2, one line), failures as Error.
#pragma once
#include <memory>

#include <CLI/CLI.hpp>

namespace mg {

class Command {
 public:
  virtual ~Command() = default;
  virtual void setup(CLI::App& sub) = 0;
  virtual int run() = 0;
};

std::unique_ptr<Command> make_models_command();        // cmd_models.cpp
std::unique_ptr<Command> make_topo_command();          // cmd_topo.cpp
std::unique_ptr<Command> make_comm_command();          // cmd_comm.cpp
std::unique_ptr<Command> make_compare_command();       // cmd_compare.cpp
std::unique_ptr<Command> make_prepare_data_command();  // cmd_prepare_data.cpp
std::unique_ptr<Command> make_report_command();        // cmd_report.cpp
std::unique_ptr<Command> make_predict_command();       // cmd_predict.cpp
std::unique_ptr<Command> make_check_command();         // cmd_check.cpp

}  // namespace mg
