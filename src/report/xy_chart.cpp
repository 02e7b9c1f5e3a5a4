#include "report/xy_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mg::plot {

namespace {

struct Extent {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v, bool positive_only) {
    if (!std::isfinite(v) || (positive_only && v <= 0)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

Axis explicit_axis(const std::vector<double>& ticks, double p0, double p1) {
  Axis a;
  a.scale.kind = ScaleKind::Linear;
  a.scale.p0 = p0;
  a.scale.p1 = p1;
  const double lo = *std::min_element(ticks.begin(), ticks.end());
  const double hi = *std::max_element(ticks.begin(), ticks.end());
  const double pad = std::max(0.35, (hi - lo) * 0.06);  // room for the outer markers
  a.scale.lo = std::max(0.0, lo - pad);
  a.scale.hi = hi + pad;
  // Labels closer than ~28 px to the previous one are dropped (1, 2, 4, 8, 16, 32 on a linear axis).
  double last_px = -1e9;
  std::vector<double> sorted = ticks;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (double t : sorted) {
    const double px = a.scale(t);
    if (std::abs(px - last_px) < 28 && t != sorted.back()) continue;
    if (std::abs(px - last_px) < 28) a.ticks.pop_back(), a.labels.pop_back();
    a.ticks.push_back(t);
    a.labels.push_back(format_tick(t, 1));
    last_px = px;
  }
  return a;
}

}  // namespace

std::string render_xy_chart(const XYChart& c) {
  std::vector<LegendEntry> legend;
  for (const XYSeries& s : c.series) {
    LegendEntry e;
    e.label = s.name;
    e.colour = series_colour(s.style);
    e.marker = series_marker(s.style);
    e.show_marker = !s.reference;
    e.hollow = s.hollow;
    e.dash = s.reference ? "2 3" : s.dashed ? "7 4" : "";
    legend.push_back(e);
  }
  const double left = 78, right = 18, top = 12;
  PlotArea a{left, top, c.width - left - right, c.plot_height};
  const double legend_h = legend_height(legend, c.width - 20);
  const double height = top + c.plot_height + 46 + legend_h + 6;

  Extent xe, ye;
  const bool xlog = c.x_kind != ScaleKind::Linear, ylog = c.y_kind != ScaleKind::Linear;
  for (const XYSeries& s : c.series) {
    for (double v : s.x) xe.add(v, xlog);
    for (double v : s.y) ye.add(v, ylog);
    for (double v : s.lo) ye.add(v, ylog);
    for (double v : s.hi) ye.add(v, ylog);
  }
  for (double v : c.y_reference) ye.add(v * (ylog ? 1 : 1.04), ylog);  // a reference line never sits on the frame
  if (xe.empty()) xe = {1, 2};
  if (ye.empty()) ye = {1, 2};

  Axis xa = !c.x_ticks.empty() && c.x_kind == ScaleKind::Linear
                      ? explicit_axis(c.x_ticks, a.x, a.right())
                      : make_axis(c.x_kind, xe.lo, xe.hi, a.x, a.right(), false, c.x_bytes, 6);
  Axis ya = make_axis(c.y_kind, ye.lo, ye.hi, a.bottom(), a.y, c.y_include_zero && !ylog);
  // Log axes end at the enclosing ticks, often exactly at the data: pad them so no marker sits on the frame.
  for (Axis* ax : {&xa, &ya}) {
    if (ax->scale.kind == ScaleKind::Linear) continue;
    const double f = std::pow(ax->scale.hi / ax->scale.lo, 0.03);
    ax->scale.lo /= f;
    ax->scale.hi *= f;
  }

  svg::Writer w(c.width, height, "plot", c.aria_label);
  draw_y_axis(w, a, ya, c.y_title);
  draw_x_axis(w, a, xa, c.x_title);
  for (double r : c.y_reference) {
    svg::Style s;
    s.stroke = kReference;
    s.dash = "4 3";
    w.line(a.x, ya.scale(r), a.right(), ya.scale(r), s);
  }
  draw_frame(w, a);

  for (const XYSeries& s : c.series) {
    w.open_group("series");
    const std::string colour = series_colour(s.style);
    std::vector<svg::Point> pts;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if ((xlog && s.x[i] <= 0) || (ylog && s.y[i] <= 0)) continue;
      pts.push_back({xa.scale(s.x[i]), ya.scale(s.y[i])});
    }
    svg::Style ls;
    ls.stroke = colour;
    ls.stroke_width = s.reference ? 1.2 : 2;
    ls.dash = s.reference ? "2 3" : s.dashed ? "7 4" : "";
    w.polyline(pts, ls);
    if (!s.reference) {
      for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if ((xlog && s.x[i] <= 0) || (ylog && s.y[i] <= 0)) continue;
        const double x = xa.scale(s.x[i]);
        if (i < s.lo.size() && i < s.hi.size() && s.hi[i] > s.lo[i] && (!ylog || s.lo[i] > 0)) {
          svg::Style es;
          es.stroke = colour;
          es.stroke_width = 1.5;
          const double y0 = ya.scale(s.lo[i]), y1 = ya.scale(s.hi[i]);
          w.line(x, y0, x, y1, es);
          w.line(x - 5, y0, x + 5, y0, es);
          w.line(x - 5, y1, x + 5, y1, es);
        }
        const std::string tip = fmt::format("{}: x = {}, y = {}", s.name,
                                            c.x_bytes ? format_bytes(s.x[i]) : format_sig(s.x[i]),
                                            format_sig(s.y[i]));
        draw_marker(w, series_marker(s.style), x, ya.scale(s.y[i]), 8, colour, s.hollow, tip);
      }
    }
    w.close_group();
  }
  draw_legend(w, 10, a.bottom() + 46, c.width - 20, legend);
  return w.finish();
}

}  // namespace mg::plot
