#include "report/table.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "result/breakdown.h"
#include "result/rate_unit.h"

namespace mg {

namespace {

std::string devices_summary(const Environment& e) {
  if (e.devices.empty()) return "";
  // "2x NVIDIA H100 80GB HBM3" reads better than repeating identical names.
  std::map<std::string, int> count;
  for (const DeviceInfo& d : e.devices) ++count[d.name];
  std::string out;
  for (const auto& [name, n] : count) {
    if (!out.empty()) out += ", ";
    out += n > 1 ? fmt::format("{}x {}", n, name) : name;
  }
  return out;
}

std::string efficiency_cell(const DeviceCountResult& r) {
  // 0 means "no 1-device baseline of this transport" (compute_scaling), not zero efficiency.
  return r.scaling_efficiency > 0 ? fmt::format("{:.1f}", 100 * r.scaling_efficiency) : "-";
}

std::string busbw_cell(const DeviceCountResult& r) {
  if (r.devices <= 1 || r.allreduce.time_s <= 0) return "-";
  return fmt::format("{:.2f}", r.allreduce.busbw_GBps);
}

}  // namespace

std::string format_table(const RunResult& r) {
  const RunConfig& c = r.config;
  // A language model's headline is tokens/s; its batch is of sequences.
  const int64_t seq = r.runs.empty() ? 0 : r.runs.front().tokens_per_sample;
  const RateUnit unit = r.runs.empty() ? RateUnit{} : rate_unit(r.runs.front());
  std::string out = fmt::format("{} {} on {}{}, batch {}{} {}, {} steps x{} (warm-up {}){}, host {}", c.model,
                                precision_name(c.precision), device_kind_name(c.device),
                                c.forward_only  ? " (forward only)"
                                : c.input_only  ? " (input only)"
                                : c.optimizer == Optimizer::AdamW ? " (AdamW)"
                                                                  : "",
                                c.batch_size, seq > 0 ? fmt::format(" x {} tokens", seq) : "",
                                c.scaling == Scaling::Weak ? "per device" : "global", c.steps,
                                c.repeat, c.warmup,
                                c.runs > 1 ? fmt::format(", {} runs in fresh processes", c.runs) : "",
                                r.env.host.empty() ? "?" : r.env.host);
  const std::string devs = devices_summary(r.env);
  if (!devs.empty()) out += ", " + devs;
  else if (!r.env.cpu.empty()) out += ", " + r.env.cpu;
  out += fmt::format(", mgbench {} ({})\n", r.env.mgbench_version, r.env.git_commit);

  out += fmt::format("{:>7} {:<10} {:>10} {:>10} {:>6} {:>20}", "devices", "transport", unit.total, unit.per_device,
                     "eff%", "step ms (med ± ci95)");
  for (const BreakdownPart& p : kBreakdownParts) out += fmt::format(" {:>6}", std::string(p.label) + "%");
  out += fmt::format(" {:>10}\n", "busbw GB/s");
  for (const DeviceCountResult& d : r.runs) {
    const StepBreakdown s = breakdown_shares(d.breakdown);
    const std::string step =
        fmt::format("{:.2f} ± {:.2f}", 1e3 * d.step_time.median_s, 1e3 * d.step_time.ci95_s);
    const double per_sample = rate_unit(d).per_sample;
    out += fmt::format("{:>7} {:<10} {:>10.1f} {:>10.1f} {:>6} {:>20}", d.devices, d.transport,
                       d.images_per_sec * per_sample, d.images_per_sec_per_device * per_sample, efficiency_cell(d),
                       step);
    for (const BreakdownPart& p : kBreakdownParts) out += fmt::format(" {:>6.1f}", 100 * (s.*p.field));
    out += fmt::format(" {:>10}\n", busbw_cell(d));
  }
  // Model FLOPs utilisation, where the device's peak is known: one line when every entry has the same peak.
  const bool one_peak = std::all_of(r.runs.begin(), r.runs.end(), [&](const DeviceCountResult& d) {
    return d.peak_flops_source == r.runs.front().peak_flops_source;
  });
  std::string mfu;
  for (const DeviceCountResult& d : r.runs) {
    if (!(d.mfu > 0)) continue;
    const std::string entry = fmt::format("{} device{}{}", d.devices, d.devices == 1 ? "" : "s",
                                          d.transport == "default" ? "" : " " + d.transport);
    if (one_peak) mfu += fmt::format("{}{:.1f} % ({})", mfu.empty() ? "" : ", ", 100 * d.mfu, entry);
    else
      out += fmt::format("model FLOPs utilisation, {}: {:.1f} % of the {}\n", entry, 100 * d.mfu, d.peak_flops_source);
  }
  if (!mfu.empty())
    out += fmt::format("model FLOPs utilisation: {} of the {}\n", mfu, r.runs.front().peak_flops_source);
  // Winograd does fewer multiplies than the direct convolution the model FLOPs count, so MFU overstates the work done.
  // The CPU backend names the algorithm "winograd", cuDNN's keys hold it ("fwd:winograd_nonfused/...").
  const bool winograd_mfu = std::any_of(r.runs.begin(), r.runs.end(), [](const DeviceCountResult& d) {
    return d.mfu > 0 && std::any_of(d.conv_algorithms.begin(), d.conv_algorithms.end(), [](const auto& a) {
             return a.first.find("winograd") != std::string::npos;
           });
  });
  if (winograd_mfu)
    out += "  (Winograd layers are counted at direct-convolution FLOPs: the arithmetic executed is less; "
           "docs/results.md)\n";
  // Which kernels ran: two machines, or two oneDNN builds, can time their way to different algorithms, and so can
  // entries of one sweep (a replica's thread count is part of what is timed).
  const std::string how = c.cpu_conv_algo == CpuConvAlgo::Fastest
                              ? std::string("the faster per shape, timed at set-up")
                              : std::string("--cpu-conv-algo ") + kCpuConvAlgoNames.name(c.cpu_conv_algo);
  const bool same = std::all_of(r.runs.begin(), r.runs.end(), [&](const DeviceCountResult& d) {
    return d.conv_algorithms == r.runs.front().conv_algorithms;
  });
  for (const DeviceCountResult& d : r.runs) {
    if (d.conv_algorithms.empty()) continue;
    std::string algos;
    for (const auto& [name, n] : d.conv_algorithms) algos += fmt::format("{}{} {}", algos.empty() ? "" : ", ", n, name);
    out += same ? fmt::format("convolution layers: {} ({})\n", algos, how)
                : fmt::format("convolution layers, {} device(s) {}: {} ({})\n", d.devices, d.transport, algos, how);
    if (same) break;
  }
  return out;
}

}  // namespace mg
