#include "predict/gloo_tcp_cost.h"

#include <algorithm>

namespace mg {

namespace gloo_tcp {

double payload_per_frame(double mtu_B) { return mtu_B - kIpv4HeaderB - kTcpHeaderB - kTcpTimestampB; }

double wire_per_payload_byte(double mtu_B) {
  const double frame = mtu_B + kEthHeaderB;
  const double ack = kEthHeaderB + kIpv4HeaderB + kTcpHeaderB + kTcpTimestampB;  // an ACK carries no payload
  return (frame + ack / kSegmentsPerAck) / payload_per_frame(mtu_B);
}

double ring_time(double bytes, int n, const Path& p, bool after_gap) {
  if (n <= 1 || bytes <= 0) return 0;
  const int steps = 2 * (n - 1);
  const double wait = kTripsPerStep * p.one_way_s + kStepSoftwareS;
  const double send = bytes / n * wire_per_payload_byte(p.mtu_B);
  // The bucket fills while the link idles: through compute before an all-reduce issued after it, else from empty.
  double tokens = after_gap ? p.burst_B : 0.0, t = after_gap ? kWakeS : 0.0;
  for (int s = 0; s < steps; ++s) {
    tokens = std::min(p.burst_B, tokens + p.rate_Bps * wait);
    const double free = std::min(tokens, send);
    tokens -= free;
    t += wait + (send - free) / p.rate_Bps;
  }
  return t;
}

}  // namespace gloo_tcp

}  // namespace mg
