// Every series in the input must be drawn: each plot kind is fed inputs with several series and the SVG must
// name each of them (legend text or marker tooltip), draw a mark per point and keep its numbers in the table.
#include <catch2/catch.hpp>

#include <regex>

#include "report/plots.h"
#include "report/svg.h"
#include "support/result_fixture.h"

using namespace mg;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

ResultInput two_transports(const std::string& label) {
  RunResult r = test::make_result({1, 2, 4}, {0.10, 0.11, 0.12}, 30, 0.03, 5, "tcp");
  RunResult shm = test::make_result({1, 2, 4}, {0.10, 0.105, 0.11}, 30, 0.03, 9, "shm");
  r.runs.insert(r.runs.end(), shm.runs.begin(), shm.runs.end());
  return {label, label + ".json", r};
}

ResultInput prediction(const std::string& label) {
  ResultInput p = two_transports(label);
  p.result.kind = "prediction";
  for (auto& d : p.result.runs) d.samples.clear();
  return p;
}

}  // namespace

TEST_CASE("plot series: every file and transport is a series of the scaling plots, predictions dashed") {
  const std::vector<ResultInput> in = {two_transports("base<run>"), prediction("model")};
  const auto figs = plot::scaling_figures(in);
  REQUIRE(figs.size() == 2);  // throughput and efficiency
  const std::vector<std::string> want = {"base<run> · tcp", "base<run> · shm", "model · tcp (predicted)",
                                         "model · shm (predicted)"};
  for (const auto& f : figs) {
    CHECK(f.series == want);
    for (const auto& name : want) CHECK(f.svg.find(">" + svg::escape(name) + "</text>") != std::string::npos);
  }
  const std::string& tp = figs[0].svg;
  CHECK(count(tp, "<g class=\"series\">") == 4 + 2);  // four curves and the ideal lines of the two measured ones
  CHECK(count(tp, "stroke-dasharray=\"7 4\"") >= 2);  // predictions dashed (and in the legend)
  CHECK(tp.find("ideal (base&lt;run&gt; · tcp)") != std::string::npos);
  CHECK(figs[0].table.rows.size() == 12);  // 4 series x 3 device counts
  // Error bars: three lines per measured point with a CI (6 points), none for predictions.
  CHECK(count(tp, "<line") >= 6 * 3);
}

TEST_CASE("plot series: breakdown shows the five stacked parts and overlapped comm per entry") {
  const std::vector<ResultInput> in = {two_transports("a")};
  const auto figs = plot::breakdown_figures(in);
  REQUIRE(figs.size() == 1);
  for (const char* part : {"input wait", "forward", "backward", "exposed comm", "optimizer", "overlapped comm"})
    CHECK(figs[0].svg.find(std::string(">") + part) != std::string::npos);
  CHECK(count(figs[0].svg, "<g class=\"bar\">") == 6);
  for (const char* entry : {"1 dev tcp", "4 dev tcp", "1 dev shm", "4 dev shm"})
    CHECK(figs[0].svg.find(std::string(">") + entry + "</text>") != std::string::npos);
  // Five stacked rectangles per bar (each part is non-zero here) plus the overlapped one beside.
  CHECK(count(figs[0].svg, "<rect") == 1 + 6 * 6 + 6);  // frame, bars, legend swatches
}

TEST_CASE("plot series: the distribution shows one strip per entry with samples, one dot per step") {
  const std::vector<ResultInput> in = {two_transports("a"), prediction("p")};
  const auto figs = plot::sample_figures(in);
  REQUIRE(figs.size() == 1);  // the prediction has no samples
  CHECK(figs[0].series.size() == 6);
  CHECK(count(figs[0].svg, "<circle") == 6 * 30);
}

TEST_CASE("plot series: comm curves per transport, op and placement on a byte axis") {
  CommInput c;
  c.label = "comm";
  for (const char* t : {"auto", "tcp"})
    for (bool in_place : {false, true})
      for (size_t b = 1024; b <= 4 << 20; b *= 4) {
        CommRow r;
        r.op = "allreduce";
        r.dtype = "fp32";
        r.transport = t;
        r.bytes = b;
        r.in_place = in_place;
        r.time_us = static_cast<double>(b) / 1e3;
        r.algbw_GBps = r.busbw_GBps = static_cast<double>(b) / 1e6;
        r.devices = 2;
        c.result.rows.push_back(r);
      }
  const auto figs = plot::comm_figures({c});
  REQUIRE(figs.size() == 2);
  for (const auto& f : figs) {
    REQUIRE(f.series.size() == 4);
    for (const auto& s : f.series) CHECK(f.svg.find(">" + svg::escape(s) + "</text>") != std::string::npos);
    CHECK(f.svg.find(">1 KiB</text>") != std::string::npos);
    CHECK(f.svg.find(">4 MiB</text>") != std::string::npos);
  }
  CHECK(figs[0].table.rows.size() == c.result.rows.size());
}

TEST_CASE("plot series: compare pairs drawn with their interval, regressions marked and highlighted") {
  CompareInput c;
  c.label = "cmp";
  c.result.options.threshold = 0.05;
  ComparePair same{"resnet50 x1", "no change", 1.01, 0.98, 1.04, false, false, 100, 101, ""};
  ComparePair slow{"resnet50 x2", "regression", 0.85, 0.82, 0.88, false, true, 200, 170, ""};
  ComparePair eff{"resnet50 x4", "no change", 0.99, 0, 0, false, true, 400, 396, "scaling efficiency dropped"};
  c.pairs = {same, slow, eff};
  const auto figs = plot::compare_figures({c});
  REQUIRE(figs.size() == 1);
  const auto& f = figs[0];
  for (const auto& p : c.pairs) CHECK(f.svg.find(">" + p.label + "</text>") != std::string::npos);
  CHECK(count(f.svg, "class=\"tick regression\"") == 2);
  CHECK(f.table.highlight == std::vector<bool>{false, true, true});
  CHECK(f.table.rows[2][5] == "no change (efficiency)");
}
