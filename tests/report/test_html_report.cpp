#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "report/compare_output.h"
#include "report/html_report.h"
#include "result/comm_result_json.h"
#include "result/compare_result_json.h"
#include "result/result_json.h"
#include "support/comm_fixture.h"
#include "support/compare_fixture.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

namespace {

std::string write(const std::string& dir, const std::string& name, const json& j) {
  const std::string p = dir + "/" + name;
  std::ofstream(p) << j.dump();
  return p;
}

json comm_json() { return to_json(test::make_comm_result()); }

json compare_json() { return to_json(test::make_compare_result()); }

}  // namespace

TEST_CASE("html report: a self-contained page with every section the inputs support") {
  const std::string dir = test::scratch_dir("html");
  const RunResult r = test::make_result({1, 2}, {0.1, 0.12}, 20, 0.03, 3);
  const std::string rp = write(dir, "run.json", to_json(r));
  const std::string cp = write(dir, "comm.json", comm_json());
  const std::string xp = write(dir, "cmp.json", compare_json());
  const ReportInputs in = load_report_inputs({rp, cp, xp});
  REQUIRE(in.results.size() == 1);
  REQUIRE(in.comms.size() == 1);
  REQUIRE(in.compares.size() == 1);
  CHECK(in.results[0].label == "run");
  const std::string page = render_html_report(in);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  // Nothing fetched: no scripts, links, imports or URLs of any kind.
  for (const char* bad : {"<script", "<link", "@import", "url(", "http://", "https://", "src=", "href="})
    CHECK(page.find(bad) == std::string::npos);
  for (const char* section : {"Throughput vs device count", "Scaling efficiency", "Step breakdown: run",
                              "Step-time distribution: run", "Bus bandwidth vs message size: comm",
                              "Comparison: cmp", "Environment"})
    CHECK(page.find(section) != std::string::npos);
  // The environment block names the machine and the command line; differing hosts are called out.
  CHECK(page.find("Intel(R) Xeon(R) Platinum 8480+") != std::string::npos);
  CHECK(page.find("mgbench --device cpu --model resnet50 --gpus 1,2") != std::string::npos);
  CHECK(page.find("different environments") != std::string::npos);

  const std::string out = dir + "/report.html";
  write_html_report(out, in);
  std::ifstream f(out);
  CHECK(std::string(std::istreambuf_iterator<char>(f), {}) == page);
}

TEST_CASE("html report: a language model's throughput is in sequences/s and tokens/s, never images/s") {
  const std::string dir = test::scratch_dir("html-lm");
  const RunResult b = test::make_language_model_result({1, 2}, {0.1, 0.12}, 20, 0.02, 3);
  const RunResult n = test::make_language_model_result({1, 2}, {0.11, 0.13}, 20, 0.02, 4);
  const CompareReport cmp = compare_results({{"b.json", b}}, {{"n.json", n}}, {});
  const ReportInputs in = load_report_inputs(
      {write(dir, "gpt2.json", to_json(b)), write(dir, "cmp.json", to_json(compare_result(cmp)))});
  const std::string page = render_html_report(in);
  for (const char* label : {">throughput (sequences/s)</text>", "<th>sequences/s</th>",
                            "<th>sequences/s per device</th>", "<th>tokens/s</th>", "<th>BASE sequences/s</th>",
                            "<th>NEW sequences/s</th>", "NEW / BASE median sequences/s per pair"})
    CHECK(page.find(label) != std::string::npos);
  CHECK(page.find("images/s") == std::string::npos);
  CHECK(page.find("Images") == std::string::npos);
}

TEST_CASE("html report: bad input is a one-line UsageError and nothing is written") {
  const std::string dir = test::scratch_dir("html-bad");
  CHECK_THROWS_AS(load_report_inputs({}), UsageError);
  const std::string other = write(dir, "other.json", {{"hello", 1}});
  CHECK_THROWS_WITH(load_report_inputs({other}), Catch::Contains("not an mgbench result, comm or compare output"));
  const std::string array = write(dir, "array.json", json::array({1, 2}));
  CHECK_THROWS_AS(load_report_inputs({array}), UsageError);
  json broken = comm_json();
  broken["results"][0].erase("busbw_GBps");
  CHECK_THROWS_WITH(load_report_inputs({write(dir, "c.json", broken)}), Catch::Contains("busbw_GBps"));
  CHECK_THROWS_AS(write_html_report(dir + "/x.html", ReportInputs{}), UsageError);
  CHECK(!std::filesystem::exists(dir + "/x.html"));
  const RunResult r = test::make_result({1}, {0.1}, 5, 0.0, 1);
  ReportInputs in;
  in.results.push_back({"r", "", r});
  CHECK_THROWS_AS(write_html_report(dir + "/missing/x.html", in), UsageError);
}

TEST_CASE("html report: labels stay distinct when two files share a name") {
  const std::string dir = test::scratch_dir("html-labels");
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  const json j = to_json(test::make_result({1}, {0.1}, 5, 0.0, 1));
  const ReportInputs in = load_report_inputs({write(dir + "/a", "r.json", j), write(dir + "/b", "r.json", j)});
  CHECK(in.results[0].label == "a/r");
  CHECK(in.results[1].label == "b/r");
  // A folder stands for its .json files.
  write(dir + "/a", "s.json", comm_json());
  const ReportInputs folder = load_report_inputs({dir + "/a"});
  CHECK(folder.results.size() == 1);
  CHECK(folder.comms.size() == 1);
  std::filesystem::create_directories(dir + "/empty");
  CHECK_THROWS_WITH(load_report_inputs({dir + "/empty"}), Catch::Contains("without .json files"));
}

TEST_CASE("html report: the compare reader takes the ratio interval compare writes, else from the sides") {
  CompareReport r;
  PairComparison p;
  p.key.model = "resnet50";
  p.key.devices = 2;
  p.base.median_ips = 100;
  p.base.ips_ci_lo = 95;
  p.base.ips_ci_hi = 105;
  p.next.median_ips = 80;
  p.next.ips_ci_lo = 78;
  p.next.ips_ci_hi = 82;
  p.ratio = 0.8;
  p.change = {0.8, 0.75, 0.85, 0.95};
  p.verdict = Verdict::Regression;
  r.pairs = {p};
  const ComparePair a = compare_pair_view(compare_result(r).pairs[0]);
  CHECK(a.ratio == 0.8);
  CHECK(a.lo == 0.75);
  CHECK(a.hi == 0.85);
  CHECK(!a.interval_from_sides);
  CHECK(a.regression);
  CHECK(a.label == p.key.label());
  CHECK(a.base_ips == 100);
  CHECK(a.new_ips == 80);
  // Without an interval of its own (too few runs for one) the pair takes the sides'.
  r.pairs[0].change = {};
  const ComparePair d = compare_pair_view(compare_result(r).pairs[0]);
  CHECK(d.interval_from_sides);
  CHECK(d.lo == Approx(78.0 / 105));
  CHECK(d.hi == Approx(82.0 / 95));
}
