#include "predict/link_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/ends_with.h"
#include "core/error.h"
#include "predict/gloo_tcp_cost.h"
#include "result/comm_result_json.h"

namespace mg {

namespace {

// NCCL's own ring/Simple per-step latencies (src/graph/tuning.cc, hwLat: NVLink 3.4 us, PCI 5.7 us, NET 9.6 us).
constexpr double kNvlLatUs = 3.4, kPciLatUs = 5.7, kNetLatUs = 9.6;

const char* kNcclLat = "latency: NCCL ring/Simple hwLat, src/graph/tuning.cc";

}  // namespace

const std::vector<LinkPreset>& link_presets() {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  // nccl-tests figures read for these presets (docs/predict.md compares each with the model's own busbw).
  const PublishedBusbw none_nvlink{0, 0, 0, 0, 0, "", "none found: no nccl-tests all-reduce busbw for this system read"};
  const PublishedBusbw none_pcie{0, 0, 0, 0, 0, "", "none found: no nccl-tests all-reduce busbw for this link read"};
  const PublishedBusbw none_net{0, 0, 0, 0, 0, "", "none found: no nccl-tests all-reduce busbw over this network read"};
  const PublishedBusbw a100{
      200, 8, kGiB, 0, 0, "",
      "NVIDIA/nccl-tests GitHub issue 'Expected bandwidth results? A100 GPUs over NVLink' (2023-06-27): HPE Apollo "
      "6500, 8x A100-SXM4-80GB, NCCL 2.18, all_reduce_perf -b 8 -e 1G: busbw ~200 GB/s at 1 GiB"};
  const PublishedBusbw h100{
      370, 8, kGiB, 0, 0, "",
      "NVIDIA/nccl-tests GitHub issue 'H100 all reduce performance is poor' (2024-05-06), NCCL maintainer's reply: "
      "8x H100 SXM, NCCL_ALGO=RING, busbw ~370 GB/s at large sizes (line rate 450 less ~20 % protocol overhead); "
      "size not stated, taken as 1 GiB"};
  const PublishedBusbw rtx4090{
      25.95, 4, kGiB, 0, 0, "",
      "tinygrad/open-gpu-kernel-modules GitHub issue 'RTX 4090D 48GB support?' (comment by ChihayaK): 4x RTX 4090 "
      "on PCIe 4.0 with tinygrad's P2P driver, all_reduce_perf -b 256M -e 2G -g 4: busbw 25.95 GB/s at 1 GiB"};
  const PublishedBusbw rtx5090{
      28, 8, kGiB, 0, 0, "",
      "NVIDIA/nccl GitHub issue 'The performance of NCCL All-Reduce across 8 NVIDIA 5090 GPUs is extremely poor' "
      "(2025-03-14): 8x RTX 5090 on PCIe 5.0, all_reduce_perf -b 1g -e 8g -g 8: max busbw 28 GB/s (4 GPUs: 35); "
      "NCCL's maintainer: PCI systems are bound by what CPU and memory deliver; size not stated, taken as 1 GiB"};
  const PublishedBusbw hdr{
      91, 16, kGiB, 8, 4, "nvlink3",
      "NVIDIA/nccl-tests GitHub issue 'HGX A100 can not reach peak bandwidth on 2nd Gen NVSwitch ?' (comment "
      "2022-01-17): 2 HGX A100-SXM-80GB nodes, 4 ConnectX-6 HDR 200 Gb/s each, 16 ranks, all_reduce_perf -b 1G "
      "-e 8G: busbw 91 GB/s; size not stated, taken as 1 GiB"};
  const PublishedBusbw ndr{
      250, 16, kGiB, 8, 8, "nvlink4",
      "NVIDIA/nccl-tests GitHub issue 'Acceptable performance of nccl-test on 2 HGX hosts?' (2025-05-20): 2 Dell "
      "XE9680 (8x H100, 8x ConnectX-7 400 Gb/s), NCCL 2.26, 16 ranks: busbw up to 250 GB/s, which the reporter "
      "doubts is as good as it gets; size not stated, taken as 1 GiB"};
  // The "-nccl" presets model the bus bandwidth nccl-tests reached, not the line rate: datasheet rates are 1.1-2.3x it.
  static const std::vector<LinkPreset> presets = {
      {"nvlink1", 80, kNvlLatUs, "NVLink 1 (P100 SXM2: 4 links x 20 GB/s per direction)",
       "NVIDIA Tesla P100 whitepaper (160 GB/s bidirectional)", none_nvlink},
      {"nvlink2", 150, kNvlLatUs, "NVLink 2 (V100 SXM2: 6 links x 25 GB/s per direction)",
       "NVIDIA Tesla V100 datasheet (300 GB/s bidirectional)", none_nvlink},
      {"nvlink3", 300, kNvlLatUs, "NVLink 3 (A100 SXM: 12 links x 25 GB/s per direction)",
       "NVIDIA A100 datasheet (600 GB/s bidirectional)", a100},
      {"nvlink4", 450, kNvlLatUs, "NVLink 4 (H100 SXM: 18 links x 25 GB/s per direction)",
       "NVIDIA H100 datasheet (900 GB/s bidirectional)", h100},
      {"nvlink5", 900, kNvlLatUs, "NVLink 5 (B200: 18 links x 50 GB/s per direction)",
       "NVIDIA Blackwell datasheet (1.8 TB/s bidirectional)", none_nvlink},
      {"pcie3", 15.75, kPciLatUs, "PCIe 3.0 x16 (8 GT/s x 16 lanes, 128b/130b)", "PCI-SIG PCIe 3.0 base spec",
       none_pcie},
      {"pcie4", 31.5, kPciLatUs, "PCIe 4.0 x16 (16 GT/s x 16 lanes, 128b/130b)", "PCI-SIG PCIe 4.0 base spec",
       rtx4090},
      {"pcie5", 63.0, kPciLatUs, "PCIe 5.0 x16 (32 GT/s x 16 lanes, 128b/130b)", "PCI-SIG PCIe 5.0 base spec",
       rtx5090},
      {"pcie3-switch", 7.875, kPciLatUs, "two GPUs behind one PCIe 3.0 x16 switch uplink (half each)",
       "PCI-SIG PCIe 3.0 base spec; PLX/Broadcom PEX switch topologies", none_pcie},
      {"pcie4-switch", 15.75, kPciLatUs, "two GPUs behind one PCIe 4.0 x16 switch uplink (half each)",
       "PCI-SIG PCIe 4.0 base spec; Broadcom PEX88000 switch topologies", none_pcie},
      {"pcie5-switch", 31.5, kPciLatUs, "two GPUs behind one PCIe 5.0 x16 switch uplink (half each)",
       "PCI-SIG PCIe 5.0 base spec; Broadcom PEX89000 switch topologies", none_pcie},
      {"ib-edr", 12.5, kNetLatUs, "InfiniBand EDR 4x, 100 Gb/s per port", "InfiniBand Trade Association roadmap",
       none_net},
      {"ib-hdr", 25, kNetLatUs, "InfiniBand HDR 4x, 200 Gb/s per port", "InfiniBand Trade Association roadmap", hdr},
      {"ib-ndr", 50, kNetLatUs, "InfiniBand NDR 4x, 400 Gb/s per port", "InfiniBand Trade Association roadmap", ndr},
      {"10gbe", 1.25, kNetLatUs, "10 Gigabit Ethernet", "IEEE 802.3ae", none_net},
      {"25gbe", 3.125, kNetLatUs, "25 Gigabit Ethernet", "IEEE 802.3by", none_net},
      {"100gbe", 12.5, kNetLatUs, "100 Gigabit Ethernet", "IEEE 802.3ba/802.3bj", none_net},
      {"400gbe", 50, kNetLatUs, "400 Gigabit Ethernet", "IEEE 802.3bs", none_net},
      {"nvlink3-nccl", 200, kNvlLatUs, "NVLink 3 (A100 SXM) at the all-reduce busbw nccl-tests reached",
       "the published busbw beside it", a100},
      {"nvlink4-nccl", 370, kNvlLatUs, "NVLink 4 (H100 SXM) at NCCL's ring busbw",
       "the published busbw beside it", h100},
      {"pcie4-nccl", 25.95, kPciLatUs, "PCIe 4.0 x16 at the all-reduce busbw nccl-tests reached",
       "the published busbw beside it", rtx4090},
      {"pcie5-nccl", 28, kPciLatUs, "PCIe 5.0 x16 at the all-reduce busbw nccl-tests reached",
       "the published busbw beside it", rtx5090},
      {"ib-hdr-nccl", 91.0 / 4, kNetLatUs, "InfiniBand HDR per NIC at a quarter of the busbw 4 NICs reached",
       "the published busbw beside it", hdr},
  };
  return presets;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "<number><unit>": the number and the rest, lower-cased; UsageError when there is no number.
std::pair<double, std::string> number_unit(const std::string& text, const std::string& what) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError(what + ": '" + text + "' is not a number with a unit");
  }
  if (!std::isfinite(v)) throw UsageError(what + ": '" + text + "' is not finite");
  return {v, lower(text.substr(used))};
}

double parse_rate(const std::string& text, const std::string& what) {
  auto [v, unit] = number_unit(text, what);
  double scale = 0;
  if (unit.empty() || unit == "gb/s" || unit == "gbps" || unit == "gbyte/s") scale = 1e9;
  else if (unit == "mb/s" || unit == "mbyte/s") scale = 1e6;
  else if (unit == "tb/s") scale = 1e12;
  else if (unit == "b/s") scale = 1;
  else if (unit == "gbit" || unit == "gbit/s") scale = 1e9 / 8;
  else if (unit == "mbit" || unit == "mbit/s") scale = 1e6 / 8;
  else if (unit == "kbit" || unit == "kbit/s") scale = 1e3 / 8;
  else if (unit == "tbit" || unit == "tbit/s") scale = 1e12 / 8;
  else
    throw UsageError(what + ": unknown rate unit '" + unit + "' (GB/s, MB/s, B/s, Gbit, Mbit, kbit)");
  if (!(v > 0)) throw UsageError(what + ": the bandwidth must be positive, not '" + text + "'");
  return v * scale;
}

double parse_time(const std::string& text, const std::string& what) {
  auto [v, unit] = number_unit(text, what);
  double scale = 0;
  if (unit.empty() || unit == "us") scale = 1e-6;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "ns") scale = 1e-9;
  else if (unit == "s") scale = 1;
  else
    throw UsageError(what + ": unknown time unit '" + unit + "' (s, ms, us, ns)");
  if (v < 0) throw UsageError(what + ": the latency must not be negative, not '" + text + "'");
  return v * scale;
}

LinkTransport parse_transport(const std::string& text, const std::string& option) {
  const std::string t = lower(text);
  if (t == "ideal") return LinkTransport::Ideal;
  if (t == "gloo-tcp") return LinkTransport::GlooTcp;
  throw UsageError(option + " transport: '" + text + "' is not one of: ideal, gloo-tcp");
}

double parse_mtu(const std::string& text, const std::string& option) {
  auto [v, unit] = number_unit(text, option + " mtu");
  if (!unit.empty() && unit != "b") throw UsageError(option + " mtu: '" + text + "' is a size in bytes");
  // IPv4 needs 68 bytes (RFC 791); 65535 is the largest IPv4 packet.
  if (!(v >= 68 && v <= 65535)) throw UsageError(option + " mtu: '" + text + "' is not between 68 and 65535 bytes");
  return v;
}

// A size as tc writes it: bytes, or kb/mb (1024-based, as tc(8) reads "kb"); 0 allowed (no bucket).
double parse_size(const std::string& text, const std::string& what) {
  auto [v, unit] = number_unit(text, what);
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "kb" || unit == "k") scale = 1024;
  else if (unit == "mb" || unit == "m") scale = 1024.0 * 1024;
  else
    throw UsageError(what + ": unknown size unit '" + unit + "' (b, kb, mb)");
  if (v < 0) throw UsageError(what + ": must not be negative, not '" + text + "'");
  return v * scale;
}

// A host software time (step=, wake=): a time as lat= takes it, at most one second (a longer one is a typo).
double parse_host_time(const std::string& text, const std::string& what) {
  if (number_unit(text, what).first < 0) throw UsageError(what + ": must not be negative, not '" + text + "'");
  const double s = parse_time(text, what);
  if (s > 1) throw UsageError(what + ": '" + text + "' is more than 1 s of host software");
  return s;
}

LinkModel parse_spec(const std::string& text, const std::string& option) {
  LinkModel m;
  m.label = text;
  bool have_bw = false;
  size_t pos = 0;
  std::set<std::string> seen;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw UsageError(option + " '" + text + "': expected key=value, got '" + item + "'");
    const std::string key = lower(item.substr(0, eq)), value = item.substr(eq + 1);
    if (!seen.insert(key).second) throw UsageError(option + " '" + text + "': " + key + " given twice");
    if (key == "bw") {
      m.bandwidth_Bps = parse_rate(value, option + " bw");
      have_bw = true;
    } else if (key == "lat") {
      m.latency_s = parse_time(value, option + " lat");
    } else if (key == "transport") {
      m.transport = parse_transport(value, option);
    } else if (key == "mtu") {
      m.mtu_B = parse_mtu(value, option);
    } else if (key == "burst") {
      m.burst_B = parse_size(value, option + " burst");
    } else if (key == "step" || key == "wake") {
      (key == "step" ? m.step_s : m.wake_s) = parse_host_time(value, option + " " + key);
    } else {
      throw UsageError(option + " '" + text + "': unknown key '" + key +
                       "' (bw, lat, transport, mtu, burst, step, wake)");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (!have_bw) throw UsageError(option + " '" + text + "': bw=... is required");
  if (m.transport != LinkTransport::GlooTcp) {
    if (seen.count("mtu") || seen.count("burst") || seen.count("step") || seen.count("wake"))
      throw UsageError(option + " '" + text + "': mtu, burst, step and wake apply to transport=gloo-tcp");
    m.description =
        fmt::format("custom link, {:.4g} GB/s, {:.4g} us per step", m.bandwidth_Bps / 1e9, m.latency_s * 1e6);
    return m;
  }
  if (m.mtu_B <= 0) m.mtu_B = gloo_tcp::kDefaultMtuB;
  m.description = fmt::format(
      "custom link, Gloo ring over TCP: {:.4g} GB/s shaped rate ({:.4g} GB/s of payload at MTU {:g}, ACKs included), "
      "{:.4g} us one way, {} one-way trips and {:.4g} us of software per ring step, {:.4g} ms to wake after compute, "
      "shaper burst {:g} bytes, TCP window restarted after an idle RTO",
      m.bandwidth_Bps / 1e9, m.bandwidth_Bps / gloo_tcp::wire_per_payload_byte(m.mtu_B) / 1e9, m.mtu_B,
      m.latency_s * 1e6, gloo_tcp::kTripsPerStep, m.step_s * 1e6, m.wake_s * 1e3, m.burst_B);
  return m;
}

}  // namespace

std::vector<std::string> split_link_list(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const bool kv = item.find('=') != std::string::npos;
    if (kv && !out.empty() && out.back().find('=') != std::string::npos) {
      out.back() += "," + item;  // another key of the same bw=..,lat=.. link
    } else {
      out.push_back(item);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  // "bw=1,lat=2,bw=3" is two links: a repeated key starts a new one.
  std::vector<std::string> split;
  for (const std::string& s : out) {
    if (s.find('=') == std::string::npos) {
      split.push_back(s);
      continue;
    }
    std::set<std::string> keys;
    std::string cur;
    size_t p = 0;
    while (p <= s.size()) {
      const size_t c = s.find(',', p);
      const std::string item = s.substr(p, c == std::string::npos ? std::string::npos : c - p);
      const std::string key = lower(item.substr(0, item.find('=')));
      if (!keys.insert(key).second) {
        split.push_back(cur);
        cur.clear();
        keys = {key};
      }
      cur += (cur.empty() ? "" : ",") + item;
      if (c == std::string::npos) break;
      p = c + 1;
    }
    split.push_back(cur);
  }
  return split;
}

LinkModel parse_link(const std::string& text, const std::string& option) {
  if (text.empty()) throw UsageError(option + ": empty link name");
  if (text.find('=') != std::string::npos) return parse_spec(text, option);
  if (ends_with(lower(text), ".json")) {
    LinkModel m = link_from_comm(read_comm_result_file(text), text);
    m.label = text;
    return m;
  }
  for (const LinkPreset& p : link_presets()) {
    if (lower(text) == p.name) {
      LinkModel m;
      m.label = p.name;
      m.bandwidth_Bps = p.bandwidth_GBps * 1e9;
      m.latency_s = p.latency_us * 1e-6;
      m.description = fmt::format("{}: {:.4g} GB/s per GPU per direction ({}), {:.3g} us per ring step ({})", p.what,
                                  p.bandwidth_GBps, p.source, p.latency_us, kNcclLat);
      if (p.published.busbw_GBps > 0)
        m.description += fmt::format("; published all-reduce busbw {:.4g} GB/s on {} GPUs ({})",
                                     p.published.busbw_GBps, p.published.ranks, p.published.source);
      return m;
    }
  }
  std::string names;
  for (const LinkPreset& p : link_presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw UsageError(option + ": unknown link '" + text + "' (presets: " + names +
                   "; or bw=<rate>,lat=<time>; or a mgbench comm JSON file)");
}

LinkModel link_from_comm(const CommResult& c, const std::string& source) {
  if (c.allreduce != "ring")
    throw UsageError(source + ": was measured with --allreduce " + c.allreduce +
                     "; a link is described by the ring all-reduce (mgbench comm --op allreduce)");
  std::string transport;
  int ranks = 0;
  // Mean of the in-place and out-of-place times per size (the gradient buckets are all-reduced in place, but
  // both are the same transfer and two measurements are steadier than one).
  std::map<double, std::pair<double, int>> by_size, gap_by_size;
  const double gap_s = c.gap_s;
  for (const CommRow& r : c.rows) {
    if (r.op != "allreduce") continue;
    if (transport.empty()) transport = r.transport;
    if (r.transport != transport) continue;  // the first transport of a side-by-side run
    const double bytes = static_cast<double>(r.bytes), us = r.time_us;
    ranks = r.devices;
    if (bytes > 0 && us > 0) {
      by_size[bytes].first += us * 1e-6;
      by_size[bytes].second += 1;
    }
    const double gap_us = r.gap_time_us;
    if (gap_s > 0 && bytes > 0 && gap_us > 0) {
      gap_by_size[bytes].first += gap_us * 1e-6;
      gap_by_size[bytes].second += 1;
    }
  }
  std::vector<std::pair<double, double>> curve;
  for (const auto& [bytes, sum] : by_size) curve.emplace_back(bytes, sum.first / sum.second);
  if (curve.size() < 2)
    throw UsageError(source + ": needs all-reduce rows of at least two sizes (mgbench comm --op allreduce)");
  if (ranks < 2) throw UsageError(source + ": an all-reduce over " + std::to_string(ranks) + " rank(s) says nothing about a link");
  std::sort(curve.begin(), curve.end());
  // Weighted least squares t = a + b*S with weights 1/t^2 (relative error), then a = 2(n-1) lat and
  // b = 2(n-1)/n / bw.
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [s, t] : curve) {
    const double w = 1.0 / (t * t);
    sw += w;
    sx += w * s;
    sy += w * t;
    sxx += w * s * s;
    sxy += w * s * t;
  }
  const double det = sw * sxx - sx * sx;
  double b = det != 0 ? (sw * sxy - sx * sy) / det : 0;
  double a = det != 0 ? (sy - b * sx) / sw : 0;
  if (!(b > 0)) throw UsageError(source + ": the all-reduce time does not grow with size; no bandwidth can be fitted");
  if (a < 0) {  // a negative intercept has no meaning: refit through the origin
    a = 0;
    b = sxy / sxx;
  }
  LinkModel m;
  m.label = source;
  m.curve = curve;
  m.curve_ranks = ranks;
  m.latency_s = a / (2.0 * (ranks - 1));
  m.bandwidth_Bps = 2.0 * (ranks - 1) / ranks / b;
  double ss = 0;
  for (const auto& [s, t] : curve) ss += std::pow((a + b * s - t) / t, 2);
  m.fit_rms_rel = std::sqrt(ss / curve.size());
  // Size by size: the two curves are read at the same points, so a size timed one way only is a partial file.
  int lacking = 0;
  for (const auto& [bytes, t] : curve) {
    auto g = gap_by_size.find(bytes);
    if (g == gap_by_size.end())
      ++lacking;
    else
      m.gap_curve.emplace_back(bytes, g->second.first / g->second.second);
  }
  if (gap_s > 0 && (lacking > 0 || gap_by_size.size() != curve.size()))
    throw UsageError(source + ": measured with --gap " + fmt::format("{:g}", gap_s) + " but " +
                     std::to_string(lacking > 0 ? lacking : static_cast<int>(gap_by_size.size() - curve.size())) +
                     (lacking > 0 ? " size(s) lack gap_time_us" : " size(s) have gap_time_us and no time_us"));
  m.gap_s = m.gap_curve.empty() ? 0 : gap_s;
  m.description = fmt::format(
      "measured by mgbench comm ({} ranks, transport {}, {} sizes {:.3g}..{:.3g} MB): fitted {:.4g} GB/s, {:.4g} us "
      "per step (rms residual {:.1f} %), curve interpolated",
      ranks, transport, curve.size(), curve.front().first / 1e6, curve.back().first / 1e6, m.bandwidth_Bps / 1e9,
      m.latency_s * 1e6, 100 * m.fit_rms_rel);
  if (!m.gap_curve.empty())
    m.description += fmt::format("; after a gap of {:g} s of compute (--gap): {} sizes, for all-reduces that start on "
                                 "an idle comm stream",
                                 m.gap_s, m.gap_curve.size());
  return m;
}

namespace {

// Piecewise linear between measured sizes (time is affine in size between two sizes); beyond the ends, the
// fitted line (slope b, seconds per byte) from the end point.
double curve_time(const std::vector<std::pair<double, double>>& c, double b, double bytes) {
  if (bytes <= c.front().first) return std::max(0.0, c.front().second - b * (c.front().first - bytes));
  if (bytes >= c.back().first) return c.back().second + b * (bytes - c.back().first);
  auto hi = std::lower_bound(c.begin(), c.end(), std::make_pair(bytes, 0.0));
  auto lo = hi - 1;
  const double f = (bytes - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

}  // namespace

double ring_allreduce_time(const LinkModel& link, double bytes, int n, bool after_gap, double idle_s) {
  if (n <= 1 || bytes <= 0) return 0;
  if (link.curve.empty() && link.transport == LinkTransport::GlooTcp)
    return gloo_tcp::ring_time(
        bytes, n, {link.bandwidth_Bps, link.latency_s, link.mtu_B, link.burst_B, link.step_s, link.wake_s}, after_gap,
        idle_s);
  const double lat = 2.0 * (n - 1) * link.latency_s;
  if (link.curve.empty()) return lat + 2.0 * (n - 1) / n * bytes / link.bandwidth_Bps;
  // The measured size whose bandwidth term equals this one's at n ranks, then swap the latency terms.
  const int n0 = link.curve_ranks;
  const double equiv = bytes * (2.0 * (n - 1) / n) / (2.0 * (n0 - 1) / n0);
  const double b = 2.0 * (n0 - 1) / n0 / link.bandwidth_Bps;
  const auto& c = after_gap && !link.gap_curve.empty() ? link.gap_curve : link.curve;
  // The measured time with n0 ranks' latency terms swapped for n ranks': at n0 ranks the curve itself, also
  // where a point lies below the fitted intercept (the gap curve's small sizes often do). Such a point has no
  // bandwidth term to keep, so it is scaled by the ratio of the latency terms instead, which stays positive
  // with fewer ranks than measured and meets the other branch where the point equals the intercept.
  const double t = curve_time(c, b, equiv), lat0 = 2.0 * (n0 - 1) * link.latency_s;
  return t >= lat0 || lat0 <= 0 ? t + lat - lat0 : t * lat / lat0;
}

double gap_extra_time(const LinkModel& link, double bytes, int n) {
  const bool tcp_form = link.curve.empty() && link.transport == LinkTransport::GlooTcp;
  if (link.gap_curve.empty() && !tcp_form) return 0;
  return ring_allreduce_time(link, bytes, n, true) - ring_allreduce_time(link, bytes, n, false);
}

}  // namespace mg
