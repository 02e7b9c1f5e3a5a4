#include <map>

#include <fmt/format.h>

#include "report/plots.h"
#include "report/xy_chart.h"

namespace mg::plot {

namespace {

std::vector<Figure> comm_file_figures(const CommInput& in) {
  // One series per transport, op and placement; both placements of one transport and op share a colour.
  std::vector<std::string> order;
  std::map<std::string, XYSeries> busbw, time;
  std::map<std::string, int> colour_of;
  Figure bw, lat;
  for (const CommRow& r : in.result.rows) {
    const std::string group = r.transport + " " + r.op;
    if (!colour_of.count(group)) colour_of.emplace(group, static_cast<int>(colour_of.size()));
    const std::string name = fmt::format("{} ({}, {} ranks)", group, r.in_place ? "in-place" : "out-of-place",
                                         r.devices);
    if (!busbw.count(name)) {
      order.push_back(name);
      XYSeries s;
      s.name = name;
      s.style = colour_of[group];
      s.hollow = s.dashed = r.in_place;
      busbw[name] = s;
      time[name] = s;
    }
    busbw[name].x.push_back(static_cast<double>(r.bytes));
    busbw[name].y.push_back(r.busbw_GBps);
    time[name].x.push_back(static_cast<double>(r.bytes));
    time[name].y.push_back(r.time_us);
    bw.table.rows.push_back({r.transport, r.op, r.in_place ? "in-place" : "out-of-place", r.dtype,
                             format_bytes(static_cast<double>(r.bytes)), format_sig(r.time_us), format_sig(r.algbw_GBps),
                             format_sig(r.busbw_GBps), std::to_string(r.wrong)});
    bw.table.highlight.push_back(r.wrong != 0);
  }
  XYChart b;
  b.aria_label = "Bus bandwidth versus message size";
  b.x_kind = ScaleKind::Log2;
  b.x_bytes = true;
  b.x_title = "message size (bytes, log scale)";
  b.y_title = "bus bandwidth (GB/s)";
  XYChart t = b;
  t.aria_label = "Time per collective versus message size";
  t.y_kind = ScaleKind::Log10;
  t.y_include_zero = false;
  t.y_title = "time per collective (µs, log scale)";
  for (const std::string& n : order) {
    b.series.push_back(busbw[n]);
    t.series.push_back(time[n]);
    bw.series.push_back(n);
    lat.series.push_back(n);
  }
  bw.title = "Bus bandwidth vs message size: " + in.label;
  bw.caption = "busbw as nccl-tests defines it (algbw times 2(n−1)/n for all-reduce), GB/s = 1e9 bytes/s. Solid: "
               "out-of-place; dashed with hollow markers: in-place.";
  bw.table.headers = {"transport", "op", "placement", "dtype", "size", "time (µs)", "algbw (GB/s)", "busbw (GB/s)",
                      "#wrong"};
  bw.svg = render_xy_chart(b);
  lat.title = "Time per collective vs message size: " + in.label;
  lat.caption = "Mean time of one collective over the timed iterations (log-log): the flat left part is latency, "
                "the rising right part bandwidth. The numbers are in the table above.";
  lat.svg = render_xy_chart(t);
  return {bw, lat};
}

}  // namespace

std::vector<Figure> comm_figures(const std::vector<CommInput>& comms) {
  std::vector<Figure> out;
  for (const CommInput& c : comms) {
    auto f = comm_file_figures(c);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

}  // namespace mg::plot
