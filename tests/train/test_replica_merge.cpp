// The merge of replica outputs, field by field, and the all-gather that carries other processes' replicas to
// it: means of step times and loss, maxima of memory and window, checksums whole.
#include <catch2/catch.hpp>

#include "core/run_on_threads.h"
#include "test_support.h"
#include "train/replica_merge.h"

using namespace mg;

namespace {

ReplicaTotals totals(int r) {
  ReplicaTotals t;
  for (int s = 0; s < 3; ++s) {
    StepBreakdown b;
    b.input_wait = 0.001 * (r + 1);
    b.forward = 0.010 * (r + 1) + s * 1e-4;
    b.backward = 0.020 * (r + 1);
    b.comm_exposed = 0.003 * (r + 1);
    b.comm_overlapped = 0.005 * (r + 1);
    b.optimizer = 0.002 * (r + 1);
    b.total = b.input_wait + b.forward + b.backward + b.comm_exposed + b.optimizer;
    t.samples.push_back(b);
  }
  t.bucket_time_s = {0.004 * (r + 1), 0.001 * (r + 1)};
  t.loss = 2.0 + r;
  t.overflow_steps = 2 * r;
  // Beyond 2^24 and 2^53-ish patterns: an fp32 path would round these.
  t.peak_memory_bytes = (size_t{1} << 40) + 12345 + static_cast<size_t>(r);
  t.device_memory_in_use_bytes = (size_t{3} << 33) + 7 * static_cast<size_t>(r);
  t.window_s = 0.5 + 0.25 * r;
  t.checksum = 0xfedcba9876543211ull ^ static_cast<uint64_t>(r);
  return t;
}

ReplicaOutput output(int r) {
  ReplicaOutput o;
  o.totals = totals(r);
  o.layers = {GradientLayer{4, 100, 0.03 * (r + 1)}, GradientLayer{1, 50, 0.06 * (r + 1)}};
  o.skipped_images = r + 1;
  o.bucket_bytes = {400, 200};
  o.bucket_ready_layer = {4, 1};
  o.wire_bytes = 600;
  o.wire_dtype = "bf16";
  o.trace = {TraceSpan{r, "compute", "forward", 0.0, 0.01}};
  return o;
}

}  // namespace

TEST_CASE("merge: step parts and loss are means over every replica, memory and window maxima, checksums whole",
          "[train][merge]") {
  const std::vector<ReplicaTotals> world = {totals(0), totals(1), totals(2), totals(3)};
  const std::vector<ReplicaOutput> local = {output(0), output(1)};  // this process drives two of the four
  DeviceCountResult entry;
  entry.devices = 4;
  entry.allreduce.library = "gloo";
  const DeviceCountResult r = merge_replicas(entry, world, local);

  REQUIRE(r.devices == 4);
  REQUIRE(r.samples.size() == 3);
  for (size_t s = 0; s < 3; ++s) {
    for (const BreakdownPart& part : kBreakdownParts) {
      double mean = 0;
      for (const auto& t : world) mean += t.samples[s].*part.field / 4;
      REQUIRE(r.samples[s].*part.field == Approx(mean).epsilon(1e-12));
    }
    REQUIRE(r.samples[s].total == Approx((world[0].samples[s].total + world[1].samples[s].total +
                                          world[2].samples[s].total + world[3].samples[s].total) / 4)
                                      .epsilon(1e-12));
  }
  REQUIRE(r.final_loss == Approx(3.5));
  REQUIRE(r.overflow_steps == 3);  // (0 + 2 + 4 + 6) / 4
  REQUIRE(r.peak_memory_bytes == (size_t{1} << 40) + 12345 + 3);
  REQUIRE(r.device_memory_in_use_bytes == (size_t{3} << 33) + 21);
  REQUIRE(r.timed_wall_s == 1.25);
  REQUIRE(r.replica_checksums ==
          std::vector<uint64_t>{0xfedcba9876543211ull, 0xfedcba9876543210ull, 0xfedcba9876543213ull,
                                0xfedcba9876543212ull});
  REQUIRE(r.wall_s == Approx(r.samples[0].total + r.samples[1].total + r.samples[2].total));

  // Buckets: layout from this process, time the mean over all replicas, ready time from the local profile.
  REQUIRE(r.allreduce.buckets == 2);
  REQUIRE(r.allreduce.dtype == "bf16");
  REQUIRE(r.allreduce.bytes_per_step == 600);
  REQUIRE(r.allreduce.per_bucket[0].bytes == 400);
  REQUIRE(r.allreduce.per_bucket[0].time_s == Approx(0.004 * 2.5));
  REQUIRE(r.allreduce.per_bucket[1].time_s == Approx(0.001 * 2.5));
  // Profile: local replicas, mean over the 3 timed steps: (0.03 + 0.06) / (3 * 2).
  REQUIRE(r.gradient_layers[0].ready_s == Approx(0.09 / 6));
  REQUIRE(r.allreduce.per_bucket[0].ready_s == Approx(0.09 / 6));
  REQUIRE(r.allreduce.per_bucket[1].ready_s == Approx(0.18 / 6));
  REQUIRE(r.skipped_images == 3);
  REQUIRE(r.trace.size() == 2);

  entry.allreduce.library = "none";  // independent replicas: no collective ran, so no bucket time
  for (const BucketTiming& b : merge_replicas(entry, world, local).allreduce.per_bucket) REQUIRE(b.time_s == 0.0);
}

TEST_CASE("the world all-gather carries every replica's totals bit for bit in rank order", "[train][merge]") {
  const std::string transport = GENERATE(std::string("local"), std::string("tcp"));
  INFO("transport " << transport);
  const int n = 3;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<Backend*> raw;
  for (int i = 0; i < n; ++i) {
    backends.push_back(make_backend(DeviceKind::Cpu, i, BackendOptions{1}));
    raw.push_back(backends.back().get());
  }
  CommOptions copt;
  copt.timeout_s = 60;
  copt.transport = kTransportNames.parse(transport, "test transport");
  copt.job_key = "gather-" + transport;
  auto comms = create_communicators(LaunchInfo{}, raw, copt);
  std::vector<std::vector<ReplicaTotals>> got(n);
  run_on_threads(n, [&](int i) { got[i] = gather_world_totals(*comms[i], totals(i)); });
  for (int i = 0; i < n; ++i) {
    REQUIRE(got[i].size() == static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      const ReplicaTotals want = totals(r), &t = got[i][r];
      REQUIRE(t.checksum == want.checksum);
      REQUIRE(t.peak_memory_bytes == want.peak_memory_bytes);
      REQUIRE(t.device_memory_in_use_bytes == want.device_memory_in_use_bytes);
      REQUIRE(t.loss == want.loss);
      REQUIRE(t.overflow_steps == want.overflow_steps);
      REQUIRE(t.window_s == want.window_s);
      REQUIRE(t.bucket_time_s == want.bucket_time_s);
      REQUIRE(t.samples.size() == want.samples.size());
      for (size_t s = 0; s < t.samples.size(); ++s) {
        REQUIRE(t.samples[s].forward == want.samples[s].forward);
        REQUIRE(t.samples[s].total == want.samples[s].total);
      }
    }
  }
}
