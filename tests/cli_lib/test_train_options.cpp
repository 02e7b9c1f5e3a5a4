#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/lib/json_config.h"
#include "cli/lib/train_options.h"
#include "result/run_config_fields.h"
#include "support/config_values.h"
#include "support/temp_dir.h"

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

// The field's other value (tests/support/config_values.h) as the command line spells it: a list comma-joined.
std::string option_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  std::string out;
  for (const nlohmann::json& e : v) out += (out.empty() ? "" : ",") + option_text(e);
  return out;
}

void parse(TrainApp& t, std::vector<std::string> args) {
  args.insert(args.begin(), "mgbench");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  t.app.parse(static_cast<int>(argv.size()), argv.data());
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

// A row's bind function is all a field needs to be on the command line: its option sets that field and no other.
TEST_CASE("each field the table binds is set from its option's text, and only that field") {
  const nlohmann::json defaults = to_json(RunConfig{});
  int bound = 0;
  for (const ConfigField& f : run_config_fields()) {
    if (!f.bind) continue;
    INFO("--" << f.option);
    const nlohmann::json& other = test::other_config_values().at(f.key);
    TrainApp t;
    if (other.is_boolean()) {
      REQUIRE(other != defaults.at(f.key));  // a flag's other value is the one giving it sets
      parse(t, {"--" + std::string(f.option)});
    } else {
      parse(t, {"--" + std::string(f.option), option_text(other)});
    }
    CHECK(t.options.given(f.option));
    nlohmann::json expected = defaults;
    expected[f.key] = other;
    CHECK(to_json(t.options.cfg) == expected);
    ++bound;
  }
  CHECK(bound >= 40);
}

TEST_CASE("an option a --config preset gives counts as given, so AdamW keeps the preset's learning rate") {
  test::TempDir dir;
  dir.write("adamw.json", R"({"optimizer": "adamw", "lr": 0.25, "no-overlap": false})");
  const std::string preset = dir / "adamw.json";
  TrainApp t;
  t.app.config_formatter(std::make_shared<JsonConfig>());
  parse(t, {"--config", preset, "--device", "cpu", "--model", "tiny"});
  CHECK(t.options.given("lr"));
  CHECK_FALSE(t.options.given("weight-decay"));
  const RunConfig c = finalize_train_options(t.options, "mgbench");
  CHECK(c.optimizer == Optimizer::AdamW);
  CHECK(c.lr == 0.25f);
  CHECK(c.weight_decay == 0.01f);  // AdamW's default where neither preset nor command line gave one
  CHECK(c.overlap);  // a flag a preset sets false stays off
  CHECK(c.config_file == preset);  // recorded, so the result names the preset it ran
}

TEST_CASE("options left out take the device's defaults, options given keep their values") {
  TrainApp unset;
  parse(unset, {"--device", "cpu", "--model", "tiny"});
  const RunConfig d = finalize_train_options(unset.options, "mgbench");
  CHECK(d.batch_size == 16);
  CHECK(d.steps == 10);
  CHECK(d.warmup == 2);
  CHECK(d.threads == 0);
  CHECK(d.num_classes == RunConfig{}.num_classes);
  TrainApp given;
  parse(given, {"--device", "cpu", "--model", "tiny", "--batch-size", "5", "--steps", "3", "--warmup", "0"});
  const RunConfig g = finalize_train_options(given.options, "mgbench");
  CHECK(g.batch_size == 5);
  CHECK(g.steps == 3);
  CHECK(g.warmup == 0);
}

TEST_CASE("a word that does not parse is reported when the run is resolved, so --help still shows help") {
  TrainApp t;
  parse(t, {"--optimizer", "adam", "--gpu-ids", "0,x"});
  CHECK_THROWS_WITH(finalize_train_options(t.options, "mgbench"), "--optimizer adam is not one of: sgd, adamw");
  TrainApp help;
  CHECK_THROWS_AS(parse(help, {"--optimizer", "adam", "--help"}), CLI::CallForHelp);
}

TEST_CASE("an empty word unsets an optional field, as the result file spells unset") {
  test::TempDir dir;
  dir.write("tree.json", R"({"nccl-algo": "tree", "allreduce-dtype": ""})");
  TrainApp preset;
  preset.app.config_formatter(std::make_shared<JsonConfig>());
  parse(preset, {"--config", dir / "tree.json"});
  CHECK(preset.options.cfg.nccl_algo == NcclAlgo::Tree);
  CHECK_FALSE(preset.options.cfg.allreduce_dtype.has_value());
  CHECK(preset.options.value_error.empty());
  TrainApp cleared;  // the command line's empty word overrides the preset's choice
  cleared.app.config_formatter(std::make_shared<JsonConfig>());
  parse(cleared, {"--config", dir / "tree.json", "--nccl-algo", ""});
  CHECK_FALSE(cleared.options.cfg.nccl_algo.has_value());
  CHECK(cleared.options.value_error.empty());
}

// Where the default depends on the device, model or optimizer, RunConfig's value is not it: --help must not show it.
TEST_CASE("options whose default depends on the run say so in their help and show no default value") {
  TrainApp t;
  for (const char* name : {"batch-size", "steps", "warmup", "lr", "weight-decay", "threads", "threads-per-replica",
                           "num-classes", "image-size", "seq-len"}) {
    INFO("--" << name);
    const std::vector<const CLI::Option*> found = options_named(t.app, name);
    REQUIRE(found.size() == 1);
    CHECK(found[0]->get_default_str().empty());
    CHECK_THAT(found[0]->get_description(), Catch::Contains("default"));
  }
  for (const char* name : {"model", "precision", "device", "scaling", "optimizer", "repeat", "bucket-mb"}) {
    INFO("--" << name);
    CHECK_FALSE(options_named(t.app, name).at(0)->get_default_str().empty());
  }
}
