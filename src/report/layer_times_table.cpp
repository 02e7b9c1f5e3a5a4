#include "report/layer_times_table.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace mg {

std::string format_layer_times(const RunResult& r, int slowest) {
  const DeviceCountResult* d = nullptr;
  for (const DeviceCountResult& e : r.runs)
    if (!e.layer_times.empty()) d = &e;
  if (!d) return "";
  struct Kind {
    int layers = 0;
    double forward_s = 0, backward_s = 0;
  };
  std::map<std::string, Kind> kinds;
  double total = 0;
  for (const LayerTime& t : d->layer_times) {
    Kind& k = kinds[t.kind];
    ++k.layers;
    k.forward_s += t.forward_s;
    k.backward_s += t.backward_s;
    total += t.forward_s + t.backward_s;
  }
  std::vector<std::pair<std::string, Kind>> rows(kinds.begin(), kinds.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.forward_s + a.second.backward_s > b.second.forward_s + b.second.backward_s;
  });
  std::string out = fmt::format(
      "time by layer kind, last warm-up step (replica 0, {} device{}{}): {:.2f} ms of forward, loss and backward{}\n",
      d->devices, d->devices == 1 ? "" : "s", d->transport == "default" ? "" : " " + d->transport, 1e3 * total,
      r.config.warmup == 1 ? " (the run's first step: one-time set-up included; --warmup 2 or more excludes it)" : "");
  out += fmt::format("  {:<16} {:>6} {:>10} {:>10} {:>7}\n", "kind", "layers", "fwd ms", "bwd ms", "share");
  for (const auto& [name, k] : rows)
    out += fmt::format("  {:<16} {:>6} {:>10.3f} {:>10.3f} {:>6.1f}%\n", name, k.layers, 1e3 * k.forward_s,
                       1e3 * k.backward_s, total > 0 ? 100 * (k.forward_s + k.backward_s) / total : 0.0);
  std::vector<LayerTime> by_time = d->layer_times;
  std::stable_sort(by_time.begin(), by_time.end(), [](const LayerTime& a, const LayerTime& b) {
    return a.forward_s + a.backward_s > b.forward_s + b.backward_s;
  });
  std::string names;
  for (int i = 0; i < slowest && i < static_cast<int>(by_time.size()); ++i)
    names += fmt::format("{}{} ({}) {:.3f} ms", i ? ", " : "", by_time[i].name, by_time[i].kind,
                         1e3 * (by_time[i].forward_s + by_time[i].backward_s));
  if (!names.empty()) out += "  slowest layers: " + names + "\n";
  return out;
}

}  // namespace mg
