#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <random>

#include "core/error.h"
#include "report/compare.h"
#include "report/compare_output.h"
#include "result/compare_result_json.h"
#include "result/result_json.h"
#include "support/config_values.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

namespace {

// One result file's worth (one process run): a sweep whose per-count median step times are given.
LoadedResult side(const std::string& name, const std::vector<int>& counts, const std::vector<double>& medians,
                  double noise, uint64_t seed, int steps = 30) {
  return {name, test::make_result(counts, medians, steps, noise, seed)};
}

// k process runs of one benchmark as k files: run r's medians are `medians` x exp(run_noise x z_r), z_r drawn
// from a seeded normal, with `noise` between the steps of one run.
std::vector<LoadedResult> runs_of(const std::string& name, const std::vector<int>& counts,
                                  const std::vector<double>& medians, int k, double run_noise, uint64_t seed,
                                  double noise = 0.01) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<LoadedResult> out;
  for (int r = 0; r < k; ++r) {
    const double f = std::exp(run_noise * z(rng));
    std::vector<double> m;
    for (double x : medians) m.push_back(x * f);
    out.push_back(side(name + "/run-" + std::to_string(r) + ".json", counts, m, noise, seed * 1000 + r, 20));
  }
  return out;
}

// One 1-device run per given median step time, in order.
std::vector<LoadedResult> runs_with(const std::string& name, const std::vector<double>& run_medians, uint64_t seed) {
  std::vector<LoadedResult> out;
  for (size_t r = 0; r < run_medians.size(); ++r)
    out.push_back(side(name + "/run-" + std::to_string(r) + ".json", {1}, {run_medians[r]}, 0.005, seed + r, 20));
  return out;
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

TEST_CASE("compare: a language model's rates are sequences/s in every output, never images") {
  const LoadedResult b{"b.json", test::make_language_model_result({1}, {0.1}, 20, 0.01, 5)};
  const LoadedResult n{"n.json", test::make_language_model_result({1}, {0.11}, 20, 0.01, 6)};
  const CompareReport r = compare(b, n);
  REQUIRE(r.pairs.size() == 1);
  const std::string table = format_compare_table(r), md = format_compare_markdown(r);
  CHECK(table.find("BASE seq/s [95% CI]") != std::string::npos);
  CHECK(md.find("| run | BASE seq/s [95% CI] | NEW seq/s [95% CI] |") != std::string::npos);
  for (const std::string& out : {table, md}) CHECK(out.find("img") == std::string::npos);
  CHECK(to_json(compare_result(r))["pairs"][0]["base"]["tokens_per_sample"] == 256);
}

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

TEST_CASE("compare: steps of one run are not evidence, the old per-step test stays a labelled diagnostic") {
  // One run per side, 8% apart, with little step noise: a U test over steps finds p ~ 1e-10 (the old method),
  // but two processes always differ somewhat, so compare does not call it significant.
  const CompareReport r = compare(side("b.json", {1}, {0.100}, 0.005, 21), side("n.json", {1}, {0.108}, 0.005, 22));
  const PairComparison& p = r.pairs.at(0);
  CHECK_FALSE(p.significance_judged);
  CHECK(p.p_value < 0);
  CHECK(p.significance_note.find("significance not judged: 1 vs 1 process run(s)") == 0);
  CHECK(p.verdict == Verdict::Regression);  // on the threshold alone, and labelled so everywhere:
  CHECK(p.per_step_p < 1e-6);
  CHECK(p.per_step_verdict == Verdict::Regression);
  CHECK(format_compare_table(r).find("regression (threshold only)") != std::string::npos);
  CHECK(format_compare_markdown(r).find("**regression (threshold only)**") != std::string::npos);
  const json j = to_json(compare_result(r));
  const json& jp = j.at("pairs").at(0);
  CHECK(jp.at("method") == "threshold only");
  CHECK(jp.at("significance_judged") == false);
  CHECK(jp.at("p_value").is_null());
  CHECK(jp.at("per_step_diagnostic").at("note").get<std::string>().find("not used for the verdict") !=
        std::string::npos);
  CHECK(j.at("noise_warnings").size() == 1);
  CompareOptions wide;
  wide.threshold = 0.10;
  CHECK(compare(side("b.json", {1}, {0.100}, 0.005, 21), side("n.json", {1}, {0.108}, 0.005, 22), wide)
            .exit_status() == 0);
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

TEST_CASE("compare: interleaved pairs cancel a drifting machine that pooled runs cannot see through") {
  // The machine slows down over the session (0.10 s -> 0.17 s); NEW, run right after BASE each time, is 10%
  // slower in every pair. Unpaired, the runs overlap and nothing is significant; paired, every pair agrees.
  std::vector<double> b, n;
  for (int i = 0; i < 8; ++i) {
    b.push_back(0.10 + 0.01 * i);
    n.push_back((0.10 + 0.01 * i) * 1.1 * (1 + 0.005 * (i % 3 - 1)));
  }
  auto base = runs_with("b", b, 50), next = runs_with("n", n, 60);
  for (size_t i = 0; i < base.size(); ++i) {  // made BASE NEW BASE NEW ..., two seconds each
    base[i].result.process_runs = {{1795000000.0 + 4 * i, 1795000002.0 + 4 * i}};
    next[i].result.process_runs = {{1795000002.0 + 4 * i, 1795000004.0 + 4 * i}};
  }
  const CompareReport pooled = compare_results(base, next, {});
  CHECK(pooled.pairs.at(0).p_value > 0.05);
  CHECK(pooled.pairs.at(0).verdict == Verdict::NoChange);
  CompareOptions paired;
  paired.paired = true;
  const CompareReport r = compare_results(base, next, paired);
  const PairComparison& p = r.pairs.at(0);
  CHECK(p.paired);
  CHECK(p.exact);
  CHECK(p.p_value == Approx(2.0 / 256));  // all 8 pairs slower
  CHECK(p.ratio == Approx(1 / 1.1).epsilon(0.01));
  CHECK(p.verdict == Verdict::Regression);
  CHECK(to_json(compare_result(r)).at("pairs").at(0).at("method") == "paired run medians (Wilcoxon signed-rank)");

  const std::vector<double> seven(b.begin(), b.begin() + 7);
  CHECK(usage_error_of([&] { compare_results(runs_with("b", seven, 50), next, paired); }) ==
        "--paired: run 'resnet50 fp32 cpu train synthetic-device default x1' has 7 BASE runs and 8 NEW runs; pairs "
        "need as many of each");
  // The same files made in two blocks (all BASE, then all NEW) are not pairs: refused before any verdict.
  auto blocked = next;
  for (size_t i = 0; i < blocked.size(); ++i)
    blocked[i].result.process_runs = {{1795001000.0 + 2 * i, 1795001001.0 + 2 * i}};
  CHECK(usage_error_of([&] { compare_results(base, blocked, paired); }).find("(pair 1) did not run back to back") !=
        std::string::npos);
  CHECK(compare_results(base, blocked, {}).pairs.at(0).verdict == Verdict::NoChange);  // unpaired needs no order
}

TEST_CASE("compare: the gate reports its noise floor, warns below it and fails under --strict") {
  const auto b = runs_of("b", {1}, {0.1}, 5, 0.04, 71), n = runs_of("n", {1}, {0.1}, 5, 0.04, 72);
  const CompareReport r = compare_results(b, n, {});
  const NoiseFloor& f = r.pairs.at(0).noise;
  REQUIRE(f.known);
  CHECK(f.run_spread > 0.01);
  CHECK(f.run_spread < 0.08);
  CHECK(f.min_detectable > f.a_vs_a_band);  // detecting needs more than the A-vs-A band
  CHECK(f.min_detectable > 0.05);           // 4% run noise, 5 runs: a 5% change is below the floor
  REQUIRE(r.noise_warnings.size() == 1);
  CHECK(r.noise_warnings[0].find("--threshold 5.0% is below this comparison's noise floor") != std::string::npos);
  CHECK(r.exit_status() == 0);
  CHECK(format_compare_table(r).find("smallest detectable slowdown") != std::string::npos);

  CompareOptions strict;
  strict.strict = true;
  const CompareReport s = compare_results(b, n, strict);
  CHECK(s.exit_status() == 2);
  CHECK(s.strict_failure.find("--strict: ") == 0);
  strict.threshold = 0.5;
  CHECK(compare_results(b, n, strict).exit_status() == 0);
  CHECK(compare_results(b, n, strict).noise_warnings.empty());
  // One run per side: nothing to measure the noise with, so --strict cannot vouch for the verdict.
  CHECK(compare(side("b", {1}, {0.1}, 0.01, 1), side("n", {1}, {0.1}, 0.01, 2), strict).exit_status() == 2);
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

TEST_CASE("compare: too few samples give no verdict rather than a guess") {
  const CompareReport r =
      compare(side("b", {1}, {0.1}, 0.03, 5, 4), side("n", {1}, {0.2}, 0.03, 6, 4));  // 2x slower, 4 steps
  const PairComparison& p = r.pairs.at(0);
  CHECK(p.verdict == Verdict::InsufficientSamples);
  CHECK(p.p_value < 0);
  CHECK(r.exit_status() == 0);
  CHECK(to_json(compare_result(r)).at("pairs").at(0).at("p_value").is_null());
  CHECK(format_compare_table(r).find("insufficient samples") != std::string::npos);
}

TEST_CASE("compare: a scaling-efficiency drop beyond the threshold fails the comparison") {
  // NEW's 1-device runs got 12.5% faster while the 2-device runs stayed put: efficiency 90% -> 80%.
  const auto b = runs_of("b", {1, 2}, {0.1, 0.1111}, 5, 0.005, 31);
  const auto n = runs_of("n", {1, 2}, {0.0889, 0.1111}, 5, 0.005, 32);
  const CompareReport r = compare_results(b, n, {});
  const PairComparison& two = r.pairs.at(1);
  REQUIRE(two.key.devices == 2);
  CHECK(two.verdict == Verdict::NoChange);
  CHECK(two.efficiency_drop);
  CHECK(r.pairs.at(0).verdict == Verdict::Improvement);
  CHECK(r.exit_status() == 1);
  CHECK(format_compare_table(r).find("regression (efficiency)") != std::string::npos);
  CompareOptions lax;
  lax.efficiency_threshold = 0.15;
  CHECK(compare_results(b, n, lax).exit_status() == 0);
}

TEST_CASE("compare: growth of exposed communication is flagged") {
  auto b = runs_of("b", {1, 2}, {0.1, 0.11}, 5, 0.01, 42);
  auto n = runs_of("n", {1, 2}, {0.1, 0.11}, 5, 0.01, 43);
  for (size_t i = 0; i < n.size(); ++i)  // same totals, 3x exposed
    n[i].result.runs[1].samples = test::make_samples(20, 0.11, 0.01, 900 + i, 0.15);
  const CompareReport r = compare_results(b, n, {});
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
  CHECK(to_json(compare_result(r)).at("warnings").size() == 2);
}

TEST_CASE("compare: a committed baseline is labelled as a comparison across time") {
  CompareOptions o;
  o.across_time = true;
  const CompareReport r = compare(side("b.json", {1}, {0.1}, 0.03, 1), side("n.json", {1}, {0.1}, 0.03, 2), o);
  CHECK(format_compare_table(r).find("compares across time and possibly machines") != std::string::npos);
  CHECK(format_compare_markdown(r).find("compares across time and possibly machines") != std::string::npos);
  CHECK(to_json(compare_result(r)).at("options").at("across_time") == true);
  CHECK(format_compare_table(compare(side("b.json", {1}, {0.1}, 0.03, 1), side("n.json", {1}, {0.1}, 0.03, 2)))
            .find("across time") == std::string::npos);
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

TEST_CASE("compare: markdown and JSON renderings carry the verdicts") {
  const CompareReport r = compare_results(runs_of("b", {1}, {0.1}, 5, 0.02, 7), runs_of("n", {1}, {0.11}, 5, 0.02, 8), {});
  const std::string md = format_compare_markdown(r);
  CHECK(md.find("### mgbench compare: regression") == 0);
  CHECK(md.find("| run | BASE img/s [95% CI] | NEW img/s [95% CI] | runs | ratio [95% CI] | p | verdict | flags |") !=
        std::string::npos);
  CHECK(md.find("**regression**") != std::string::npos);
  CHECK(md.find("| 5/5 |") != std::string::npos);
  const json j = to_json(compare_result(r));
  CHECK(j.at("compare_schema_version") == kCompareSchemaVersion);
  CHECK(j.at("regression") == true);
  CHECK(j.at("exit_status") == 1);
  const json& p = j.at("pairs").at(0);
  CHECK(p.at("verdict") == "regression");
  CHECK(p.at("method") == "run medians (Mann-Whitney)");
  CHECK(p.at("ratio_ci95").size() == 2);
  CHECK(p.at("noise").at("known") == true);
  CHECK(p.at("base").at("runs") == 5);
  CHECK(p.at("base").at("run_images_per_sec").size() == 5);
  const json& base = p.at("base");
  // The throughput CI brackets the median: it comes from the step-time CI of the median, inverted.
  CHECK(base.at("images_per_sec_ci95").at(0).get<double>() <= base.at("median_images_per_sec").get<double>());
  CHECK(base.at("images_per_sec_ci95").at(1).get<double>() >= base.at("median_images_per_sec").get<double>());
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
