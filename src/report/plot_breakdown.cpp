#include <algorithm>

#include <fmt/format.h>

#include "report/chart_parts.h"
#include "report/plots.h"

namespace mg::plot {

namespace {

// How each part of kBreakdownParts looks here. The additive parts (they tile the step) are stacked in step
// order; the others (overlapped comm, hidden under backward) stand beside the stack.
struct Look {
  const char* key;
  const char* name;
  const char* colour;
};
const Look kLooks[] = {{"input_wait", "input wait", "#56B4E9"},    {"forward", "forward", "#0072B2"},
                       {"backward", "backward", "#009E73"},        {"comm_exposed", "exposed comm", "#D55E00"},
                       {"optimizer", "optimizer", "#E69F00"},      {"comm_overlapped", "overlapped comm", "#CC79A7"}};

Look look(const BreakdownPart& p) {
  for (const Look& l : kLooks)
    if (std::string(l.key) == p.key) return l;
  return {p.key, p.key, "#999999"};  // a part added to the result later still shows, in grey
}

Figure breakdown_figure(const ResultInput& in) {
  const RunResult& r = in.result;
  Figure f;
  f.title = "Step breakdown: " + in.label + (r.kind == "prediction" ? " (predicted)" : "");
  f.caption = "Mean time per step at each entry, split into the five parts that add up to the step time. The "
              "narrow bar beside each stack is all-reduce time overlapped with backward: it is hidden, so it is "
              "not part of the stack.";
  std::vector<LegendEntry> legend;
  for (bool additive : {true, false}) {
    for (const BreakdownPart& p : kBreakdownParts) {
      if (p.additive != additive) continue;
      LegendEntry e;
      e.label = std::string(look(p).name) + (additive ? "" : " (beside: hidden, not in the step)");
      e.colour = look(p).colour;
      e.kind = LegendEntry::Swatch;
      legend.push_back(e);
      f.series.push_back(look(p).name);
    }
  }

  std::vector<std::string> labels;
  double top = 0;
  for (const DeviceCountResult& d : r.runs) {
    labels.push_back(entry_label(r, d));
    double sum = 0;
    for (const BreakdownPart& p : kBreakdownParts) {
      if (p.additive) sum += d.breakdown.*p.field;
      else top = std::max(top, d.breakdown.*p.field);
    }
    top = std::max({top, sum, d.breakdown.total});
  }
  const double width = 860, left = 78, right = 18, ptop = 12, plot_h = 300;
  PlotArea a{left, ptop, width - left - right, plot_h};
  const double slot = a.w / std::max<size_t>(1, labels.size());
  const double cat_h = x_categories_height(labels, slot);
  const double legend_h = legend_height(legend, width - 20);
  svg::Writer w(width, ptop + plot_h + cat_h + legend_h + 10, "plot", "Step breakdown per entry");
  const Axis ya = make_axis(ScaleKind::Linear, 0, 1e3 * top, a.bottom(), a.y, true);
  draw_y_axis(w, a, ya, "time per step (ms)");
  draw_frame(w, a);

  std::vector<double> centres;
  int beside = 0;
  for (const BreakdownPart& p : kBreakdownParts) beside += p.additive ? 0 : 1;
  const double bar = std::min(56.0, slot * 0.42), side = std::min(20.0, slot * 0.16), gap = 3;
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const DeviceCountResult& d = r.runs[i];
    const double c = a.x + slot * (i + 0.5);
    centres.push_back(c);
    const double x0 = c - (bar + beside * (gap + side)) / 2;
    double acc = 0, xs = x0 + bar + gap;
    std::vector<std::string> row = {labels[i]}, beside_cells;
    w.open_group("bar");
    for (const BreakdownPart& p : kBreakdownParts) {
      const double v = d.breakdown.*p.field;
      svg::Style s;
      s.fill = look(p).colour;
      s.stroke = "#ffffff";
      s.stroke_width = 0.8;
      const std::string tip = fmt::format("{}: {} ms", look(p).name, format_ms(v));
      if (p.additive) {
        row.push_back(format_ms(v));
        if (v > 0) {
          const double y1 = ya.scale(1e3 * (acc + v)), y0 = ya.scale(1e3 * acc);
          w.rect(x0, y1, bar, y0 - y1, s, tip);
        }
        acc += v;
      } else {
        beside_cells.push_back(format_ms(v));
        if (v > 0) {
          const double y1 = ya.scale(1e3 * v);
          w.rect(xs, y1, side, a.bottom() - y1, s, tip);
        }
        xs += side + gap;
      }
    }
    w.text(x0 + bar / 2, ya.scale(1e3 * acc) - 5, format_ms(acc) + " ms", "middle", 11, "bar-label");
    w.close_group();
    row.push_back(format_ms(acc));
    row.push_back(format_ms(d.breakdown.total));
    row.insert(row.end(), beside_cells.begin(), beside_cells.end());
    f.table.rows.push_back(row);
  }
  const double used = draw_x_categories(w, a, labels, centres, "entry (devices, transport)");
  draw_legend(w, 10, a.bottom() + used + 4, width - 20, legend);
  f.svg = w.finish();
  f.table.headers = {"entry"};
  for (bool additive : {true, false}) {
    for (const BreakdownPart& p : kBreakdownParts)
      if (p.additive == additive) f.table.headers.push_back(std::string(look(p).name) + " (ms)");
    if (additive) f.table.headers.insert(f.table.headers.end(), {"sum of stacked (ms)", "mean step (ms)"});
  }
  return f;
}

}  // namespace

std::vector<Figure> breakdown_figures(const std::vector<ResultInput>& results) {
  std::vector<Figure> out;
  for (const ResultInput& in : results) {
    bool any = false;
    for (const auto& d : in.result.runs) any = any || d.breakdown.total > 0;
    if (any) out.push_back(breakdown_figure(in));
  }
  return out;
}

}  // namespace mg::plot
