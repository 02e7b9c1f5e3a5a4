#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/lib/train_options.h"
#include "result/run_config_fields.h"

using namespace mg;

namespace {

// The training app as mgbench builds it: add_train_options on a fresh top-level app.
struct TrainApp {
  CLI::App app{"mgbench"};
  TrainOptions options;
  TrainApp() { add_train_options(app, options); }
};

bool has_long_name(const CLI::Option* opt, const std::string& name) {
  for (const std::string& n : opt->get_lnames())
    if (n == name) return true;
  return false;
}

std::vector<const CLI::Option*> options_named(const CLI::App& app, const std::string& name) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* opt : app.get_options())
    if (has_long_name(opt, name)) out.push_back(opt);
  return out;
}

}  // namespace

TEST_CASE("every run-config field with an option is registered once, with the field table's help text and group") {
  TrainApp t;
  int fields = 0;
  for (const ConfigField& f : run_config_fields()) {
    if (*f.option == '\0') continue;
    INFO("--" << f.option);
    const std::vector<const CLI::Option*> found = options_named(t.app, f.option);
    REQUIRE(found.size() == 1);
    CHECK(found[0]->get_description() == f.help);
    CHECK(found[0]->get_group() == f.group);
    ++fields;
  }
  CHECK(fields >= 45);
}

TEST_CASE("every training option is a run-config field or in the command line's list of its own options") {
  TrainApp t;
  for (const CliOnlyOption& own : train_cli_only_options()) {
    INFO("--" << own.option);
    CHECK(config_field_of_option(own.option) == nullptr);  // in one list only
    const std::vector<const CLI::Option*> found = options_named(t.app, own.option);
    REQUIRE(found.size() == 1);
    CHECK(found[0]->get_description() == own.help);
    CHECK(found[0]->get_group() == own.group);
  }
  int registered = 0;
  for (const CLI::Option* opt : t.app.get_options()) {
    if (opt == t.app.get_help_ptr()) continue;  // CLI11's own --help
    INFO(opt->get_name());
    int fields = 0, own = 0;
    for (const std::string& name : opt->get_lnames()) {
      fields += config_field_of_option(name) != nullptr;
      for (const CliOnlyOption& o : train_cli_only_options()) own += name == o.option;
    }
    CHECK(fields + own == 1);
    ++registered;
  }
  CHECK(registered >= 47);
}

TEST_CASE("the training options keep their names, aliases and --help groups in order") {
  TrainApp t;
  std::vector<std::string> groups;
  for (const CLI::Option* opt : t.app.get_options())
    if (groups.empty() || groups.back() != opt->get_group()) groups.push_back(opt->get_group());
  // Each group in one run, so --help shows each once, in this order.
  CHECK(groups == std::vector<std::string>{kGroupGeneral, kGroupModelData, kGroupOptimizer, kGroupDevices,
                                           kGroupMeasurement, kGroupOutput});
  const std::vector<const CLI::Option*> devices = options_named(t.app, "devices");
  REQUIRE(devices.size() == 1);
  CHECK(devices[0]->get_name() == "--gpus");
  CHECK(t.app.get_config_ptr() == options_named(t.app, "config").at(0));
}
