// Gloo's ring over TCP from link numbers alone: frame and ACK bytes, the rendezvous per ring step, the host's
// per-step and wake-up cost, a shaper's bucket, TCP's window after idle, and the "transport=gloo-tcp" links.
#include <catch2/catch.hpp>

#include <string>

#include "core/error.h"
#include "predict/gloo_tcp_cost.h"
#include "predict/link_model.h"

namespace mg {

TEST_CASE("gloo-tcp: TCP payload per frame and wire bytes per payload byte at an MTU") {
  // MTU 1500: 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamps) = 1448 payload in a 1514-byte frame, and half a
  // 66-byte ACK (Ethernet + IPv4 + TCP + timestamps) per frame on the same egress.
  CHECK(gloo_tcp::payload_per_frame(1500) == Approx(1448));
  CHECK(gloo_tcp::wire_per_payload_byte(1500) == Approx((1514 + 33) / 1448.0));
  CHECK(gloo_tcp::payload_per_frame(9000) == Approx(8948));
  CHECK(gloo_tcp::wire_per_payload_byte(9000) == Approx((9014 + 33) / 8948.0));
  // Large messages on a plain line: the payload rate is the line rate over that factor.
  const gloo_tcp::Path line{1e9, 0, 1500, 0};
  const double big = 1e9, fixed = 2 * gloo_tcp::kStepSoftwareS;
  CHECK(gloo_tcp::ring_time(big, 2, line, false) - fixed == Approx(big * (1547 / 1448.0) / 1e9));
}

TEST_CASE("gloo-tcp: each of the 2(n-1) ring steps pays two one-way delays and the per-step software cost") {
  const double d = 2e-3, rate = 1e9, bytes = 8000;
  for (int n : {2, 4, 8}) {
    INFO("n = " << n);
    const gloo_tcp::Path p{rate, d, 9000, 0};
    const double wire = 2.0 * (n - 1) / n * bytes * gloo_tcp::wire_per_payload_byte(9000) / rate;
    const double per_step = 2 * d + gloo_tcp::kStepSoftwareS;
    CHECK(gloo_tcp::ring_time(bytes, n, p, false) == Approx(2.0 * (n - 1) * per_step + wire));
    // One more millisecond one way costs 2 ms per step: the receiver's notification, then the data.
    const gloo_tcp::Path later{rate, d + 1e-3, 9000, 0};
    CHECK(gloo_tcp::ring_time(bytes, n, later, false) - gloo_tcp::ring_time(bytes, n, p, false) ==
          Approx(2.0 * (n - 1) * 2e-3));
  }
  CHECK(gloo_tcp::ring_time(bytes, 1, {rate, d, 9000, 0}, false) == 0);
  CHECK(gloo_tcp::ring_time(0, 4, {rate, d, 9000, 0}, false) == 0);
}

TEST_CASE("gloo-tcp: issued onto an idle comm stream, the host's wake-up cost is added once") {
  const gloo_tcp::Path p{12.5e6, 2e-3, 9000, 0};
  for (int n : {2, 8})
    CHECK(gloo_tcp::ring_time(6344, n, p, true) - gloo_tcp::ring_time(6344, n, p, false) == Approx(gloo_tcp::kWakeS));
}

TEST_CASE("gloo-tcp: a token-bucket shaper's refill while a step waits pays back its delay") {
  // 100 Mbit/s, 2 ms one way, 256 KiB bucket: a step waits 4.25 ms, in which the bucket refills 53 KB, so a step
  // of 512 KB costs its bytes at the rate and no delay at all.
  const double rate = 12.5e6, d = 2e-3, burst = 256 * 1024.0, bytes = 1 << 20;
  const gloo_tcp::Path shaped{rate, d, 9000, burst};
  const double send = bytes / 2 * gloo_tcp::wire_per_payload_byte(9000) / rate;
  CHECK(gloo_tcp::ring_time(bytes, 2, shaped, false) == Approx(2 * send));
  // After compute the bucket is full: the first step's first 256 KiB go at once.
  const double wait = 2 * d + gloo_tcp::kStepSoftwareS;
  CHECK(gloo_tcp::ring_time(bytes, 2, shaped, true) ==
        Approx(gloo_tcp::kWakeS + wait + send - burst / rate + send));
  // At 1 Gbit/s the refill (531 KB) overflows the bucket: each step keeps (wait - burst / rate) of its delay.
  const gloo_tcp::Path fast{125e6, d, 9000, burst};
  const double send_fast = bytes / 2 * gloo_tcp::wire_per_payload_byte(9000) / 125e6;
  CHECK(gloo_tcp::ring_time(bytes, 2, fast, false) == Approx(2 * (wait + send_fast - burst / 125e6)));
  // A message smaller than the refill costs only the wait.
  CHECK(gloo_tcp::ring_time(8000, 2, shaped, false) == Approx(2 * wait));
}

TEST_CASE("gloo-tcp: Linux's RTO and its window restart after an idle connection") {
  const gloo_tcp::Path p{125e6, 2e-3, 9000, 0};
  CHECK(gloo_tcp::rto(p) == Approx(0.204));  // TCP_RTO_MIN 200 ms + a 4 ms round trip
  // tcp_cwnd_restart: one halving per RTO the idle time spans beyond the first, down to the initial window.
  CHECK(gloo_tcp::window_after_idle(120, 0.204, 0.204) == 120);  // restarts only past the RTO
  CHECK(gloo_tcp::window_after_idle(120, 1.5 * 0.204, 0.204) == 60);
  CHECK(gloo_tcp::window_after_idle(120, 2.5 * 0.204, 0.204) == 30);
  CHECK(gloo_tcp::window_after_idle(120, 10, 0.204) == 10);
  CHECK(gloo_tcp::window_after_idle(6, 10, 0.204) == 6);  // never raised to the initial window
}

TEST_CASE("gloo-tcp: slow start after an idle RTO costs the round trips the window's doubling needs") {
  // 1 Gbit/s, 2 ms one way, MTU 9000, no bucket: each of the 2 ring steps sends 60 segments of 8948 bytes. The
  // window the connection carried (120) restarts at 10 after 10 s: rounds of 10 and 20 wait for their ACKs
  // (4 ms less the 0.72 and 1.45 ms they take to serialise at 9047 wire bytes each), the 30 left fit in 40; the
  // window is 70 by the second step, which waits for nothing.
  const gloo_tcp::Path p{125e6, 2e-3, 9000, 0};
  const double bytes = 2 * 60 * 8948.0;
  const double extra = (4e-3 - 10 * 9047 / 125e6) + (4e-3 - 20 * 9047 / 125e6);
  CHECK(gloo_tcp::ring_time(bytes, 2, p, true, 10) - gloo_tcp::ring_time(bytes, 2, p, true, 0) == Approx(extra));
  double window = 10;
  CHECK(gloo_tcp::window_delay(60, window, 4e-3, 9047, 125e6) == Approx(extra));
  CHECK(window == 70);
  CHECK(gloo_tcp::window_delay(60, window, 4e-3, 9047, 125e6) == 0);
  CHECK(window == 130);
}

TEST_CASE("gloo-tcp: no window restart when the connection idled less than the RTO") {
  const gloo_tcp::Path p{125e6, 2e-3, 9000, 0};
  const double bytes = 2 * 60 * 8948.0, quiet = gloo_tcp::ring_time(bytes, 2, p, true, 0);
  // 10 ms of compute (the comm curves' --gap) and 200 ms, just under the 204 ms RTO: the window is kept.
  for (double idle : {0.01, 0.2, 0.204}) CHECK(gloo_tcp::ring_time(bytes, 2, p, true, idle) == Approx(quiet));
  // Past it the carried 120 halves to 60, still the whole step; past two RTOs to 30, a round trip short.
  CHECK(gloo_tcp::ring_time(bytes, 2, p, true, 0.21) == Approx(quiet));
  CHECK(gloo_tcp::ring_time(bytes, 2, p, true, 0.5) == Approx(quiet + 4e-3 - 30 * 9047 / 125e6));
}

TEST_CASE("gloo-tcp: a restarted window costs nothing where the line, not the window, is the limit") {
  // 100 Mbit/s, 0.1 ms one way: 2.5 KB in flight fill the line, less than one 9000-byte frame, so even the
  // restart window of 10 frames takes 7.2 ms to send, longer than the 0.2 ms its ACKs need.
  const gloo_tcp::Path p{12.5e6, 0.1e-3, 9000, 0};
  for (double bytes : {1e6, 1e8})
    CHECK(gloo_tcp::ring_time(bytes, 2, p, true, 100) == Approx(gloo_tcp::ring_time(bytes, 2, p, true, 0)));
}

TEST_CASE("transport=gloo-tcp links: the host's step and wake times") {
  const LinkModel d = parse_link("bw=1Gbit,lat=2ms,transport=gloo-tcp", "--link");
  CHECK(d.step_s == gloo_tcp::kStepSoftwareS);
  CHECK(d.wake_s == gloo_tcp::kWakeS);
  const LinkModel m = parse_link("bw=1Gbit,lat=2ms,transport=gloo-tcp,step=0.1ms,wake=2.9ms", "--link");
  CHECK(m.step_s == Approx(0.1e-3));
  CHECK(m.wake_s == Approx(2.9e-3));
  CHECK(m.description.find("100 us of software per ring step, 2.9 ms to wake") != std::string::npos);
  CHECK(ring_allreduce_time(m, 2000, 2) ==
        Approx(2 * (4e-3 + 0.1e-3 + 1000 * gloo_tcp::wire_per_payload_byte(1500) / 125e6)));
  CHECK(gap_extra_time(m, 2000, 2) == Approx(2.9e-3));
  CHECK(parse_link("bw=1Gbit,transport=gloo-tcp,step=0,wake=0", "--link").wake_s == 0);
  for (const char* bad : {"step=-1", "wake=-2ms", "step=2s", "wake=abc", "step=3parsecs", "wake=inf", "step="}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_link(std::string("bw=1Gbit,transport=gloo-tcp,") + bad, "--link"), UsageError);
  }
  CHECK_THROWS_AS(parse_link("bw=1Gbit,step=1ms", "--link"), UsageError);  // a host cost of a transport not named
  try {
    parse_link("bw=1Gbit,transport=gloo-tcp,step=-1", "--link");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "--link step: must not be negative, not '-1'");
  }
}

TEST_CASE("transport=gloo-tcp links: keys, defaults, description and bad values") {
  const LinkModel m = parse_link("bw=300mbit,lat=2ms,transport=gloo-tcp,mtu=9000,burst=256kb", "--link");
  CHECK(m.transport == LinkTransport::GlooTcp);
  CHECK(m.bandwidth_Bps == Approx(37.5e6));
  CHECK(m.latency_s == Approx(2e-3));
  CHECK(m.mtu_B == 9000);
  CHECK(m.burst_B == 262144);
  CHECK(m.description.find("Gloo ring over TCP") != std::string::npos);
  CHECK(ring_allreduce_time(m, 6344, 2) ==
        Approx(gloo_tcp::ring_time(6344, 2, {37.5e6, 2e-3, 9000, 262144}, false)));
  CHECK(gap_extra_time(m, 6344, 2) == Approx(gloo_tcp::kWakeS));
  // Defaults: Ethernet's MTU and no bucket; without the key the rate/latency form is unchanged.
  const LinkModel d = parse_link("bw=1Gbit,transport=GLOO-TCP", "--link");
  CHECK(d.mtu_B == 1500);
  CHECK(d.burst_B == 0);
  const LinkModel plain = parse_link("bw=100Mbit,lat=2ms", "--link");
  CHECK(plain.transport == LinkTransport::Ideal);
  CHECK(ring_allreduce_time(plain, 1e6, 2) == Approx(2 * 2e-3 + 1e6 / 12.5e6));
  CHECK(gap_extra_time(plain, 1e6, 2) == 0);
  CHECK_THROWS_AS(parse_link("bw=1,transport=udp", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,mtu=9000", "--link"), UsageError);  // mtu without the transport it describes
  CHECK_THROWS_AS(parse_link("bw=1,burst=256kb,transport=ideal", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,transport=gloo-tcp,mtu=40", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,transport=gloo-tcp,mtu=9000kb", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,transport=gloo-tcp,burst=-1kb", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,transport=gloo-tcp,burst=3parsecs", "--link"), UsageError);
  try {
    parse_link("bw=1,transport=udp", "--link");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("ideal, gloo-tcp") != std::string::npos);
  }
}

}  // namespace mg
