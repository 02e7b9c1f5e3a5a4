// The step schedule against hand-computed cases: full overlap, no overlap, latency-bound, input-bound,
// gradient accumulation, the bucket plan and the hierarchical ring.
#include <catch2/catch.hpp>

#include "predict/gloo_tcp_cost.h"
#include "predict/schedule.h"

namespace mg {

namespace {

// fwd 10 ms, bwd 100 ms, opt 5 ms; layers in flat order: 256 elements ready at the end of backward, then two
// 1-MiB layers ready at 60 ms and 20 ms (backward runs from the last layer to the first).
StepProfile profile() {
  StepProfile p;
  p.batch_per_device = 32;
  p.forward_s = 0.010;
  p.backward_s = 0.100;
  p.optimizer_s = 0.005;
  p.layers = {{1, 256, 0.100}, {4, 262144, 0.060}, {7, 262144, 0.020}};
  return p;
}

// Gloo over TCP at 1 Gbit/s, 2 ms one way, MTU 9000, no shaper bucket.
Interconnect gloo_tcp_link() {
  Interconnect ic;
  ic.intra = {};
  ic.intra.bandwidth_Bps = 125e6;
  ic.intra.latency_s = 2e-3;
  ic.intra.transport = LinkTransport::GlooTcp;
  ic.intra.mtu_B = 9000;
  return ic;
}

Interconnect link(double bw_Bps, double lat_s) {
  Interconnect ic;
  ic.intra.label = "test";
  ic.intra.bandwidth_Bps = bw_Bps;
  ic.intra.latency_s = lat_s;
  return ic;
}

}  // namespace

TEST_CASE("plan_buckets takes buckets from the end of the flat gradient, as the trainer does") {
  const auto b = plan_buckets(profile().layers, 1048576);
  REQUIRE(b.size() == 3);
  CHECK(b[0].elements == 262144);
  CHECK(b[0].ready_s == Approx(0.020));
  CHECK(b[1].elements == 262144);
  CHECK(b[1].ready_s == Approx(0.060));  // begins at element 256: layer 4
  CHECK(b[2].elements == 256);
  CHECK(b[2].ready_s == Approx(0.100));
  // 1.5 MiB buckets split layer 4: the first begins inside it, the second holds the rest and layer 1.
  const auto c = plan_buckets(profile().layers, 1572864);  // 393216 elements
  REQUIRE(c.size() == 2);
  CHECK(c[0].elements == 393216);
  CHECK(c[0].ready_s == Approx(0.060));  // begins at element 131328, inside layer 4
  CHECK(c[1].elements == 131328);
  CHECK(c[1].ready_s == Approx(0.100));
  // 0: one bucket holding everything, ready when backward ends.
  const auto one = plan_buckets(profile().layers, 0);
  REQUIRE(one.size() == 1);
  CHECK(one[0].elements == 524544);
  CHECK(one[0].ready_s == Approx(0.100));
}

TEST_CASE("full overlap: only the last, tiny bucket is exposed") {
  StepOptions o;
  o.bucket_mb = 1;
  const StepPrediction s = simulate_step(profile(), o, link(1e9, 0), 2, 2);
  // 2 ranks, no latency: t = 2(n-1)/n * S / B = S / B.
  const double t_big = 1048576 / 1e9, t_small = 1024 / 1e9;
  CHECK(s.comm_s == Approx(2 * t_big + t_small));
  CHECK(s.breakdown.comm_exposed == Approx(t_small));
  CHECK(s.breakdown.comm_overlapped == Approx(2 * t_big));
  CHECK(s.breakdown.total == Approx(0.010 + 0.100 + t_small + 0.005));
  CHECK(s.wire_bytes == 524544 * 4);
}

TEST_CASE("no overlap: every all-reduce starts after backward and is exposed") {
  StepOptions o;
  o.bucket_mb = 1;
  o.overlap = false;
  const StepPrediction s = simulate_step(profile(), o, link(1e9, 0), 2, 2);
  const double comm = (2 * 1048576 + 1024) / 1e9;
  CHECK(s.breakdown.comm_exposed == Approx(comm));
  CHECK(s.breakdown.comm_overlapped == Approx(0).margin(1e-12));
  CHECK(s.breakdown.total == Approx(0.115 + comm));
}

TEST_CASE("latency-bound: 2(n-1) latency terms per bucket, serialised on one comm stream") {
  StepOptions o;
  o.bucket_mb = 1;
  o.wire = DType::BF16;  // halves the bandwidth term (no cast cost given: free casts)
  // 4 ranks, 10 ms per step, effectively infinite bandwidth: each all-reduce takes 6 x 10 ms = 60 ms.
  const StepPrediction s = simulate_step(profile(), o, link(1e18, 0.010), 4, 4);
  // Buckets ready at 20, 60 and 100 ms: 20..80, 80..140, 140..200; backward ends at 100: 100 ms exposed.
  CHECK(s.breakdown.comm_exposed == Approx(0.100).epsilon(1e-6));
  CHECK(s.comm_s == Approx(0.180).epsilon(1e-6));
  CHECK(s.breakdown.comm_overlapped == Approx(0.080).epsilon(1e-6));
  CHECK(s.wire_bytes == 524544 * 2);
}

TEST_CASE("input-bound: the node's pipeline sets the step time") {
  StepOptions o;
  o.input_rate = 100;  // images/s for the whole node
  const StepPrediction s = simulate_step(profile(), o, link(1e18, 0), 4, 4);
  // 4 devices x 32 images / 100 images/s = 1.28 s per step; the rest of the step is 115 ms + ~0 comm.
  CHECK(s.breakdown.total == Approx(1.28));
  CHECK(s.breakdown.input_wait == Approx(1.28 - 0.115).epsilon(1e-6));
  // A fast enough pipeline changes nothing.
  o.input_rate = 1e6;
  CHECK(simulate_step(profile(), o, link(1e18, 0), 4, 4).breakdown.input_wait == 0);
}

TEST_CASE("gradient accumulation repeats input, forward and backward, not the all-reduce") {
  StepOptions o;
  o.bucket_mb = 1;
  o.accum_steps = 3;
  o.overlap = false;
  const StepPrediction s = simulate_step(profile(), o, link(1e9, 0), 2, 2);
  const double comm = (2 * 1048576 + 1024) / 1e9;
  CHECK(s.breakdown.forward == Approx(0.030));
  CHECK(s.breakdown.backward == Approx(0.300));
  CHECK(s.breakdown.total == Approx(0.030 + 0.300 + comm + 0.005));
  // A profile taken with 2 micro-batches: its times are per 2, so one micro-batch is half.
  StepProfile p2 = profile();
  p2.accum_steps = 2;
  o.accum_steps = 1;
  CHECK(simulate_step(p2, o, link(1e9, 0), 2, 2).breakdown.backward == Approx(0.050));
}

TEST_CASE("one device and --allreduce none have no communication") {
  StepOptions o;
  CHECK(simulate_step(profile(), o, link(1e6, 0.1), 1, 1).breakdown.total == Approx(0.115));
  o.allreduce = AllreduceMode::None;
  const StepPrediction s = simulate_step(profile(), o, link(1e6, 0.1), 8, 8);
  CHECK(s.breakdown.total == Approx(0.115));
  CHECK(s.comm_s == 0);
}

TEST_CASE("expected_straggler_wait: E[max of n draws] of the profile's steps minus their mean") {
  const std::vector<double> steps = {0.004, 0.001, 0.003, 0.002};  // order does not matter
  // sorted 1..4 ms, n = 2: weights 1/16, 3/16, 5/16, 7/16 -> E[max] 3.125 ms; mean 2.5 ms
  CHECK(expected_straggler_wait(steps, 2) == Approx(0.000625));
  // many ranks: almost surely one of them draws the slowest step
  CHECK(expected_straggler_wait(steps, 64) == Approx(0.0015).epsilon(1e-6));
  CHECK(expected_straggler_wait(steps, 3) > expected_straggler_wait(steps, 2));
  CHECK(expected_straggler_wait(steps, 1) == 0);
  CHECK(expected_straggler_wait({0.002, 0.002, 0.002}, 8) == Approx(0).margin(1e-15));  // no spread, no wait
  CHECK(expected_straggler_wait({0.002}, 8) == 0);  // one sample: no spread known
}

TEST_CASE("synchronised steps wait for the slowest rank: the straggler wait is exposed communication") {
  StepOptions o;
  o.overlap = false;
  StepProfile p = profile();
  const StepPrediction lockstep = simulate_step(p, o, link(1e9, 0), 2, 2);
  p.step_s = {0.1, 0.1, 0.2, 0.2};  // E[max of 2] 0.175, mean 0.15
  const StepPrediction s = simulate_step(p, o, link(1e9, 0), 2, 2);
  CHECK(s.straggler_s == Approx(0.025));
  CHECK(s.breakdown.comm_exposed == Approx(lockstep.breakdown.comm_exposed + 0.025));
  CHECK(s.breakdown.total == Approx(lockstep.breakdown.total + 0.025));
  CHECK(s.breakdown.comm_overlapped == Approx(lockstep.breakdown.comm_overlapped));
  // One device, or no exchange (ranks never wait for each other): no straggler wait.
  CHECK(simulate_step(p, o, link(1e9, 0), 1, 1).breakdown.total == Approx(0.115));
  o.allreduce = AllreduceMode::None;
  CHECK(simulate_step(p, o, link(1e9, 0), 2, 2).breakdown.total == Approx(0.115));
  // Accumulating 2 micro-batches per step where the profile had 1: the deviations scale with the step.
  o.allreduce = AllreduceMode::Ring;
  o.accum_steps = 2;
  CHECK(simulate_step(p, o, link(1e9, 0), 2, 2).straggler_s == Approx(0.05));
}

namespace {

// A measured 2-rank link of 1 GB/s without latency whose all-reduces cost `extra` more when issued after a gap.
Interconnect gap_link(double extra) {
  Interconnect ic = link(1e9, 0);
  for (double s : {1e3, 1e8}) {
    ic.intra.curve.emplace_back(s, s / 1e9);
    ic.intra.gap_curve.emplace_back(s, s / 1e9 + extra);
  }
  ic.intra.curve_ranks = 2;
  ic.intra.gap_s = 0.01;
  return ic;
}

}  // namespace

TEST_CASE("an all-reduce that starts on an idle comm stream is priced after a gap, a queued one back to back") {
  StepOptions o;
  o.bucket_mb = 1;
  const double extra = 0.005, t_big = 1048576 / 1e9, t_small = 1024 / 1e9;
  // Overlap: buckets ready at 20, 60 and 100 ms, each all-reduce done long before the next is ready: all three
  // start on an idle stream.
  StepPrediction s = simulate_step(profile(), o, gap_link(extra), 2, 2);
  CHECK(s.after_gap == 3);
  CHECK(s.comm_s == Approx(2 * t_big + t_small + 3 * extra));
  CHECK(s.breakdown.comm_exposed == Approx(t_small + extra));
  // No overlap: the first starts after backward, the other two queue behind it.
  o.overlap = false;
  s = simulate_step(profile(), o, gap_link(extra), 2, 2);
  CHECK(s.after_gap == 1);
  CHECK(s.comm_s == Approx(2 * t_big + t_small + extra));
  CHECK(s.breakdown.total == Approx(0.115 + 2 * t_big + t_small + extra));
  // A link without a gap curve: the same schedule, nothing added.
  const StepPrediction plain = simulate_step(profile(), o, gap_link(0), 2, 2);
  CHECK(plain.comm_s == Approx(2 * t_big + t_small));
  // Overlap with buckets that queue: an all-reduce still running when the next bucket is ready.
  o.overlap = true;
  s = simulate_step(profile(), o, gap_link(0.050), 2, 2);  // 20..71 ms, then the 60 ms bucket waits: queued
  CHECK(s.after_gap == 2);  // the 100 ms bucket finds the stream idle again (60 ms bucket ends at ~72 ms)
}

TEST_CASE("a transport=gloo-tcp link is told how long it idled: TCP's window restarts after an idle RTO") {
  // 1 Gbit/s, 2 ms one way, MTU 9000, no bucket; 1 MiB buckets ready at 20 and 60 ms into backward, each done in
  // about 17 ms, so the second waits ~23 ms, under the 204 ms RTO. The first waits from the previous step's
  // last all-reduce (which ended after backward): optimizer, forward and 20 ms of backward.
  const Interconnect ic = gloo_tcp_link();
  const gloo_tcp::Path path{125e6, 2e-3, 9000, 0};
  StepOptions o;
  o.bucket_mb = 1;
  StepProfile p = profile();
  for (double fwd : {0.010, 1.0}) {
    INFO(fwd);
    p.forward_s = fwd;
    const StepPrediction s = simulate_step(p, o, ic, 2, 2);
    REQUIRE(s.buckets.size() == 3);
    CHECK(s.buckets[0].time_s == Approx(gloo_tcp::ring_time(1048576, 2, path, true, 0.005 + fwd + 0.020)));
    CHECK(s.buckets[1].time_s == Approx(gloo_tcp::ring_time(1048576, 2, path, true, 0)));
  }
  // One second of forward is five RTOs: the window starts again from 10 segments and the first bucket pays for it.
  CHECK(gloo_tcp::ring_time(1048576, 2, path, true, 1.025) > gloo_tcp::ring_time(1048576, 2, path, true, 0) + 4e-3);
}

TEST_CASE("a transport=gloo-tcp link idles, in the steady state, from the last all-reduce to the next step's first") {
  // All buckets ready in the first 30 ms of a 500 ms backward: the previous step's last all-reduce ended long before
  // its backward did, so the next step's first all-reduce finds the link idle for that tail too, past the RTO.
  const Interconnect ic = gloo_tcp_link();
  const gloo_tcp::Path path{125e6, 2e-3, 9000, 0};
  StepOptions o;
  o.bucket_mb = 1;
  StepProfile p = profile();
  p.backward_s = 0.500;
  p.layers = {{1, 256, 0.030}, {4, 262144, 0.020}, {7, 262144, 0.010}};
  const StepPrediction s = simulate_step(p, o, ic, 2, 2);
  REQUIRE(s.buckets.size() == 3);
  // Without the tail: launched at 10 ms after 5 ms of optimizer and 10 of forward; the other two queue behind it.
  const double lead = 0.005 + 0.010;
  const double end0 = 0.010 + gloo_tcp::ring_time(1048576, 2, path, true, lead + 0.010);
  const double end1 = end0 + gloo_tcp::ring_time(1048576, 2, path, false, 0);
  const double end2 = end1 + gloo_tcp::ring_time(1024, 2, path, false, 0);
  REQUIRE(end2 < 0.100);
  const double idle = lead + (0.500 - end2) + 0.010;
  REQUIRE(idle > 0.204);  // past the RTO (round trip + 200 ms)
  CHECK(s.buckets[0].time_s == Approx(gloo_tcp::ring_time(1048576, 2, path, true, idle)));
  CHECK(s.buckets[0].time_s > gloo_tcp::ring_time(1048576, 2, path, true, lead + 0.010) + 1e-3);
}

TEST_CASE("after a gap, ps and the hierarchical ring add what the gap costs on the measured link") {
  Interconnect ic = gap_link(0.004);
  const double S = 1e6;
  CHECK(allreduce_time(ic, AllreduceMode::Ps, S, 2, true) - allreduce_time(ic, AllreduceMode::Ps, S, 2) ==
        Approx(0.004));
  CHECK(allreduce_time(ic, AllreduceMode::None, S, 2, true) == 0);
  ic.gpus_per_node = 2;
  ic.inter = link(1e9, 1e-5).intra;
  CHECK(allreduce_time(ic, AllreduceMode::Ring, S, 4, true) - allreduce_time(ic, AllreduceMode::Ring, S, 4) ==
        Approx(0.004).epsilon(1e-6));
}

TEST_CASE("allreduce_time: ring in one node, NCCL's ring across nodes, and ps") {
  Interconnect ic = link(100e9, 2e-6);
  const double S = 1e8;
  CHECK(allreduce_time(ic, AllreduceMode::Ring, S, 8) == Approx(14 * 2e-6 + 2.0 * 7 / 8 * S / 100e9));
  CHECK(allreduce_time(ic, AllreduceMode::Ps, S, 8) == Approx(14 * (2e-6 + S / 100e9)));
  CHECK(allreduce_time(ic, AllreduceMode::None, S, 8) == 0);
  ic.gpus_per_node = 8;
  LinkModel net;
  net.label = "net";
  net.bandwidth_Bps = 10e9;
  net.latency_s = 10e-6;
  ic.inter = net;
  // 16 GPUs on 2 nodes, one NIC per GPU: bandwidth min(100, 8 x 10) = 80 GB/s; 28 intra and 2 inter steps.
  CHECK(allreduce_time(ic, AllreduceMode::Ring, S, 16) ==
        Approx(28 * 2e-6 + 2 * 10e-6 + 2.0 * 15 / 16 * S / 80e9));
  // One NIC per node: the NIC is the bottleneck.
  ic.nics_per_node = 1;
  CHECK(allreduce_time(ic, AllreduceMode::Ring, S, 16) ==
        Approx(28 * 2e-6 + 2 * 10e-6 + 2.0 * 15 / 16 * S / 10e9));
  // Within one node the inter-node link is not used.
  CHECK(allreduce_time(ic, AllreduceMode::Ring, S, 8) == Approx(14 * 2e-6 + 2.0 * 7 / 8 * S / 100e9));
  CHECK(ic.label() == "test+net");
}

}  // namespace mg

namespace mg {

TEST_CASE("rescale_profile keeps the shape of the step and sets its rate") {
  StepProfile p;
  p.batch_per_device = 32;
  p.forward_s = 0.010;
  p.backward_s = 0.100;
  p.optimizer_s = 0.005;
  p.layers = {{1, 256, 0.100}, {4, 262144, 0.060}};
  rescale_profile(p, 32 / 0.0575);  // half the step time
  CHECK(p.forward_s == Approx(0.005));
  CHECK(p.backward_s == Approx(0.050));
  CHECK(p.optimizer_s == Approx(0.0025));
  CHECK(p.layers[1].ready_s == Approx(0.030));
  CHECK(p.images_per_sec == Approx(32 / 0.0575));
  // this machine's step-to-step spread is not the other device's
  p.step_s = {0.1, 0.2};
  rescale_profile(p, 100);
  CHECK(p.step_s.empty());
  CHECK_THROWS(rescale_profile(p, 0));
}

TEST_CASE("rebatch_profile scales input, forward and backward with the batch, not the optimizer") {
  StepProfile p;
  p.batch_per_device = 8;
  p.accum_steps = 2;
  p.input_wait_s = 0.001;
  p.forward_s = 0.010;
  p.backward_s = 0.020;
  p.optimizer_s = 0.005;
  p.layers = {{1, 256, 0.020}, {4, 262144, 0.012}};
  p.step_s = {0.036, 0.072};
  p.wire_casts = {{"bf16", 1e-9, 2e-9, 262400, 5}};
  rebatch_profile(p, 32);
  CHECK(p.batch_per_device == 32);
  CHECK(p.input_wait_s == Approx(0.004));
  CHECK(p.forward_s == Approx(0.040));
  CHECK(p.backward_s == Approx(0.080));
  CHECK(p.optimizer_s == Approx(0.005));
  CHECK(p.layers[0].ready_s == Approx(0.080));
  CHECK(p.layers[1].ready_s == Approx(0.048));
  CHECK(p.images_per_sec == Approx(64 / 0.129));  // 32 x 2 micro-batches over the new step
  CHECK(p.step_s[0] == Approx(0.129));            // the same relative spread
  CHECK(p.step_s[1] == Approx(0.258));
  CHECK(p.wire_casts[0].to_wire_s_per_element == 1e-9);  // per element: no batch in it
  rebatch_profile(p, 32);
  CHECK(p.forward_s == Approx(0.040));
  CHECK_THROWS_WITH(rebatch_profile(p, 0), "--batch-size 0 must be between 1 and 65536");
  CHECK_THROWS_WITH(rebatch_profile(p, 65537), "--batch-size 65537 must be between 1 and 65536");
}

}  // namespace mg

namespace mg {

namespace {

// 10 ns per element to a 16-bit wire, 5 ns back: the 1-MiB buckets of profile() (262144 elements each) cost
// 2.62144 ms out and 1.31072 ms in, the last one (256 elements) 2.56 us and 1.28 us.
StepOptions bf16_casts(bool overlap) {
  StepOptions o;
  o.bucket_mb = 1;
  o.overlap = overlap;
  o.wire = DType::BF16;
  o.cast_to_wire_s_per_element = 10e-9;
  o.cast_from_wire_s_per_element = 5e-9;
  return o;
}
constexpr double kOut = 262144 * 10e-9, kOutLast = 256 * 10e-9, kIn = 262144 * 5e-9, kInLast = 256 * 5e-9;

}  // namespace

TEST_CASE("16-bit wire, overlap: each outgoing cast delays the rest of backward, incoming casts precede the optimizer") {
  // Bandwidth-bound and hidden: 2 ranks at 1 GB/s, a bf16 1-MiB bucket takes 0.52 ms.
  const StepPrediction s = simulate_step(profile(), bf16_casts(true), link(1e9, 0), 2, 2);
  const double out = 2 * kOut + kOutLast, in = 2 * kIn + kInLast;
  CHECK(s.cast_to_wire_s == Approx(out));
  CHECK(s.cast_from_wire_s == Approx(in));
  CHECK(s.breakdown.backward == Approx(0.100 + out));  // the casts run on the compute stream inside backward
  CHECK(s.breakdown.comm_exposed == Approx(in));       // the last bucket (0.5 us) finishes before the casts back
  CHECK(s.breakdown.total == Approx(0.010 + 0.100 + out + in + 0.005));
  CHECK(s.wire_bytes == 524544 * 2);
}

TEST_CASE("16-bit wire, overlap: a bucket's all-reduce starts after its own cast and every earlier one") {
  // Latency-bound: 20 ms per all-reduce on 2 ranks. Buckets ready at 20, 60, 100 ms of the cast-free backward.
  const StepPrediction s = simulate_step(profile(), bf16_casts(true), link(1e18, 0.010), 2, 2);
  const double start0 = 0.020 + kOut;                 // after its cast
  const double start1 = 0.060 + kOut + kOut;          // backward moved by bucket 0's cast, then its own
  const double start2 = 0.100 + 2 * kOut + kOutLast;  // = backward's end as the trainer records it
  REQUIRE(start1 > start0 + 0.020);                   // the comm stream is free: the casts alone set the starts
  const double end2 = start2 + 0.020;
  // The compute stream casts buckets 0 and 1 back while bucket 2 is on the wire, then waits for it.
  CHECK(s.breakdown.backward == Approx(start2));
  CHECK(s.breakdown.comm_exposed == Approx(end2 + kInLast - start2));
  CHECK(s.breakdown.total == Approx(0.010 + end2 + kInLast + 0.005));
}

TEST_CASE("16-bit wire, no overlap: the outgoing casts follow backward, in bucket order, and are exposed") {
  const StepPrediction s = simulate_step(profile(), bf16_casts(false), link(1e9, 0), 2, 2);
  CHECK(s.breakdown.backward == Approx(0.100));  // backward's end is recorded before the launches
  // Bucket 0 leaves after its cast, bucket 1 after both casts; the casts back start after the last cast out
  // and never wait (each all-reduce is shorter than the casts around it).
  const double out = 2 * kOut + kOutLast, in = 2 * kIn + kInLast;
  CHECK(s.breakdown.comm_exposed == Approx(out + in));
  CHECK(s.breakdown.total == Approx(0.115 + out + in));
}

TEST_CASE("16-bit casts: none for fp32, one device or --allreduce none, and once per step with accumulation") {
  StepOptions fp32 = bf16_casts(true);
  fp32.wire = DType::F32;
  const StepPrediction a = simulate_step(profile(), fp32, link(1e9, 0), 2, 2);
  CHECK(a.cast_to_wire_s == 0);
  CHECK(a.breakdown.backward == Approx(0.100));
  const StepPrediction one = simulate_step(profile(), bf16_casts(true), link(1e9, 0), 1, 1);
  CHECK(one.cast_to_wire_s == 0);
  CHECK(one.breakdown.total == Approx(0.115));
  StepOptions none = bf16_casts(true);
  none.allreduce = AllreduceMode::None;
  CHECK(simulate_step(profile(), none, link(1e9, 0), 2, 2).breakdown.total == Approx(0.115));
  StepOptions acc = bf16_casts(true);
  acc.accum_steps = 3;  // the gradients are exchanged (and cast) after the last micro-batch only
  const StepPrediction k = simulate_step(profile(), acc, link(1e9, 0), 2, 2);
  CHECK(k.breakdown.backward == Approx(3 * 0.100 + 2 * kOut + kOutLast));
  CHECK(k.breakdown.comm_exposed == Approx(2 * kIn + kInLast));
}

}  // namespace mg
