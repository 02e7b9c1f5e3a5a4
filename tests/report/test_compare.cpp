#include <catch2/catch.hpp>

#include <fstream>

#include "core/error.h"
#include "report/compare.h"
#include "report/compare_output.h"
#include "result/result_json.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

namespace {

// One result file's worth: a sweep whose per-count median step times are given.
LoadedResult side(const std::string& name, const std::vector<int>& counts, const std::vector<double>& medians,
                  double noise, uint64_t seed, int steps = 30) {
  return {name, test::make_result(counts, medians, steps, noise, seed)};
}

CompareReport compare(const LoadedResult& b, const LoadedResult& n, CompareOptions opt = {}) {
  return compare_results({b}, {n}, opt);
}

std::string usage_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("compare: identical samples are no change") {
  const LoadedResult b = side("base.json", {1, 2}, {0.1, 0.11}, 0.03, 1);
  const CompareReport r = compare(b, b);
  REQUIRE(r.pairs.size() == 2);
  for (const PairComparison& p : r.pairs) {
    CHECK(p.verdict == Verdict::NoChange);
    CHECK(p.ratio == Approx(1.0));
    CHECK(p.p_value == Approx(1.0).margin(0.01));
    CHECK_FALSE(p.efficiency_drop);
    CHECK_FALSE(p.comm_exposed_growth);
  }
  CHECK(r.warnings.empty());
  CHECK(r.exit_status() == 0);
}

TEST_CASE("compare: noisy equal distributions rarely reach significance and never a verdict") {
  // 400 independent pairs from the same distribution (3% lognormal noise, 30 steps per side). The U test's
  // false-positive rate should be about alpha: 5% +- 1.1% (binomial sd), so <= 7.5% is a 2.3-sigma bound.
  int significant = 0, verdicts = 0;
  const int trials = 400;
  for (int s = 0; s < trials; ++s) {
    const CompareReport r = compare(side("b", {1}, {0.1}, 0.03, 1000 + 2 * s), side("n", {1}, {0.1}, 0.03, 1001 + 2 * s));
    significant += r.pairs.at(0).p_value < 0.05;
    verdicts += r.pairs.at(0).verdict != Verdict::NoChange;
  }
  INFO(significant << " significant of " << trials);
  CHECK(significant <= 0.075 * trials);
  CHECK(significant >= 0.02 * trials);  // a test that never rejects would pass the line above too
  CHECK(verdicts == 0);                 // the 5% threshold absorbs the noise
}

TEST_CASE("compare: a 10% slowdown is a regression, a 10% speed-up an improvement") {
  const LoadedResult base = side("base.json", {1, 2}, {0.1, 0.11}, 0.03, 7);
  const CompareReport slow = compare(base, side("new.json", {1, 2}, {0.11, 0.121}, 0.03, 8));
  for (const PairComparison& p : slow.pairs) {
    CHECK(p.verdict == Verdict::Regression);
    CHECK(p.ratio == Approx(1 / 1.1).epsilon(0.03));
    CHECK(p.p_value < 1e-4);
  }
  CHECK(slow.exit_status() == 1);

  const CompareReport fast = compare(base, side("new.json", {1, 2}, {0.1 / 1.1, 0.11 / 1.1}, 0.03, 9));
  for (const PairComparison& p : fast.pairs) CHECK(p.verdict == Verdict::Improvement);
  CHECK(fast.count(Verdict::Improvement) == 2);
  CHECK(fast.exit_status() == 0);
}

TEST_CASE("compare: a significant 3% slowdown under the 5% threshold is no change") {
  const CompareReport r =
      compare(side("b", {1}, {0.100}, 0.005, 21), side("n", {1}, {0.103}, 0.005, 22));
  const PairComparison& p = r.pairs.at(0);
  CHECK(p.p_value < 1e-6);  // clearly significant...
  CHECK(p.verdict == Verdict::NoChange);  // ...but too small to matter
  CHECK(r.exit_status() == 0);
  CompareOptions tight;
  tight.threshold = 0.02;
  CHECK(compare(side("b", {1}, {0.100}, 0.005, 21), side("n", {1}, {0.103}, 0.005, 22), tight).exit_status() == 1);
}

TEST_CASE("compare: runs present on one side only are listed, not an error") {
  const CompareReport r =
      compare(side("b.json", {1, 2}, {0.1, 0.11}, 0.03, 3), side("n.json", {1, 4}, {0.1, 0.12}, 0.03, 4));
  REQUIRE(r.pairs.size() == 1);
  CHECK(r.pairs[0].key.devices == 1);
  REQUIRE(r.only_base.size() == 1);
  CHECK(r.only_base[0].first.devices == 2);
  CHECK(r.only_base[0].second == "b.json");
  REQUIRE(r.only_new.size() == 1);
  CHECK(r.only_new[0].first.devices == 4);
  CHECK(r.exit_status() == 0);
  const std::string t = format_compare_table(r);
  CHECK(t.find("only in BASE: resnet50 fp32 cpu train synthetic-device default x2 (b.json)") != std::string::npos);
  CHECK(t.find("only in NEW: resnet50 fp32 cpu train synthetic-device default x4 (n.json)") != std::string::npos);
}

TEST_CASE("compare: runs that measure different things are not paired") {
  LoadedResult fwd = side("n.json", {1}, {0.05}, 0.03, 4);
  fwd.result.config.forward_only = true;
  LoadedResult fp16 = side("n.json", {1}, {0.05}, 0.03, 4);
  fp16.result.config.precision = Precision::FP16;
  for (const LoadedResult& other : {fwd, fp16}) {
    const CompareReport r = compare(side("b.json", {1}, {0.1}, 0.03, 3), other);
    CHECK(r.pairs.empty());
    CHECK(r.only_base.size() == 1);
    CHECK(r.only_new.size() == 1);
  }
}

TEST_CASE("compare: too few samples give no verdict rather than a guess") {
  const CompareReport r =
      compare(side("b", {1}, {0.1}, 0.03, 5, 4), side("n", {1}, {0.2}, 0.03, 6, 4));  // 2x slower, 4 steps
  const PairComparison& p = r.pairs.at(0);
  CHECK(p.verdict == Verdict::InsufficientSamples);
  CHECK(p.p_value < 0);
  CHECK(r.exit_status() == 0);
  CHECK(compare_to_json(r).at("pairs").at(0).at("p_value").is_null());
  CHECK(format_compare_table(r).find("insufficient samples") != std::string::npos);

  // Nor an efficiency verdict: 90% -> 80% over 4 steps is not evidence.
  const CompareReport e = compare(side("b", {1, 2}, {0.1, 0.1111}, 0.01, 31, 4),
                                  side("n", {1, 2}, {0.0889, 0.1111}, 0.01, 32, 4));
  CHECK_FALSE(e.pairs.at(1).efficiency_drop);
  CHECK(e.exit_status() == 0);
}

TEST_CASE("compare: a scaling-efficiency drop beyond the threshold fails the comparison") {
  // NEW's 1-device run got 12.5% faster while the 2-device run stayed put: efficiency 90% -> 80%.
  const LoadedResult b = side("b", {1, 2}, {0.1, 0.1111}, 0.01, 31);
  const LoadedResult n = side("n", {1, 2}, {0.0889, 0.1111}, 0.01, 32);
  const CompareReport r = compare(b, n);
  const PairComparison& two = r.pairs.at(1);
  REQUIRE(two.key.devices == 2);
  CHECK(two.verdict == Verdict::NoChange);
  CHECK(two.efficiency_drop);
  CHECK(r.pairs.at(0).verdict == Verdict::Improvement);
  CHECK(r.exit_status() == 1);
  CHECK(format_compare_table(r).find("regression (efficiency)") != std::string::npos);
  CompareOptions lax;
  lax.efficiency_threshold = 0.15;
  CHECK(compare(b, n, lax).exit_status() == 0);
}

TEST_CASE("compare: growth of exposed communication is flagged") {
  LoadedResult n = side("n", {1, 2}, {0.1, 0.11}, 0.02, 42);
  n.result.runs[1].samples = test::make_samples(30, 0.11, 0.02, 42 + 7919, 0.15);  // same totals, 3x exposed
  const CompareReport r = compare(side("b", {1, 2}, {0.1, 0.11}, 0.02, 42), n);
  CHECK_FALSE(r.pairs.at(0).comm_exposed_growth);
  CHECK(r.pairs.at(1).comm_exposed_growth);
  CHECK(r.pairs.at(1).verdict == Verdict::NoChange);
  CHECK(r.exit_status() == 0);  // a hint, not a regression by itself
  CHECK(format_compare_table(r).find("comm exposed") != std::string::npos);
}

TEST_CASE("compare: different environments are reported as warnings") {
  LoadedResult n = side("n.json", {1}, {0.1}, 0.03, 2);
  n.result.env.versions["onednn"] = "3.1.1";
  n.result.env.devices = {{"NVIDIA H100 80GB HBM3", 85000000000ull, "0000:1b:00.0", 0}};
  const CompareReport r = compare(side("b.json", {1}, {0.1}, 0.03, 1), n);
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0] == "b.json vs n.json: device model differs: 'cpu0, cpu1' vs 'NVIDIA H100 80GB HBM3'");
  CHECK(r.warnings[1] == "b.json vs n.json: onednn version differs: '3.0.0' vs '3.1.1'");
  CHECK(format_compare_markdown(r).find("Environments differ") != std::string::npos);
  CHECK(compare_to_json(r).at("warnings").size() == 2);
}

TEST_CASE("compare: the same run twice on one side is unusable input") {
  const LoadedResult a = side("a.json", {1}, {0.1}, 0.03, 1), b = side("b.json", {1}, {0.1}, 0.03, 2);
  CHECK(usage_error_of([&] { compare_results({a, b}, {a}, {}); }) ==
        "BASE side holds run 'resnet50 fp32 cpu train synthetic-device default x1' twice: in a.json and in b.json");
  CompareOptions bad;
  bad.alpha = 1.5;
  CHECK(usage_error_of([&] { compare(a, b, bad); }) == "--alpha 1.5 is not in (0, 1)");
}

TEST_CASE("compare: result files and folders, and unusable ones") {
  const std::string dir = test::scratch_dir("compare_files");
  std::filesystem::create_directories(dir + "/base");
  std::filesystem::create_directories(dir + "/new");
  std::filesystem::create_directories(dir + "/empty");
  RunResult fwd = side("", {1}, {0.05}, 0.03, 5).result;
  fwd.config.forward_only = true;
  write_json_atomic(dir + "/base/train.json", to_json(side("", {1, 2}, {0.1, 0.11}, 0.03, 1).result));
  write_json_atomic(dir + "/base/infer.json", to_json(fwd));
  write_json_atomic(dir + "/new/all.json", to_json(side("", {1, 2}, {0.11, 0.121}, 0.03, 2).result));
  std::ofstream(dir + "/new/notes.txt") << "not a result";

  const auto base = load_results(dir + "/base");
  REQUIRE(base.size() == 2);
  CHECK(base[0].path == dir + "/base/infer.json");  // sorted by name
  const auto next = load_results(dir + "/new");
  REQUIRE(next.size() == 1);
  const CompareReport r = compare_results(base, next, {});
  CHECK(r.count(Verdict::Regression) == 2);
  CHECK(r.only_base.size() == 1);
  CHECK(r.exit_status() == 1);

  CHECK(usage_error_of([&] { load_results(dir + "/absent.json"); }) ==
        "cannot read " + dir + "/absent.json: no such file or folder");
  CHECK(usage_error_of([&] { load_results(dir + "/empty"); }) == dir + "/empty: folder holds no .json result files");
  std::ofstream(dir + "/malformed.json") << "{\"schema_version\": 1,";
  CHECK(usage_error_of([&] { load_results(dir + "/malformed.json"); }).find(dir + "/malformed.json: not valid JSON") == 0);
  json v0 = to_json(side("", {1}, {0.1}, 0.03, 1).result);
  v0["schema_version"] = 0;
  write_json_atomic(dir + "/v0.json", v0);
  CHECK(usage_error_of([&] { load_results(dir + "/v0.json"); }) == dir + "/v0.json: schema_version 0, this mgbench reads 1");
}

TEST_CASE("compare: markdown and JSON renderings carry the verdicts") {
  const CompareReport r =
      compare(side("b.json", {1}, {0.1}, 0.03, 7), side("n.json", {1}, {0.11}, 0.03, 8));
  const std::string md = format_compare_markdown(r);
  CHECK(md.find("### mgbench compare: regression") == 0);
  CHECK(md.find("| run | BASE img/s [95% CI] | NEW img/s [95% CI] | ratio | p | verdict | flags |") != std::string::npos);
  CHECK(md.find("**regression**") != std::string::npos);
  const json j = compare_to_json(r);
  CHECK(j.at("compare_schema_version") == kCompareSchemaVersion);
  CHECK(j.at("regression") == true);
  CHECK(j.at("exit_status") == 1);
  CHECK(j.at("pairs").at(0).at("verdict") == "regression");
  CHECK(j.at("pairs").at(0).at("base").at("images_per_sec_ci95").size() == 2);
  const json& base = j.at("pairs").at(0).at("base");
  // The throughput CI brackets the median: it comes from the step-time CI of the median, inverted.
  CHECK(base.at("images_per_sec_ci95").at(0).get<double>() <= base.at("median_images_per_sec").get<double>());
  CHECK(base.at("images_per_sec_ci95").at(1).get<double>() >= base.at("median_images_per_sec").get<double>());
}
