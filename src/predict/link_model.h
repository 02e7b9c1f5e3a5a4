// Link models for `mgbench predict`: how long a collective's bytes take on one kind of link. A link is a
// per-GPU bandwidth (bytes/s, one direction, what one ring step can use) and a per-step latency, from a named
// preset with a documented source, from "bw=...,lat=..." or fitted to a `mgbench comm` all-reduce result, whose
// measured curve is then interpolated (linearly between measured sizes). docs/predict.md lists the presets and their sources.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "predict/gloo_tcp_cost.h"
#include "result/comm_result.h"

namespace mg {

// What carries a "bw=..,lat=.." link's bytes: the bare rate/latency form, or Gloo's ring over TCP
// (predict/gloo_tcp_cost.h: frame and ACK bytes, a rendezvous per step, the host's software cost).
enum class LinkTransport { Ideal, GlooTcp };

struct LinkModel {
  std::string label;         // as the user wrote it (preset name, spec or file name)
  std::string description;   // one line: what it is and where the numbers come from
  double bandwidth_Bps = 0;  // per GPU, one direction
  double latency_s = 0;      // per ring step; with transport GlooTcp, the one-way delay
  LinkTransport transport = LinkTransport::Ideal;
  double mtu_B = 0;          // GlooTcp: the link's MTU (bytes)
  double burst_B = 0;        // GlooTcp: a token-bucket shaper's burst (bytes); 0 for a plain line
  double step_s = gloo_tcp::kStepSoftwareS;  // GlooTcp: the host's software per ring step
  double wake_s = gloo_tcp::kWakeS;          // GlooTcp: the host's wake-up for an all-reduce issued after compute
  // A measured all-reduce curve (bytes, seconds) at `curve_ranks` ranks, sorted by bytes; empty for presets.
  std::vector<std::pair<double, double>> curve;
  int curve_ranks = 0;
  double fit_rms_rel = 0;    // root-mean-square relative residual of the fit over the curve
  // From a `mgbench comm --gap` result: the same all-reduce timed one at a time after gap_s of busy work on the
  // issuing thread (bytes, seconds), for an all-reduce that starts on an idle comm stream; empty otherwise.
  std::vector<std::pair<double, double>> gap_curve;
  double gap_s = 0;
};

// An all-reduce bus bandwidth someone published (nccl-tests all_reduce_perf busbw) on a named system.
struct PublishedBusbw {
  double busbw_GBps = 0;     // 0: none found; `source` says so
  int ranks = 0;             // GPUs in the all-reduce
  double bytes = 0;          // message size the figure was read at
  int gpus_per_node = 0;     // 0: one node; otherwise the ring crosses nodes over this preset as the NIC link
  int nics_per_node = 0;     // NICs per node of the multi-node system
  const char* intra = "";    // the preset between the GPUs of a node in a multi-node figure
  const char* source = "";   // document, system, message size and value, or why there is none
};

struct LinkPreset {
  const char* name;
  double bandwidth_GBps;  // per GPU, one direction, 1e9 bytes/s
  double latency_us;      // per ring step
  const char* what;
  const char* source;
  PublishedBusbw published;
};
const std::vector<LinkPreset>& link_presets();

// One link: a preset name, "bw=<rate>,lat=<time>[,transport=ideal|gloo-tcp][,mtu=<bytes>][,burst=<size>]
// [,step=<time>][,wake=<time>]" (rate: 25GB/s, 100Gbit, 300Mbit, 12.5e9B/s or a bare number in GB/s; time: 2ms,
// 5us, 300ns, 0.001s or a bare number in microseconds; mtu in bytes; burst as tc writes it, 256kb; step and wake:
// the host's software per ring step and wake-up after compute) or a `mgbench comm` JSON file.
// UsageError naming `option` for an unknown name, a zero/negative/non-finite bandwidth or a bad file.
LinkModel parse_link(const std::string& text, const std::string& option);
// A comma list of links; "bw=..,lat=.." groups stay together ("nvlink4,bw=10GB/s,lat=5us,pcie4" is three).
std::vector<std::string> split_link_list(const std::string& text);

// Fits latency and bandwidth to the all-reduce rows of a `mgbench comm` result (one transport, out-of-place),
// weighting by 1/time^2 so small and large messages count alike; keeps the curve for interpolation.
LinkModel link_from_comm(const CommResult& c, const std::string& source);

// Ring all-reduce of `bytes` over n ranks on this link alone: 2(n-1) latency terms + 2(n-1)/n * bytes / bw.
// With a measured curve, the curve at the size whose bandwidth term matches, corrected for the latency terms.
// With transport GlooTcp (and no curve), gloo_tcp::ring_time.
// after_gap: the all-reduce is issued onto an idle comm stream after compute (not queued behind another one);
// the link's gap curve prices it where there is one, the back-to-back curve otherwise. idle_s: how long the link
// carried nothing before it (GlooTcp: TCP's window restart after an idle RTO); 0 for one queued behind another.
double ring_allreduce_time(const LinkModel& link, double bytes, int n, bool after_gap = false, double idle_s = 0);
// What issuing after a gap adds to the ring all-reduce on this link (gap curve minus back-to-back curve, as
// measured: it may be negative where the two loops' noise says so); the link's wake_s for a GlooTcp link; 0 otherwise.
double gap_extra_time(const LinkModel& link, double bytes, int n);

}  // namespace mg
