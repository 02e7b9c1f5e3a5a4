#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "result/result_json.h"
#include "stats/compare.h"
#include "stats/mann_whitney.h"
#include "support/compare_runs.h"
#include "support/config_values.h"
#include "support/result_fixture.h"

using namespace mg;
using namespace mg::test;
using nlohmann::json;

TEST_CASE("compare: identical runs are no change") {
  const auto b = runs_of("b", {1, 2}, {0.1, 0.11}, 5, 0.03, 1);
  const CompareReport r = compare_results(b, b, {});
  REQUIRE(r.pairs.size() == 2);
  for (const PairComparison& p : r.pairs) {
    CHECK(p.base.runs == 5);
    CHECK(p.significance_judged);
    CHECK(p.verdict == Verdict::NoChange);
    CHECK(p.ratio == Approx(1.0));
    CHECK(p.p_value == Approx(1.0).margin(0.01));
    CHECK_FALSE(p.efficiency_drop);
    CHECK_FALSE(p.comm_exposed_growth);
  }
  CHECK(r.warnings.empty());
  CHECK(r.exit_status() == 0);
}

TEST_CASE("compare: several files of one side are its process runs, and --runs results keep their runs") {
  const auto b = runs_of("b", {1}, {0.1}, 3, 0.03, 2);
  LoadedResult pooled = side("p.json", {1}, {0.1}, 0.01, 3, 20);
  pooled.result.runs[0].run_samples = {5, 5, 10};  // a --runs 3 result
  const CompareReport r = compare_results(b, {pooled, runs_of("n", {1}, {0.1}, 1, 0.03, 4)[0]}, {});
  REQUIRE(r.pairs.size() == 1);
  CHECK(r.pairs[0].base.runs == 3);
  CHECK(r.pairs[0].next.runs == 4);
  CHECK(r.pairs[0].next.run_ips.size() == 4);
  CHECK(r.pairs[0].base.file.find("b/run-0.json, b/run-1.json") == 0);
}

TEST_CASE("compare: equal distributions of runs rarely reach significance and never a verdict") {
  // 400 independent A-vs-A comparisons of 6 runs per side with 3% run-to-run noise. The exact test's false
  // positive rate is at most alpha (discrete: P(p < 0.05) = 4.1% at 6 vs 6), +- 1% (binomial sd).
  int significant = 0, verdicts = 0;
  const int trials = 400;
  for (int s = 0; s < trials; ++s) {
    const CompareReport r = compare_results(runs_of("b", {1}, {0.1}, 6, 0.03, 1000 + 2 * s),
                                            runs_of("n", {1}, {0.1}, 6, 0.03, 1001 + 2 * s), {});
    significant += r.pairs.at(0).p_value < 0.05;
    verdicts += r.pairs.at(0).verdict != Verdict::NoChange;
  }
  INFO(significant << " significant, " << verdicts << " verdicts of " << trials);
  CHECK(significant <= 0.07 * trials);
  CHECK(significant >= 0.015 * trials);  // a test that never rejects would pass the line above too
  CHECK(verdicts <= significant);        // a verdict needs significance
  CHECK(verdicts <= 0.02 * trials);      // and the 5% threshold absorbs most of the noise
}

TEST_CASE("compare: a 10% slowdown over 5 runs per side is a regression, a 10% speed-up an improvement") {
  const auto base = runs_of("b", {1, 2}, {0.1, 0.11}, 5, 0.02, 7);
  const CompareReport slow = compare_results(base, runs_of("n", {1, 2}, {0.11, 0.121}, 5, 0.02, 8), {});
  for (const PairComparison& p : slow.pairs) {
    CHECK(p.verdict == Verdict::Regression);
    CHECK(p.significance_judged);
    CHECK(p.exact);
    CHECK(p.ratio == Approx(1 / 1.1).epsilon(0.03));
    CHECK(p.p_value < 0.05);
    CHECK(p.change.lo < 1 / 1.1);  // the interval holds the true ratio...
    CHECK(p.change.hi > 1 / 1.1);
    CHECK(p.change.hi < 1);  // ...and excludes no change
    CHECK(p.change.coverage == Approx(1 - 2 * 4.0 / 252));
  }
  CHECK(slow.exit_status() == 1);

  const CompareReport fast = compare_results(base, runs_of("n", {1, 2}, {0.1 / 1.1, 0.11 / 1.1}, 5, 0.02, 9), {});
  CHECK(fast.count(Verdict::Improvement) == 2);
  CHECK(fast.exit_status() == 0);
}

TEST_CASE("compare: too few runs for the test to reach alpha decide on the threshold, and say so") {
  const CompareReport r = compare_results(runs_of("b", {1}, {0.1}, 3, 0.01, 5), runs_of("n", {1}, {0.12}, 3, 0.01, 6), {});
  const PairComparison& p = r.pairs.at(0);
  CHECK_FALSE(p.significance_judged);
  CHECK_FALSE(p.noise.test_can_reject);
  CHECK(p.significance_note.find("smallest possible p is 0.1, not below alpha 0.05") != std::string::npos);
  CHECK(p.verdict == Verdict::Regression);
  CHECK(smallest_two_sided_p(3, 3) == Approx(0.1));
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

TEST_CASE("compare: runs of different presets are unusable input, within a side and between sides") {
  const LoadedResult a = side("a.json", {1}, {0.1}, 0.03, 1);
  LoadedResult steps = side("b.json", {1}, {0.1}, 0.03, 2);
  steps.result.config.steps = 20;
  CHECK(usage_error_of([&] { compare(a, steps); }) ==
        "BASE and NEW ran different presets (steps 30 vs 20: a.json vs b.json); compare runs of one preset");
  LoadedResult batch = side("c.json", {1}, {0.1}, 0.03, 3);
  batch.result.config.batch_size = 64;
  batch.result.runs[0].batch_per_device = 64;
  CHECK(usage_error_of([&] { compare_results({a, batch}, {a}, {}); }) ==
        "BASE files of run 'resnet50 fp32 cpu train synthetic-device default x1' ran different presets (batch-size "
        "32 vs 64, batch per device 32 vs 64: a.json vs c.json); compare runs of one preset");
  LoadedResult threads = side("d.json", {1}, {0.1}, 0.03, 4);
  threads.result.runs[0].threads_per_replica = 2;
  LoadedResult one = a;
  one.result.runs[0].threads_per_replica = 1;
  CHECK(usage_error_of([&] { compare(one, threads); }).find("threads per replica 1 vs 2") != std::string::npos);
  LoadedResult slowed = side("e.json", {1}, {0.1}, 0.03, 5);
  slowed.result.config.inject_slowdown = 0.1;
  CHECK(usage_error_of([&] { compare_results({a, slowed}, {a}, {}); }) ==
        "BASE files a.json and e.json differ in --inject-slowdown");
  // Between sides it is a calibration, noted on the pair.
  const CompareReport r = compare(a, slowed);
  CHECK(r.pairs.at(0).notes.at(0) == "calibration: --inject-slowdown 0 in BASE, 0.1 in NEW");
  CompareOptions bad;
  bad.alpha = 1.5;
  CHECK(usage_error_of([&] { compare(a, a, bad); }) == "--alpha 1.5 is not in (0, 1)");
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
  CHECK(r.count(Verdict::Regression) == 2);  // one run per side: on the threshold alone
  CHECK_FALSE(r.pairs.at(0).significance_judged);
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

TEST_CASE("compare: the pairing key changes exactly with the fields the field table marks as keys") {
  const nlohmann::json defaults = to_json(RunConfig{});
  DeviceCountResult run;
  run.devices = 2;
  run.transport = "default";
  const RunKey base = run_key(RunConfig{}, run);
  for (const ConfigField& f : run_config_fields()) {
    INFO(f.key);
    nlohmann::json j = defaults;
    j[f.key] = test::other_config_values().at(f.key);
    CHECK((run_key(config_from_json(j, "config"), run) == base) != f.compare_key);
  }
}
