// The trainer end to end on CPU replicas: synchronised weights, an additive breakdown, learning, and its errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.h"
#include "stats/summary.h"
#include "train/sweep.h"
#include "train/trainer.h"

using namespace mg;

namespace {

RunConfig tiny_config() {
  RunConfig c;
  c.model = "tiny";
  c.num_classes = 4;
  c.device = DeviceKind::Cpu;
  c.batch_size = 4;
  c.steps = 6;
  c.warmup = 1;
  c.threads = 2;
  c.lr = 0.05f;
  c.comm_timeout_s = 60;
  return c;
}

// One entry of `replicas` local CPU replicas (threads), its communicators joined under `job_key`.
DeviceCountResult train_local(const RunConfig& c, int replicas, const std::string& job_key) {
  TrainRequest req;
  req.local_replicas = replicas;
  req.job_key = job_key;
  return train_replicas(c, LaunchInfo{}, req).result;
}

}  // namespace

TEST_CASE("replicas stay bitwise identical after training steps", "[train]") {
  // Replica threads exchange through shared memory unless told to use Gloo's TCP.
  const auto [transport, library] = GENERATE(std::make_pair("auto", "local"), std::make_pair("tcp", "gloo"));
  INFO("transport " << transport);
  RunConfig c = tiny_config();
  TrainRequest req;
  req.local_replicas = 2;
  req.job_key = std::string("ident-") + transport;
  req.transport = kTransportNames.parse(transport, "test transport");
  const DeviceCountResult r = train_replicas(c, LaunchInfo{}, req).result;
  REQUIRE(r.devices == 2);
  REQUIRE(r.replica_checksums.size() == 2);
  REQUIRE(r.replica_checksums[0] == r.replica_checksums[1]);
  REQUIRE(r.samples.size() == 6);
  REQUIRE(r.allreduce.library == library);
  REQUIRE(r.allreduce.bytes_per_step > 0);
}

TEST_CASE("independent replicas (--allreduce none) drift apart", "[train]") {
  RunConfig c = tiny_config();
  c.allreduce = AllreduceMode::None;
  const DeviceCountResult r = train_local(c, 2, "indep");
  REQUIRE(r.allreduce.library == "none");
  REQUIRE(r.replica_checksums[0] != r.replica_checksums[1]);  // different shards, no exchange
}

TEST_CASE("breakdown parts add up to the step time", "[train][timing]") {
  RunConfig c = tiny_config();
  c.synthetic_source = SyntheticSource::Host;
  const DeviceCountResult r = train_local(c, 2, "parts");
  for (const StepBreakdown& s : r.samples) {
    const double sum = s.input_wait + s.forward + s.backward + s.comm_exposed + s.optimizer;
    REQUIRE(s.total > 0);
    REQUIRE(s.forward > 0);
    REQUIRE(s.backward > 0);
    // Consecutive events on one stream: the parts tile the step; only float rounding separates them.
    REQUIRE(std::abs(sum - s.total) <= 1e-6 + 1e-6 * s.total);
    REQUIRE(s.comm_overlapped >= 0);
  }
}

TEST_CASE("loss falls when the tiny network learns a fixed batch", "[train][learning]") {
  RunConfig c = tiny_config();
  c.steps = 40;
  c.warmup = 0;
  c.lr = 0.05f;
  c.num_classes = 2;
  TrainRequest first, later;
  first.local_replicas = later.local_replicas = 1;
  RunConfig one = c;
  one.steps = 1;
  const double start = train_replicas(one, LaunchInfo{}, first).result.final_loss;
  const double end = train_replicas(c, LaunchInfo{}, later).result.final_loss;
  INFO("loss after 1 step " << start << ", after 40 steps " << end);
  REQUIRE(std::isfinite(end));
  REQUIRE(end < 0.5 * start);
}

TEST_CASE("AdamW: replicas stay identical, the loss falls, and the weights are not SGD's", "[train][learning]") {
  RunConfig c = tiny_config();
  c.warmup = 0;
  c.num_classes = 2;
  c.optimizer = Optimizer::AdamW;
  c.lr = 0.01f;
  c.weight_decay = 0.01f;
  RunConfig one = c;
  one.steps = 1;
  c.steps = 40;
  const DeviceCountResult first = train_local(one, 2, "adamw-1"), last = train_local(c, 2, "adamw-40");
  REQUIRE(last.replica_checksums.size() == 2);
  CHECK(last.replica_checksums[0] == last.replica_checksums[1]);
  INFO("loss after 1 step " << first.final_loss << ", after 40 steps " << last.final_loss);
  REQUIRE(std::isfinite(last.final_loss));
  CHECK(last.final_loss < 0.5 * first.final_loss);
  RunConfig sgd = one;
  sgd.optimizer = Optimizer::Sgd;
  CHECK(train_local(sgd, 2, "sgd-1").replica_checksums[0] != first.replica_checksums[0]);
}

TEST_CASE("a diverging loss stops the run naming the step", "[train][errors]") {
  RunConfig c = tiny_config();
  c.lr = 1e30f;
  c.steps = 20;
  TrainRequest req;
  try {
    train_replicas(c, LaunchInfo{}, req);
    FAIL("expected an error");
  } catch (const Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    REQUIRE(msg.find("at step") != std::string::npos);
    REQUIRE((msg.find("NaN") != std::string::npos || msg.find("Inf") != std::string::npos));
  }
}

TEST_CASE("strong scaling rejects a batch that does not split", "[train][errors]") {
  RunConfig c = tiny_config();
  c.scaling = Scaling::Strong;
  c.batch_size = 5;
  TrainRequest req;
  req.local_replicas = 2;
  REQUIRE_THROWS_AS(train_replicas(c, LaunchInfo{}, req), UsageError);
}

TEST_CASE("device counts: baseline added, duplicates and too many rejected", "[train][sweep]") {
  RunConfig c = tiny_config();
  c.device_counts = {2};
  REQUIRE(resolve_device_counts(c, LaunchInfo{}) == std::vector<int>{1, 2});
  c.no_baseline = true;
  REQUIRE(resolve_device_counts(c, LaunchInfo{}) == std::vector<int>{2});
  c.device_counts = {1, 1};
  REQUIRE_THROWS_AS(resolve_device_counts(c, LaunchInfo{}), UsageError);
  c.device_counts = {64};
  REQUIRE_THROWS_AS(resolve_device_counts(c, LaunchInfo{}), UsageError);
  LaunchInfo mpi;
  mpi.launcher = Launcher::Mpi;
  mpi.world_size = 2;
  c.device_counts = {4};
  REQUIRE_THROWS_AS(resolve_device_counts(c, mpi), UsageError);
  c.device_counts = {};
  REQUIRE(resolve_device_counts(c, mpi) == std::vector<int>{2});
  // The default sweep (no --gpus) of a process under a launcher of 4 is that world, not a local sweep.
  mpi.world_size = 4;
  c.device_counts = {1, 2};
  c.device_counts_defaulted = true;
  REQUIRE(resolve_device_counts(c, mpi) == std::vector<int>{4});
}

TEST_CASE("forward-only traced runs with two replicas time no collectives that never ran",
          "[train][timing]") {
  // Bucket times were once read from events nothing recorded (a GPU fails at step 0).
  RunConfig c = tiny_config();
  c.forward_only = true;
  c.steps = 3;
  TrainRequest req;
  req.local_replicas = 2;
  req.trace = true;
  req.job_key = "fwd-trace";
  const DeviceCountResult r = train_replicas(c, LaunchInfo{}, req).result;
  REQUIRE(r.samples.size() == 3);
  REQUIRE_FALSE(r.trace.empty());
  for (const TraceSpan& t : r.trace) REQUIRE(t.stream != "comm");
  for (const BucketTiming& b : r.allreduce.per_bucket) REQUIRE(b.time_s == 0.0);
}

TEST_CASE("gradient accumulation beyond the staging depth keeps every copy span of a traced step", "[train][timing]") {
  // The stager's copy-event ring must outlive two steps of K batches each (steps are read one behind).
  RunConfig c = tiny_config();
  c.synthetic_source = SyntheticSource::Host;
  c.staging_depth = 1;
  c.accum_steps = 5;
  c.steps = 3;
  TrainRequest req;
  req.trace = true;
  req.job_key = "accum-trace";
  const DeviceCountResult r = train_replicas(c, LaunchInfo{}, req).result;
  int copies = 0;
  for (const TraceSpan& t : r.trace) {
    if (t.stream != "copy") continue;
    ++copies;
    REQUIRE(t.dur_s >= 0.0);
    REQUIRE(t.start_s > -1.0);  // relative to the window start: a stale (re-recorded) event lands far off
  }
  REQUIRE(copies == 5 * 3);
}

TEST_CASE("images per second is global images over the wall time of the timed window with step times beside it",
          "[train][timing]") {
  RunConfig c = tiny_config();
  DeviceCountResult r = train_local(c, 2, "window");
  summarize(r);
  double steps = 0;
  for (const StepBreakdown& s : r.samples) steps += s.total;
  REQUIRE(r.timed_wall_s > 0);
  // Steps run back to back inside the window, so the window is never shorter than their sum.
  REQUIRE(r.timed_wall_s >= steps * (1 - 1e-6));
  REQUIRE(r.images_per_sec == Approx(double(r.global_batch) * r.samples.size() / r.timed_wall_s));
  REQUIRE(r.images_per_sec_from_steps == Approx(double(r.global_batch) * r.samples.size() / steps));
  REQUIRE(r.images_per_sec <= r.images_per_sec_from_steps * (1 + 1e-6));
  // On CPU the device-reported figure is the process's resident high-water mark, which holds mgbench's own.
  REQUIRE(r.peak_memory_bytes > 0);
  REQUIRE(r.device_memory_in_use_bytes >= r.peak_memory_bytes);
}
