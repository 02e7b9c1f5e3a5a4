#include "predict/gloo_tcp_cost.h"

#include <algorithm>
#include <cmath>

namespace mg {

namespace gloo_tcp {

double payload_per_frame(double mtu_B) { return mtu_B - kIpv4HeaderB - kTcpHeaderB - kTcpTimestampB; }

double wire_per_payload_byte(double mtu_B) {
  const double frame = mtu_B + kEthHeaderB;
  const double ack = kEthHeaderB + kIpv4HeaderB + kTcpHeaderB + kTcpTimestampB;  // an ACK carries no payload
  return (frame + ack / kSegmentsPerAck) / payload_per_frame(mtu_B);
}

double rto(const Path& p) { return 2 * p.one_way_s + kRtoMinS; }

double window_after_idle(double window, double idle_s, double rto_s) {
  if (!(idle_s > rto_s)) return window;
  const double restart = std::min(kInitialWindowSegments, window);
  double w = window;
  // tcp_cwnd_restart: while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1;
  for (double left = idle_s - rto_s; left > 0 && w > restart; left -= rto_s) w = std::floor(w / 2);
  return std::max(w, restart);
}

double window_delay(double segments, double& window, double rtt_s, double frame_B, double rate_Bps) {
  double extra = 0, left = segments;
  while (left > window) {
    // A round that takes longer than a round trip to serialise is not held up: its ACKs are back in time.
    extra += std::max(0.0, rtt_s - window * frame_B / rate_Bps);
    left -= window;
    window *= 2;
  }
  window += left;
  return extra;
}

double ring_time(double bytes, int n, const Path& p, bool after_gap, double idle_s) {
  if (n <= 1 || bytes <= 0) return 0;
  const int steps = 2 * (n - 1);
  const double wait = kTripsPerStep * p.one_way_s + p.step_s;
  const double payload = bytes / n, send = payload * wire_per_payload_byte(p.mtu_B);
  const double segments = std::ceil(payload / payload_per_frame(p.mtu_B));
  const double frame = payload_per_frame(p.mtu_B) * wire_per_payload_byte(p.mtu_B);
  double window = 2 * segments;
  // The bucket fills while the link idles: through compute before an all-reduce issued after it, else from empty.
  double tokens = after_gap ? p.burst_B : 0.0, t = after_gap ? p.wake_s : 0.0;
  for (int s = 0; s < steps; ++s) {
    // Between steps the sender idles for the rendezvous only, under the RTO unless step_s is made that long.
    window = window_after_idle(window, s == 0 ? idle_s : wait, rto(p));
    tokens = std::min(p.burst_B, tokens + p.rate_Bps * wait);
    const double free = std::min(tokens, send);
    tokens -= free;
    t += wait + (send - free) / p.rate_Bps + window_delay(segments, window, 2 * p.one_way_s, frame, p.rate_Bps);
  }
  return t;
}

}  // namespace gloo_tcp

}  // namespace mg
