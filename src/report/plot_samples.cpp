#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/chart_parts.h"
#include "report/plots.h"

namespace mg::plot {

namespace {

constexpr size_t kMaxDots = 2000;  // per entry; more are thinned evenly (the table keeps every statistic)

Figure samples_figure(const ResultInput& in) {
  const RunResult& r = in.result;
  Figure f;
  f.title = "Step-time distribution: " + in.label;
  f.caption = "Every timed step (warm-up excluded), one dot each, spread sideways so they do not overlap. Black "
              "bar: median; box: its 95 % confidence interval.";
  std::vector<const DeviceCountResult*> entries;
  std::vector<std::string> labels;
  double lo = 1e300, hi = 0;
  for (const DeviceCountResult& d : r.runs) {
    if (d.samples.empty()) continue;
    entries.push_back(&d);
    labels.push_back(entry_label(r, d));
    for (const StepBreakdown& s : d.samples) {
      lo = std::min(lo, s.total);
      hi = std::max(hi, s.total);
    }
  }
  const double width = 860, left = 78, right = 18, top = 12, plot_h = 280;
  PlotArea a{left, top, width - left - right, plot_h};
  const double slot = a.w / std::max<size_t>(1, labels.size());
  const double cat_h = x_categories_height(labels, slot);
  svg::Writer w(width, top + plot_h + cat_h + 8, "plot", "Step-time distribution per entry");
  const Axis ya = make_axis(ScaleKind::Linear, 1e3 * lo, 1e3 * hi, a.bottom(), a.y, false);
  draw_y_axis(w, a, ya, "step time (ms)");
  draw_frame(w, a);
  std::vector<double> centres;
  bool thinned = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    const DeviceCountResult& d = *entries[i];
    const double c = a.x + slot * (i + 0.5), spread = std::min(80.0, slot * 0.6);
    centres.push_back(c);
    const std::string colour = series_colour(static_cast<int>(i));
    w.open_group("series");
    svg::Style dot;
    dot.fill = colour;
    dot.opacity = 0.6;
    const size_t n = d.samples.size(), stride = (n + kMaxDots - 1) / kMaxDots;
    thinned = thinned || stride > 1;
    for (size_t k = 0; k < n; k += stride) {
      // Golden-ratio sequence: even, deterministic sideways spread.
      const double u = std::fmod(static_cast<double>(k) * 0.6180339887, 1.0) - 0.5;
      w.circle(c + u * spread, ya.scale(1e3 * d.samples[k].total), n > 300 ? 2.2 : 3, dot);
    }
    const StepStats& s = d.step_time;
    if (s.ci95_hi_s > s.ci95_lo_s && s.ci95_lo_s > 0) {
      svg::Style box;
      box.stroke = kInk;
      box.stroke_width = 1.2;
      const double y1 = ya.scale(1e3 * s.ci95_hi_s), y0 = ya.scale(1e3 * s.ci95_lo_s);
      w.rect(c - spread / 2 - 6, y1, spread + 12, y0 - y1, box,
             fmt::format("95 % CI of the median: {} – {} ms", format_ms(s.ci95_lo_s), format_ms(s.ci95_hi_s)));
    }
    svg::Style med;
    med.stroke = kInk;
    med.stroke_width = 2.5;
    w.line(c - spread / 2 - 8, ya.scale(1e3 * s.median_s), c + spread / 2 + 8, ya.scale(1e3 * s.median_s), med);
    w.close_group();
    f.series.push_back(labels[i]);
    const std::string ci = s.ci95_lo_s > 0 ? format_ms(s.ci95_lo_s) + " – " + format_ms(s.ci95_hi_s) : "-";
    const std::string runs = s.process_runs > 1 ? fmt::format(" ({} runs)", s.process_runs) : "";
    f.table.rows.push_back({labels[i], std::to_string(n), format_ms(s.median_s), ci, format_ms(s.p5_s),
                            format_ms(s.p95_s), format_ms(s.jitter_s), s.ci95_method + runs});
  }
  draw_x_categories(w, a, labels, centres, "entry (devices, transport)");
  f.svg = w.finish();
  if (thinned) f.caption += fmt::format(" Entries with more than {} steps show an even subset.", kMaxDots);
  f.table.headers = {"entry", "steps", "median (ms)", "95 % CI (ms)", "p5 (ms)", "p95 (ms)", "jitter (ms)",
                     "CI method"};
  return f;
}

}  // namespace

std::vector<Figure> sample_figures(const std::vector<ResultInput>& results) {
  std::vector<Figure> out;
  for (const ResultInput& in : results) {
    bool any = false;
    for (const auto& d : in.result.runs) any = any || !d.samples.empty();
    if (any) out.push_back(samples_figure(in));
  }
  return out;
}

}  // namespace mg::plot
