#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "core/error.h"
#include "result/result_json.h"
#include "result/run_config_fields.h"
#include "support/config_values.h"

using namespace mg;
using nlohmann::json;

namespace {

const std::map<std::string, json>& kOther = test::other_config_values();

std::string message_of(const json& j) {
  try {
    config_from_json(j, "config");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every field of the run description round-trips through JSON on its own") {
  const json defaults = to_json(RunConfig{});
  REQUIRE(defaults.size() == run_config_fields().size());  // one key per field, none written twice
  CHECK(to_json(config_from_json(defaults, "config")) == defaults);
  for (const ConfigField& f : run_config_fields()) {
    INFO(f.key);
    REQUIRE(kOther.count(f.key) == 1);
    const json other = kOther.at(f.key);
    REQUIRE(other != defaults.at(f.key));
    json j = defaults;
    j[f.key] = other;
    const RunConfig c = config_from_json(j, "config");
    CHECK(to_json(c) == j);  // this field read into its own member and written back; no other field moved
    CHECK(f.write(c) == other);
  }
}

TEST_CASE("unset optionals are written as the empty string and read back unset") {
  RunConfig c;
  CHECK(to_json(c).at("allreduce_dtype") == "");
  CHECK(to_json(c).at("nccl_algo") == "");
  c.allreduce_dtype = DType::F32;  // an explicit fp32 stays distinct from unset
  c.nccl_algo = NcclAlgo::Auto;
  const RunConfig back = config_from_json(to_json(c), "config");
  REQUIRE(back.allreduce_dtype.has_value());
  CHECK(*back.allreduce_dtype == DType::F32);
  CHECK(back.nccl_algo == NcclAlgo::Auto);
  CHECK_FALSE(config_from_json(to_json(RunConfig{}), "config").allreduce_dtype.has_value());
}

TEST_CASE("an unknown enum name is rejected with the list of valid names") {
  const json defaults = to_json(RunConfig{});
  const std::map<std::string, std::string> valid = {
      {"precision", "fp32, tf32, fp16, bf16"}, {"device", "cpu, cuda"},        {"scaling", "weak, strong"},
      {"synthetic_source", "device, host"},    {"allreduce", "ring, none, ps"}};
  for (const auto& [key, names] : valid) {
    json j = defaults;
    j[key] = "nope";
    CHECK(message_of(j) == "config." + key + ": nope is not one of: " + names);
  }
  json j = defaults;
  j["allreduce_dtype"] = "fp8";
  CHECK(message_of(j) == "config.allreduce_dtype: 'fp8' is not one of: fp32, fp16, bf16 (or \"\" for unset)");
  j = defaults;
  j["nccl_algo"] = "nvls";
  CHECK(message_of(j) == "config.nccl_algo: 'nvls' is not one of: ring, tree, auto (or \"\" for unset)");
  j = defaults;
  j["scaling"] = 1;
  CHECK(message_of(j) == "config.scaling: has the wrong type (number)");
  // The command line parses through the same tables.
  CHECK_THROWS_WITH(kScalingNames.parse("linear", "--scaling"), "--scaling linear is not one of: weak, strong");
  CHECK(kAllreduceModeNames.parse("ps", "--allreduce") == AllreduceMode::Ps);
}

TEST_CASE("required fields must be present, fields added later default when absent") {
  const json defaults = to_json(RunConfig{});
  for (const ConfigField& f : run_config_fields()) {
    INFO(f.key);
    json j = defaults;
    j[f.key] = kOther.at(f.key);
    j.erase(f.key);
    if (f.optional) {
      CHECK(to_json(config_from_json(j, "config")) == defaults);
    } else {
      CHECK(message_of(j) == std::string("config: missing field '") + f.key + "'");
    }
  }
  CHECK(message_of(json::array()) == "config: expected an object");
}

TEST_CASE("the fingerprint differs exactly when a fingerprinted field differs") {
  const json defaults = to_json(RunConfig{});
  const std::string base = config_fingerprint(RunConfig{});
  int fingerprinted = 0;
  for (const ConfigField& f : run_config_fields()) {
    INFO(f.key);
    json j = defaults;
    j[f.key] = kOther.at(f.key);
    const std::string fp = config_fingerprint(config_from_json(j, "config"));
    CHECK((fp != base) == f.fingerprint);
    fingerprinted += f.fingerprint;
  }
  CHECK(fingerprinted >= 15);  // what processes of one job must agree on: the model, the work and the exchange
}

TEST_CASE("committed baselines keep their config byte for byte through the field table") {
  namespace fs = std::filesystem;
  int files = 0;
  // One folder per machine fingerprint (results/baselines/README.md).
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(fs::path(MG_SOURCE_DIR) / "results" / "baselines")) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().string());
    const json file = read_json_file(e.path().string());
    const json& config = file.at("config");
    json written = to_json(read_result_file(e.path().string()).config);
    for (const ConfigField& f : run_config_fields())  // fields added after the file was written
      if (f.optional && !config.contains(f.key)) written.erase(f.key);
    CHECK(written.dump() == config.dump());
    ++files;
  }
  CHECK(files > 0);
}

TEST_CASE("compare's identity: the compare_key fields, where the synthetic source counts for synthetic data only") {
  RunConfig a;
  RunConfig b = a;
  CHECK(compare_identity(a) == compare_identity(b));
  b.model = "resnet18";
  CHECK(compare_identity(a) != compare_identity(b));
  b = a;
  b.steps = a.steps + 5;  // not a compare key: the same benchmark measured longer
  CHECK(compare_identity(a) == compare_identity(b));
  b = a;
  b.synthetic_source = SyntheticSource::Host;
  CHECK(compare_identity(a) != compare_identity(b));
  a.data = b.data = "/data/train.mgrec";
  CHECK(compare_identity(a) == compare_identity(b));
}

TEST_CASE("every field with a command-line option has its --help text and a --help group, and only those do") {
  const std::vector<std::string> groups = {kGroupGeneral, kGroupModelData, kGroupOptimizer, kGroupDevices,
                                           kGroupMeasurement, kGroupOutput};
  int options = 0;
  for (const ConfigField& f : run_config_fields()) {
    INFO(f.key);
    if (*f.option == '\0') {
      CHECK(std::string(f.help).empty());
      CHECK(std::string(f.group).empty());
      continue;
    }
    CHECK_FALSE(std::string(f.help).empty());
    CHECK(std::find(groups.begin(), groups.end(), f.group) != groups.end());
    CHECK(config_field_of_option(f.option) == &f);  // no two fields share an option
    ++options;
  }
  CHECK(options >= 45);
  CHECK(config_field_of_option("") == nullptr);
  CHECK(config_field_of_option("html") == nullptr);
}
