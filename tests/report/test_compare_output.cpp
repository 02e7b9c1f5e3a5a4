#include <catch2/catch.hpp>

#include <string>

#include "report/compare_output.h"
#include "result/compare_result_json.h"
#include "stats/compare.h"
#include "support/compare_runs.h"
#include "support/result_fixture.h"

using namespace mg;
using namespace mg::test;
using nlohmann::json;

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
