#include <algorithm>

#include <fmt/format.h>

#include "report/chart_parts.h"
#include "report/plots.h"

namespace mg::plot {

namespace {

struct Part {
  const char* name;
  const char* colour;
  double StepBreakdown::*field;
};

// Bottom to top, in the order a step runs; these five add up to the step time.
const Part kStacked[] = {{"input wait", "#56B4E9", &StepBreakdown::input_wait},
                         {"forward", "#0072B2", &StepBreakdown::forward},
                         {"backward", "#009E73", &StepBreakdown::backward},
                         {"exposed comm", "#D55E00", &StepBreakdown::comm_exposed},
                         {"optimizer", "#E69F00", &StepBreakdown::optimizer}};
const Part kOverlapped = {"overlapped comm (beside: hidden under backward)", "#CC79A7",
                          &StepBreakdown::comm_overlapped};

std::string ms(double s) { return format_sig(1e3 * s); }

Figure breakdown_figure(const ResultInput& in) {
  const RunResult& r = in.result;
  Figure f;
  f.title = "Step breakdown: " + in.label + (r.kind == "prediction" ? " (predicted)" : "");
  f.caption = "Mean time per step at each entry, split into the five parts that add up to the step time. The "
              "narrow bar beside each stack is all-reduce time overlapped with backward: it is hidden, so it is "
              "not part of the stack.";
  std::vector<LegendEntry> legend;
  for (const Part& p : kStacked) {
    LegendEntry e;
    e.label = p.name;
    e.colour = p.colour;
    e.kind = LegendEntry::Swatch;
    legend.push_back(e);
    f.series.push_back(p.name);
  }
  LegendEntry ov;
  ov.label = kOverlapped.name;
  ov.colour = kOverlapped.colour;
  ov.kind = LegendEntry::Swatch;
  legend.push_back(ov);
  f.series.push_back("overlapped comm");

  std::vector<std::string> labels;
  double top = 0;
  for (const DeviceCountResult& d : r.runs) {
    labels.push_back(entry_label(r, d));
    double sum = 0;
    for (const Part& p : kStacked) sum += d.breakdown.*p.field;
    top = std::max({top, sum, d.breakdown.total, d.breakdown.comm_overlapped});
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
  const double bar = std::min(56.0, slot * 0.42), side = std::min(20.0, slot * 0.16), gap = 3;
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const DeviceCountResult& d = r.runs[i];
    const double c = a.x + slot * (i + 0.5);
    centres.push_back(c);
    const double x0 = c - (bar + gap + side) / 2;
    double acc = 0;
    w.open_group("bar");
    for (const Part& p : kStacked) {
      const double v = d.breakdown.*p.field;
      if (v <= 0) continue;
      svg::Style s;
      s.fill = p.colour;
      s.stroke = "#ffffff";
      s.stroke_width = 0.8;
      const double y1 = ya.scale(1e3 * (acc + v)), y0 = ya.scale(1e3 * acc);
      w.rect(x0, y1, bar, y0 - y1, s, fmt::format("{}: {} ms", p.name, ms(v)));
      acc += v;
    }
    if (d.breakdown.comm_overlapped > 0) {
      svg::Style s;
      s.fill = kOverlapped.colour;
      s.stroke = "#ffffff";
      s.stroke_width = 0.8;
      const double y1 = ya.scale(1e3 * d.breakdown.comm_overlapped);
      w.rect(x0 + bar + gap, y1, side, a.bottom() - y1, s,
             fmt::format("overlapped comm: {} ms", ms(d.breakdown.comm_overlapped)));
    }
    w.text(x0 + bar / 2, ya.scale(1e3 * acc) - 5, ms(acc) + " ms", "middle", 11, "bar-label");
    w.close_group();
    f.table.rows.push_back({labels[i], ms(d.breakdown.input_wait), ms(d.breakdown.forward), ms(d.breakdown.backward),
                            ms(d.breakdown.comm_exposed), ms(d.breakdown.optimizer), ms(acc),
                            ms(d.breakdown.total), ms(d.breakdown.comm_overlapped)});
  }
  const double used = draw_x_categories(w, a, labels, centres, "entry (devices, transport)");
  draw_legend(w, 10, a.bottom() + used + 4, width - 20, legend);
  f.svg = w.finish();
  f.table.headers = {"entry", "input wait (ms)", "forward (ms)", "backward (ms)", "exposed comm (ms)",
                     "optimizer (ms)", "sum of five (ms)", "mean step (ms)", "overlapped comm (ms)"};
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
