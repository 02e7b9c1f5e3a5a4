#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <string>

#include "core/error.h"
#include "result/compare_result_json.h"
#include "support/compare_fixture.h"
#include "support/temp_dir.h"

using namespace mg;
using nlohmann::json;

namespace {

void check_same(const CompareResult::Key& a, const CompareResult::Key& b) {
  CHECK(a.model == b.model);
  CHECK(a.device == b.device);
  CHECK(a.precision == b.precision);
  CHECK(a.mode == b.mode);
  CHECK(a.data == b.data);
  CHECK(a.transport == b.transport);
  CHECK(a.devices == b.devices);
  CHECK(a.label == b.label);
}

void check_same(const CompareResult::Side& a, const CompareResult::Side& b) {
  CHECK(a.file == b.file);
  CHECK(a.samples == b.samples);
  CHECK(a.runs == b.runs);
  CHECK(a.run_images_per_sec == b.run_images_per_sec);
  CHECK(a.threads_per_replica == b.threads_per_replica);
  CHECK(a.inject_slowdown == b.inject_slowdown);
  CHECK(a.batch_per_device == b.batch_per_device);
  CHECK(a.tokens_per_sample == b.tokens_per_sample);
  CHECK(a.median_images_per_sec == b.median_images_per_sec);
  CHECK(a.images_per_sec_ci95_lo == b.images_per_sec_ci95_lo);
  CHECK(a.images_per_sec_ci95_hi == b.images_per_sec_ci95_hi);
  CHECK(a.step_time_median_s == b.step_time_median_s);
  CHECK(a.step_time_ci95_lo_s == b.step_time_ci95_lo_s);
  CHECK(a.step_time_ci95_hi_s == b.step_time_ci95_hi_s);
  CHECK(a.scaling_efficiency == b.scaling_efficiency);
  CHECK(a.comm_exposed_s == b.comm_exposed_s);
}

void check_same(const CompareResult::Pair& a, const CompareResult::Pair& b) {
  check_same(a.key, b.key);
  check_same(a.base, b.base);
  check_same(a.next, b.next);
  CHECK(a.ratio == b.ratio);
  CHECK(a.ratio_ci95_lo == b.ratio_ci95_lo);
  CHECK(a.ratio_ci95_hi == b.ratio_ci95_hi);
  CHECK(a.ratio_ci_coverage == b.ratio_ci_coverage);
  CHECK(a.method == b.method);
  CHECK(a.significance_judged == b.significance_judged);
  CHECK(a.significance_note == b.significance_note);
  CHECK(a.p_value == b.p_value);
  CHECK(a.exact == b.exact);
  CHECK(a.verdict == b.verdict);
  CHECK(a.noise.known == b.noise.known);
  CHECK(a.noise.run_spread == b.noise.run_spread);
  CHECK(a.noise.a_vs_a_band == b.noise.a_vs_a_band);
  CHECK(a.noise.min_detectable_slowdown == b.noise.min_detectable_slowdown);
  CHECK(a.noise.test_can_reject == b.noise.test_can_reject);
  CHECK(a.per_step_diagnostic.note == b.per_step_diagnostic.note);
  CHECK(a.per_step_diagnostic.p_value == b.per_step_diagnostic.p_value);
  CHECK(a.per_step_diagnostic.verdict == b.per_step_diagnostic.verdict);
  CHECK(a.efficiency_drop == b.efficiency_drop);
  CHECK(a.comm_exposed_growth == b.comm_exposed_growth);
  CHECK(a.notes == b.notes);
}

void check_same(const CompareResult& a, const CompareResult& b) {
  CHECK(a.options.alpha == b.options.alpha);
  CHECK(a.options.threshold == b.options.threshold);
  CHECK(a.options.efficiency_threshold == b.options.efficiency_threshold);
  CHECK(a.options.min_samples == b.options.min_samples);
  CHECK(a.options.strict == b.options.strict);
  CHECK(a.options.across_time == b.options.across_time);
  CHECK(a.options.paired == b.options.paired);
  CHECK(a.base_files == b.base_files);
  CHECK(a.new_files == b.new_files);
  REQUIRE(a.pairs.size() == b.pairs.size());
  for (size_t i = 0; i < a.pairs.size(); ++i) check_same(a.pairs[i], b.pairs[i]);
  REQUIRE(a.only_base.size() == b.only_base.size());
  for (size_t i = 0; i < a.only_base.size(); ++i) {
    check_same(a.only_base[i].key, b.only_base[i].key);
    CHECK(a.only_base[i].file == b.only_base[i].file);
  }
  REQUIRE(a.only_new.size() == b.only_new.size());
  for (size_t i = 0; i < a.only_new.size(); ++i) {
    check_same(a.only_new[i].key, b.only_new[i].key);
    CHECK(a.only_new[i].file == b.only_new[i].file);
  }
  CHECK(a.warnings == b.warnings);
  CHECK(a.noise_warnings == b.noise_warnings);
  CHECK(a.strict_failure == b.strict_failure);
  CHECK(a.regression == b.regression);
  CHECK(a.exit_status == b.exit_status);
}

CompareResult compare_round_trip(const CompareResult& r) { return compare_result_from_json(to_json(r), "x.json"); }

}  // namespace

TEST_CASE("compare result json: every field survives a round trip, through a file too") {
  const CompareResult c = test::make_compare_result();
  check_same(compare_round_trip(c), c);
  const test::TempDir dir("mg_compare_result");
  const std::string path = dir / "cmp.json";
  std::ofstream(path) << to_json(c).dump(2);
  check_same(read_compare_result_file(path), c);
}

TEST_CASE("compare result json: a language model's sequence length is written for it only") {
  CompareResult c = test::make_compare_result();
  CHECK_FALSE(to_json(c)["pairs"][0]["base"].contains("tokens_per_sample"));
  c.pairs[0].base.tokens_per_sample = c.pairs[0].next.tokens_per_sample = 256;
  const json j = to_json(c);
  CHECK(j["pairs"][0]["new"]["tokens_per_sample"] == 256);
  check_same(compare_round_trip(c), c);
}

TEST_CASE("compare result json: absent p-values and detection floor are written as null and read back as absent") {
  CompareResult c = test::make_compare_result();
  c.pairs[0].p_value.reset();
  c.pairs[0].noise.min_detectable_slowdown.reset();
  c.pairs[0].per_step_diagnostic.p_value.reset();
  const json j = to_json(c);
  CHECK(j["pairs"][0]["p_value"].is_null());
  CHECK(j["pairs"][0]["noise"]["min_detectable_slowdown"].is_null());
  CHECK(j["pairs"][0]["per_step_diagnostic"]["p_value"].is_null());
  check_same(compare_round_trip(c), c);
}

TEST_CASE("compare result json: the file's layout, as mgbench compare has written it") {
  const json j = to_json(test::make_compare_result());
  CHECK(j.at("compare_schema_version") == 2);
  const json& p = j.at("pairs").at(0);
  CHECK(p.at("ratio_ci95") == json::array({0.75, 0.85}));
  CHECK(p.at("base").at("images_per_sec_ci95") == json::array({95.5, 105.5}));
  CHECK(p.at("new").at("step_time_ci95_s") == json::array({0.12, 0.13}));
  CHECK(p.at("key").at("label") == "resnet50 fp32 cpu train synthetic-device local x2");
  CHECK(p.at("base").at("samples").is_number_integer());
  CHECK(j.at("options").at("threshold").is_number_float());
  CHECK(j.at("only_new").at(0).at("file") == "new/a.json");
}

TEST_CASE("compare result json: a missing or mistyped field is an error naming the file and the field") {
  const json good = to_json(test::make_compare_result());
  auto refused = [&](const std::function<void(json&)>& edit, const std::string& field) {
    json j = good;
    edit(j);
    CHECK_THROWS_WITH(compare_result_from_json(j, "cmp.json"), Catch::Contains("cmp.json") && Catch::Contains(field));
  };
  refused([](json& j) { j["pairs"][0]["base"].erase("median_images_per_sec"); },
          "pairs[0].base: missing field 'median_images_per_sec'");
  refused([](json& j) { j["pairs"][0]["efficiency_drop"] = 1; },
          "pairs[0].efficiency_drop: has the wrong type (number)");
  refused([](json& j) { j["pairs"][0]["ratio_ci95"] = {0.8}; }, "pairs[0].ratio_ci95: expected [lo, hi]");
  refused([](json& j) { j["pairs"][0]["noise"]["run_spread"] = "wide"; },
          "pairs[0].noise.run_spread: has the wrong type");
  refused([](json& j) { j["pairs"][0]["key"] = 7; }, "pairs[0].key: expected an object");
  refused([](json& j) { j["only_new"][0]["key"].erase("label"); }, "only_new[0].key: missing field 'label'");
  refused([](json& j) { j["options"].erase("paired"); }, "options: missing field 'paired'");
  refused([](json& j) { j.erase("exit_status"); }, "(top level): missing field 'exit_status'");
  CHECK_THROWS_AS(compare_result_from_json(json::array(), "cmp.json"), UsageError);
}

TEST_CASE("compare result json: integer fields refuse fractions and out-of-range numbers") {
  const json good = to_json(test::make_compare_result());
  json j = good;
  j["pairs"][0]["base"]["samples"] = 40.5;
  CHECK_THROWS_WITH(compare_result_from_json(j, "cmp.json"),
                    Catch::Contains("cmp.json: pairs[0].base.samples: is not an integer in range (40.5)"));
  j = good;
  j["options"]["min_samples"] = 5e12;
  CHECK_THROWS_WITH(compare_result_from_json(j, "cmp.json"), Catch::Contains("options.min_samples"));
  j = good;
  j["only_base"][0]["key"]["devices"] = 1.5;
  CHECK_THROWS_WITH(compare_result_from_json(j, "cmp.json"), Catch::Contains("only_base[0].key.devices"));
}

TEST_CASE("compare result json: another or no compare_schema_version is refused, naming the file") {
  json j = to_json(test::make_compare_result());
  j["compare_schema_version"] = 1;
  CHECK_THROWS_WITH(compare_result_from_json(j, "old.json"),
                    Catch::Contains("old.json: compare_schema_version 1, this mgbench reads 2"));
  j["compare_schema_version"] = 2.0;
  CHECK_THROWS_WITH(compare_result_from_json(j, "old.json"), Catch::Contains("compare_schema_version 2.0"));
  j.erase("compare_schema_version");
  CHECK_THROWS_WITH(compare_result_from_json(j, "old.json"), Catch::Contains("missing field 'compare_schema_version'"));
}
