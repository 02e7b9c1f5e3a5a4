// The plots and tables say what the input says: a point lands where its value maps through the axis (worked out
// here by hand from the layout, not through the scale code), and each table cell is the input file's number.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "report/html_report.h"
#include "report/plots.h"
#include "report/report_input.h"
#include "report/xy_chart.h"
#include "result/result_json.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

namespace {

// The (cx, cy) of the marker whose tooltip is `tip`, as the SVG writes them.
std::pair<std::string, std::string> marker_at(const std::string& svg, const std::string& tip) {
  const std::regex re("<circle cx=\"([^\"]+)\" cy=\"([^\"]+)\"[^>]*><title>" + tip + "</title>");
  std::smatch m;
  if (!std::regex_search(svg, m, re)) return {"", ""};
  return {m[1].str(), m[2].str()};
}

// The cells of the HTML table row that starts with `first` and `second`.
std::vector<std::string> html_row(const std::string& html, const std::string& first, const std::string& second) {
  const std::string head = "<tr><td>" + first + "</td><td>" + second + "</td>";
  const size_t at = html.find(head), end = html.find("</tr>", at);
  if (at == std::string::npos) return {};
  std::vector<std::string> cells;
  const std::string row = html.substr(at, end - at);
  const std::regex cell("<td>([^<]*)</td>");
  for (auto it = std::sregex_iterator(row.begin(), row.end(), cell); it != std::sregex_iterator(); ++it)
    cells.push_back((*it)[1].str());
  return cells;
}

}  // namespace

TEST_CASE("plot values: a point with known x and y is drawn at its coordinates on a linear chart") {
  plot::XYChart c;
  c.x_ticks = {1, 2, 4};
  plot::XYSeries s;
  s.name = "s";
  s.x = {1, 2, 4};
  s.y = {100, 200, 400};
  c.series = {s};
  const std::string svg = plot::render_xy_chart(c);
  // Plot area: x from 78 to 860 - 18 = 842 px. Device ticks 1..4 padded by 0.35 each side: domain 0.65..4.35,
  // so x = 2 is at 78 + (2 - 0.65) / 3.7 * 764 = 356.76 px, written to one decimal.
  // y: 0..400 (from zero, step 100) onto 312 (top 12 + height 300) .. 12 px, so y = 200 is at 162 px.
  CHECK(marker_at(svg, "s: x = 2.00, y = 200") == std::make_pair(std::string("356.8"), std::string("162")));
  // x = 1 at 78 + 0.35 / 3.7 * 764 = 150.27, x = 4 at 78 + 3.35 / 3.7 * 764 = 769.73; y = 100 at 237, 400 at 12.
  CHECK(svg.find("<polyline points=\"150.3,237 356.8,162 769.7,12\"") != std::string::npos);
}

TEST_CASE("plot values: a message size is drawn at its place on the byte axis of the comm plot") {
  plot::XYChart c;
  c.x_kind = plot::ScaleKind::Log2;
  c.x_bytes = true;
  c.y_include_zero = true;
  plot::XYSeries s;
  s.name = "s";
  s.x = {1024, 64 * 1024, 4 << 20};
  s.y = {1, 2, 4};
  c.series = {s};
  const std::string svg = plot::render_xy_chart(c);
  // Domain 1 KiB..4 MiB (12 doublings), padded by (4096)^0.03 each side:
  // 64 KiB is halfway in log space, at the centre of 78..842 px = 460; y = 2 of 0..4 (step 1) is at 162 px.
  CHECK(marker_at(svg, "s: x = 64 KiB, y = 2.00") == std::make_pair(std::string("460"), std::string("162")));
  // 1 KiB: the padding is 0.03 * 12 doublings of 12.72 doublings: 78 + 0.36 / 12.72 * 764 = 99.6 px.
  CHECK(marker_at(svg, "s: x = 1 KiB, y = 1.00").first == "99.6");
}

TEST_CASE("plot values: the scaling tables' cells are the result file's numbers, column by column") {
  const std::string dir = test::scratch_dir("plot-values");
  const RunResult r = test::make_result({1, 2, 4}, {0.100, 0.125, 0.160}, 20, 0.03, 11);
  const std::string path = dir + "/run.json";
  std::ofstream(path) << to_json(r).dump(1);
  const json j = json::parse(std::ifstream(path));

  const ReportInputs in = load_report_inputs({path});
  const auto figs = plot::scaling_figures(in.results);
  REQUIRE(figs.size() == 2);
  const std::string html = render_html_report(in);
  REQUIRE(figs[0].table.rows.size() == 3);
  REQUIRE(figs[1].table.rows.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const json& run = j["runs"][i];
    const json& st = run["step_time"];
    const double ips = run["images_per_sec"];
    const std::string devices = std::to_string(run["devices"].get<int>());
    INFO("entry " << i);
    const std::vector<std::string> tp = {
        "resnet50",
        devices,
        plot::format_sig(ips),
        plot::format_sig(ips * st["median_s"].get<double>() / st["ci95_hi_s"].get<double>()) + " – " +
            plot::format_sig(ips * st["median_s"].get<double>() / st["ci95_lo_s"].get<double>()),
        plot::format_sig(run["images_per_sec_per_device"].get<double>()),
        fmt::format("{:.1f} %", 100 * run["scaling_efficiency"].get<double>()),
        plot::format_sig(1e3 * st["median_s"].get<double>()) + " ms"};
    CHECK(figs[0].table.rows[i] == tp);
    const std::vector<std::string> eff = {"resnet50", devices,
                                          fmt::format("{:.1f} %", 100 * run["scaling_efficiency"].get<double>()),
                                          fmt::format("{:.2f}×", run["speedup"].get<double>())};
    CHECK(figs[1].table.rows[i] == eff);
    // The page shows the same cells, in the same order.
    CHECK(html_row(html, "resnet50", devices) == tp);
  }
  // The numbers differ between columns, so a swapped pair of columns cannot pass by coincidence.
  CHECK(j["runs"][2]["images_per_sec"] != j["runs"][2]["images_per_sec_per_device"]);
  CHECK(j["runs"][2]["scaling_efficiency"] != j["runs"][2]["speedup"]);
}
