#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/plots.h"
#include "report/xy_chart.h"
#include "result/rate_unit.h"

namespace mg::plot {

namespace {

struct Curve {
  std::string name;
  bool predicted = false;
  std::vector<const DeviceCountResult*> points;  // by device count
};

bool several_transports(const RunResult& r) {
  std::set<std::string> t;
  for (const auto& d : r.runs) t.insert(d.transport);
  return t.size() > 1;
}

std::vector<Curve> curves(const std::vector<ResultInput>& results) {
  std::vector<Curve> out;
  for (const ResultInput& in : results) {
    const bool predicted = in.result.kind == "prediction";
    std::vector<std::string> order;
    std::map<std::string, Curve> by_transport;
    for (const DeviceCountResult& d : in.result.runs) {
      if (!by_transport.count(d.transport)) order.push_back(d.transport);
      by_transport[d.transport].points.push_back(&d);
    }
    for (const std::string& t : order) {
      Curve c = by_transport[t];
      std::string name = results.size() > 1 ? in.label : std::string();
      if (several_transports(in.result) || t != "default") name += (name.empty() ? "" : " · ") + t;
      if (name.empty()) name = in.result.config.model;
      if (predicted) name += " (predicted)";
      c.name = name;
      c.predicted = predicted;
      std::sort(c.points.begin(), c.points.end(),
                [](const DeviceCountResult* a, const DeviceCountResult* b) { return a->devices < b->devices; });
      out.push_back(std::move(c));
    }
  }
  return out;
}

// The CI of the median step time, carried to samples/s around the plotted throughput: ips * median / hi ..
// ips * median / lo. Predictions and runs without an interval get none.
bool throughput_ci(const Curve& c, const DeviceCountResult& d, double& lo, double& hi) {
  const StepStats& s = d.step_time;
  if (c.predicted || !(s.ci95_lo_s > 0) || !(s.ci95_hi_s >= s.ci95_lo_s) || !(s.median_s > 0)) return false;
  lo = d.images_per_sec * s.median_s / s.ci95_hi_s;
  hi = d.images_per_sec * s.median_s / s.ci95_lo_s;
  return true;
}

}  // namespace

std::string entry_label(const RunResult& r, const DeviceCountResult& d) {
  std::string l = fmt::format("{} dev", d.devices);
  if (several_transports(r) || d.transport != "default") l += " " + d.transport;
  return l;
}

std::vector<Figure> scaling_figures(const std::vector<ResultInput>& results) {
  const std::vector<Curve> cs = curves(results);
  std::vector<double> counts;
  bool multi = false;
  for (const Curve& c : cs)
    for (const auto* d : c.points) {
      counts.push_back(d->devices);
      multi = multi || d->devices > 1;
    }
  if (counts.empty()) return {};
  // Rates count samples: images, or a language model's sequences, which also get a tokens/s column.
  std::vector<RateUnit> units;
  bool tokens = false;
  for (const Curve& c : cs)
    for (const auto* d : c.points) {
      units.push_back(rate_unit(*d));
      tokens = tokens || d->tokens_per_sample > 0;
    }
  const std::string unit = common_rate_unit(units).samples;

  XYChart tp;
  tp.aria_label = "Throughput versus device count";
  tp.x_title = "devices";
  tp.y_title = "throughput (" + unit + ")";
  tp.x_ticks = counts;
  XYChart eff = tp;
  eff.aria_label = "Scaling efficiency versus device count";
  eff.y_title = "scaling efficiency (%)";
  eff.y_reference = {100};

  Figure f1, f2;
  f1.title = "Throughput vs device count";
  f1.caption = "Throughput in " + unit +
               " (all devices) at each device count. Error bars: the 95 % confidence interval of the median step "
               "time, carried to " + unit + ". Dotted: ideal scaling, N times the 1-device throughput "
               "of the same series. Dashed lines with hollow markers are predictions.";
  f2.title = "Scaling efficiency";
  f2.caption = "Throughput at N devices divided by N times the 1-device throughput of the same series; 100 % is "
               "perfect scaling.";
  f1.table.headers = {"series", "devices", unit, "95 % CI", unit + " per device", "efficiency", "step median"};
  if (tokens) f1.table.headers.push_back(rate_unit(1).total);
  f2.table.headers = {"series", "devices", "efficiency", "speed-up"};

  int style = 0;
  for (const Curve& c : cs) {
    XYSeries s;
    s.name = c.name;
    s.style = style;
    s.dashed = s.hollow = c.predicted;
    XYSeries e = s;
    for (const DeviceCountResult* d : c.points) {
      s.x.push_back(d->devices);
      s.y.push_back(d->images_per_sec);
      double lo = 0, hi = 0;
      const bool has_ci = throughput_ci(c, *d, lo, hi);
      s.lo.push_back(lo);
      s.hi.push_back(hi);
      f1.table.rows.push_back({c.name, std::to_string(d->devices), format_sig(d->images_per_sec),
                               has_ci ? format_sig(lo) + " – " + format_sig(hi) : "-",
                               format_sig(d->images_per_sec_per_device),
                               d->scaling_efficiency > 0 ? fmt::format("{:.1f} %", 100 * d->scaling_efficiency) : "-",
                               d->step_time.median_s > 0 ? format_sig(1e3 * d->step_time.median_s) + " ms" : "-"});
      if (tokens) f1.table.rows.back().push_back(d->tokens_per_sample > 0 ? format_sig(d->tokens_per_sec) : "-");
      if (d->scaling_efficiency > 0) {
        e.x.push_back(d->devices);
        e.y.push_back(100 * d->scaling_efficiency);
        f2.table.rows.push_back({c.name, std::to_string(d->devices),
                                 fmt::format("{:.1f} %", 100 * d->scaling_efficiency),
                                 fmt::format("{:.2f}×", d->speedup)});
      }
    }
    tp.series.push_back(s);
    f1.series.push_back(s.name);
    if (!e.x.empty()) {
      eff.series.push_back(e);
      f2.series.push_back(e.name);
    }
    // Ideal: N x the 1-device throughput of this series, for measured series that have one.
    const auto one = std::find_if(c.points.begin(), c.points.end(),
                                  [](const DeviceCountResult* d) { return d->devices == 1; });
    if (!c.predicted && one != c.points.end() && c.points.back()->devices > 1) {
      XYSeries ideal;
      ideal.name = "ideal (" + c.name + ")";
      ideal.style = style;
      ideal.reference = true;
      ideal.x = {1.0, static_cast<double>(c.points.back()->devices)};
      ideal.y = {(*one)->images_per_sec, (*one)->images_per_sec * c.points.back()->devices};
      tp.series.push_back(ideal);
    }
    ++style;
  }
  f1.svg = render_xy_chart(tp);
  std::vector<Figure> out = {f1};
  if (multi && !eff.series.empty()) {
    f2.svg = render_xy_chart(eff);
    out.push_back(f2);
  }
  return out;
}

}  // namespace mg::plot
