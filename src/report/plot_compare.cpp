#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/chart_parts.h"
#include "report/plots.h"
#include "result/rate_unit.h"

namespace mg::plot {

namespace {

const char* kRegression = "#D55E00";   // vermillion
const char* kImprovement = "#009E73";  // bluish green
const char* kNeutral = "#0072B2";      // blue

Figure compare_figure(const CompareInput& in) {
  std::vector<RateUnit> units;
  for (const ComparePair& p : in.pairs) units.push_back(rate_unit(p.tokens_per_sample));
  const std::string unit = common_rate_unit(units).samples;
  Figure f;
  f.title = "Comparison: " + in.label + (in.result.regression ? " — regression" : " — no regression");
  f.caption = "NEW / BASE median " + unit +
              " per pair with its 95 % interval; 1 = unchanged, left of it is slower. "
              "Regressions (a significant slowdown beyond the threshold, or a scaling-efficiency drop) are marked "
              "in vermillion with a diamond. Dashed lines: ±threshold.";
  const double width = 860, row = 30, top = 12;
  double label_w = 120;
  for (const ComparePair& p : in.pairs) label_w = std::max(label_w, text_width(p.label, 11) + 12);
  label_w = std::min(label_w, 340.0);
  // At least 90 px high, so one pair still reads as a plot; rows centred in it.
  const double plot_h = std::max(90.0, row * static_cast<double>(in.pairs.size()));
  const double row_top = top + (plot_h - row * static_cast<double>(in.pairs.size())) / 2;
  PlotArea a{label_w, top, width - label_w - 24, plot_h};
  double lo = 1, hi = 1;
  for (const ComparePair& p : in.pairs) {
    for (double v : {p.ratio, p.lo, p.hi})
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (in.result.options.threshold > 0) lo = std::min(lo, 1 - in.result.options.threshold), hi = std::max(hi, 1 + in.result.options.threshold);
  const double pad = (hi - lo) * 0.05 + 0.005;
  const Axis xa = make_axis(ScaleKind::Linear, std::max(0.0, lo - pad), hi + pad, a.x, a.right(), false, false, 6);
  std::vector<LegendEntry> legend;
  for (auto [name, colour, marker] : {std::tuple{"no change / not significant", kNeutral, Marker::Circle},
                                      std::tuple{"improvement", kImprovement, Marker::Triangle},
                                      std::tuple{"regression", kRegression, Marker::Diamond}}) {
    LegendEntry e;
    e.label = name;
    e.colour = colour;
    e.marker = marker;
    legend.push_back(e);
  }
  const double legend_h = legend_height(legend, width - 20);
  svg::Writer w(width, a.bottom() + 46 + legend_h + 8, "plot", "Throughput ratio NEW over BASE per pair");
  draw_x_axis(w, a, xa, "throughput ratio NEW / BASE");
  svg::Style ref;
  ref.stroke = kReference;
  ref.stroke_width = 1.5;
  w.line(xa.scale(1), a.y, xa.scale(1), a.bottom(), ref);
  if (in.result.options.threshold > 0) {
    svg::Style th;
    th.stroke = kReference;
    th.dash = "4 3";
    for (double v : {1 - in.result.options.threshold, 1 + in.result.options.threshold}) w.line(xa.scale(v), a.y, xa.scale(v), a.bottom(), th);
  }
  draw_frame(w, a);
  for (size_t i = 0; i < in.pairs.size(); ++i) {
    const ComparePair& p = in.pairs[i];
    const double y = row_top + row * (i + 0.5);
    const bool improvement = p.verdict == "improvement" && !p.regression;
    const char* colour = p.regression ? kRegression : improvement ? kImprovement : kNeutral;
    if (p.regression) {
      svg::Style band;
      band.fill = "#D55E00";
      band.opacity = 0.12;
      w.rect(a.x + 1, y - row / 2 + 1, a.w - 2, row - 2, band);
    }
    w.open_group("series");
    w.text(a.x - 8, y + 4, p.label, "end", 11, p.regression ? "tick regression" : "tick");
    if (p.hi > p.lo && p.lo > 0) {
      svg::Style bar;
      bar.stroke = colour;
      bar.stroke_width = 2;
      w.line(xa.scale(p.lo), y, xa.scale(p.hi), y, bar);
      w.line(xa.scale(p.lo), y - 5, xa.scale(p.lo), y + 5, bar);
      w.line(xa.scale(p.hi), y - 5, xa.scale(p.hi), y + 5, bar);
    }
    if (p.ratio > 0)
      draw_marker(w, p.regression ? Marker::Diamond : improvement ? Marker::Triangle : Marker::Circle,
                  xa.scale(p.ratio), y, 10, colour, false, fmt::format("{}: ratio {:.3f} ({})", p.label, p.ratio, p.verdict));
    w.close_group();
    f.series.push_back(p.label);
    f.table.rows.push_back({p.label, format_sig(p.base_ips), format_sig(p.new_ips), fmt::format("{:.3f}", p.ratio),
                            p.hi > p.lo ? fmt::format("{:.3f} – {:.3f}{}", p.lo, p.hi, p.interval_from_sides ? " *" : "")
                                        : "-",
                            p.verdict + (p.regression && p.verdict != "regression" ? " (efficiency)" : ""), p.notes});
    f.table.highlight.push_back(p.regression);
  }
  draw_legend(w, 10, a.bottom() + 46, width - 20, legend);
  f.svg = w.finish();
  f.table.headers = {"pair", "BASE " + unit, "NEW " + unit, "ratio", "95 % interval", "verdict", "notes"};
  if (std::any_of(in.pairs.begin(), in.pairs.end(), [](const ComparePair& p) { return p.interval_from_sides; }))
    f.caption += " * The file gives no interval of the ratio; the one shown spans the two sides' 95 % intervals "
                 "(new low / base high to new high / base low), wider than a proper interval of the ratio.";
  return f;
}

}  // namespace

std::vector<Figure> compare_figures(const std::vector<CompareInput>& compares) {
  std::vector<Figure> out;
  for (const CompareInput& c : compares)
    if (!c.pairs.empty()) out.push_back(compare_figure(c));
  return out;
}

}  // namespace mg::plot
