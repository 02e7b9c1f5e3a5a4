// What Gloo's ring all-reduce over TCP costs on a link given by its numbers alone (rate, one-way delay, MTU, a
// shaper's burst): the protocol bytes each frame and acknowledgement add (header sizes from the RFCs), the
// rendezvous each ring step waits for (Gloo's TCP pair sends data only after the receiver's notification), a
// token-bucket shaper's credit, TCP's congestion window after an idle connection (Linux's restart and slow
// start), and the host's per-step and wake-up software cost, measured on loopback (results/predict/gap-loopback/,
// not the validation data) unless the link gives its own. docs/predict.md prices each term.
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
// RFC 6928 initial window; Linux TCP_INIT_CWND (include/net/tcp.h), what tcp_cwnd_restart restarts from.
constexpr double kInitialWindowSegments = 10;
// Linux TCP_RTO_MIN = HZ/5 (include/net/tcp.h): the RTO is srtt + max(4 rttvar, this), so RTT + 200 ms on a
// steady link, and net.ipv4.tcp_slow_start_after_idle (default 1) restarts the window after an idle RTO.
constexpr double kRtoMinS = 0.2;

struct Path {
  double rate_Bps = 0;   // what the link (or its shaper) lets through, frame bytes per second
  double one_way_s = 0;  // propagation delay, one way
  double mtu_B = kDefaultMtuB;
  double burst_B = 0;    // a token-bucket shaper's bucket (tc tbf burst); 0 for a plain line
  double step_s = kStepSoftwareS;  // the host's software per ring step
  double wake_s = kWakeS;          // the host's wake-up for an all-reduce issued after compute
};

// TCP payload bytes per frame at this MTU (timestamps on) and the wire bytes the rate counts per payload byte,
// the reverse stream's ACKs included: every ring rank sends and receives at once, so ACKs share its egress.
double payload_per_frame(double mtu_B);
double wire_per_payload_byte(double mtu_B);

// Linux's retransmission timeout on this path with a steady round trip (rttvar ~ 0): 2 one-way delays + TCP_RTO_MIN.
double rto(const Path& p);

// The congestion window (segments) after the sender was idle idle_s with `window` segments: Linux's
// tcp_cwnd_restart (net/ipv4/tcp_output.c), entered only when idle_s exceeds rto_s, halves the window once for
// every further RTO the idle period spans, down to min(initial window, window) (RFC 2861, RFC 5681 4.1).
double window_after_idle(double window, double idle_s, double rto_s);

// Seconds a congestion window of `window` segments adds to sending `segments` segments at `rate_Bps` frame bytes
// per second (frame_B each) over round trip rtt_s: each round the window cuts short waits for its ACKs, one round
// trip after it began, where the line alone would have kept sending. Slow start (RFC 5681 3.1; Linux adds every
// ACKed segment) doubles the window per round; `window` comes back grown by the segments sent.
double window_delay(double segments, double& window, double rtt_s, double frame_B, double rate_Bps);

// Ring all-reduce of `bytes` over n ranks: 2(n-1) steps, each waiting kTripsPerStep one-way delays and the
// path's step_s, then sending bytes/n at the rate less what the shaper's bucket refilled meanwhile (full after
// compute); wake_s more when issued onto an idle comm stream (after_gap). idle_s: how long the connection sent
// nothing before it. Its window is taken as grown to twice a step's segments (Linux's slow start stops growing
// it there, tcp_is_cwnd_limited), restarted after idle_s (window_after_idle) and carried from step to step.
double ring_time(double bytes, int n, const Path& p, bool after_gap, double idle_s = 0);

}  // namespace gloo_tcp

}  // namespace mg
