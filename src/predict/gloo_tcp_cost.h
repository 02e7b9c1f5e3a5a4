// What Gloo's ring all-reduce over TCP costs on a link given by its numbers alone (rate, one-way delay, MTU, a
// shaper's burst): the protocol bytes each frame and acknowledgement add (header sizes from the RFCs), the
// rendezvous each ring step waits for (Gloo's TCP pair sends data only after the receiver's notification), a
// token-bucket shaper's credit, and the host's per-step and wake-up software cost, measured on loopback
// (results/predict/gap-loopback/, not the validation data). docs/predict.md prices each term.
#pragma once

namespace mg {

namespace gloo_tcp {

constexpr double kEthHeaderB = 14;      // IEEE 802.3 MAC header: what a qdisc's rate counts of each frame
constexpr double kIpv4HeaderB = 20;     // RFC 791, no options
constexpr double kTcpHeaderB = 20;      // RFC 9293, no options
constexpr double kTcpTimestampB = 12;   // RFC 7323 timestamp option as Linux pads it (on by default)
constexpr double kSegmentsPerAck = 2;   // RFC 1122 4.2.3.2 / RFC 5681 4.2: an ACK for every second full segment
constexpr double kDefaultMtuB = 1500;   // IEEE 802.3 Ethernet payload
// Gloo's tcp::Pair::send holds the data until the receiver's NOTIFY_RECV_READY arrives: a step is two one-way trips.
constexpr int kTripsPerStep = 2;
// Loopback, 2 ranks, 4-16 KiB back to back: median 0.506 ms over 2 ring steps (gap-loopback/raw, 18 timings).
constexpr double kStepSoftwareS = 0.506e-3 / 2;
// The same after 10 ms of compute: median 3.390 ms, so issuing after compute wakes the host for 2.884 ms more.
constexpr double kWakeS = 3.390e-3 - 0.506e-3;

struct Path {
  double rate_Bps = 0;   // what the link (or its shaper) lets through, frame bytes per second
  double one_way_s = 0;  // propagation delay, one way
  double mtu_B = kDefaultMtuB;
  double burst_B = 0;    // a token-bucket shaper's bucket (tc tbf burst); 0 for a plain line
};

// TCP payload bytes per frame at this MTU (timestamps on) and the wire bytes the rate counts per payload byte,
// the reverse stream's ACKs included: every ring rank sends and receives at once, so ACKs share its egress.
double payload_per_frame(double mtu_B);
double wire_per_payload_byte(double mtu_B);

// Ring all-reduce of `bytes` over n ranks: 2(n-1) steps, each waiting kTripsPerStep one-way delays and
// kStepSoftwareS, then sending bytes/n at the rate less what the shaper's bucket refilled meanwhile (full after
// compute); kWakeS more when issued onto an idle comm stream (after_gap).
double ring_time(double bytes, int n, const Path& p, bool after_gap);

}  // namespace gloo_tcp

}  // namespace mg
