#include <catch2/catch.hpp>

#include "core/error.h"
#include "result/result_json.h"
#include "stats/run_pool.h"
#include "support/result_fixture.h"

using namespace mg;

TEST_CASE("pooling process runs concatenates samples and marks each run's share") {
  const RunResult a = test::make_result({1, 2}, {0.10, 0.11}, 8, 0.01, 1);
  RunResult b = test::make_result({1, 2}, {0.12, 0.13}, 6, 0.01, 2);
  b.process_runs = {{1795000020.5, 1795000030.0}};
  b.runs[1].allreduce.per_bucket = {{52428800, 0.006}, {49799328, 0.0055}};
  b.runs[1].peak_memory_bytes = 1;
  b.runs[1].final_loss = 5.5;
  const RunResult p = pool_runs({a, b});
  REQUIRE(p.runs.size() == 2);
  const DeviceCountResult& two = p.runs[1];
  CHECK(two.samples.size() == 14);
  CHECK(two.run_samples == std::vector<int64_t>{8, 6});
  CHECK(two.samples[8].total == b.runs[1].samples[0].total);  // order kept: a's steps, then b's
  CHECK(two.allreduce.per_bucket[0].time_s == Approx((0.004 * 8 + 0.006 * 6) / 14));  // weighted by steps
  CHECK(two.peak_memory_bytes == a.runs[1].peak_memory_bytes);
  CHECK(two.wall_s == Approx(a.runs[1].wall_s + b.runs[1].wall_s));
  CHECK(two.overflow_steps == 2);
  CHECK(two.final_loss == 5.5);
  CHECK(two.step_time.process_runs == 2);
  CHECK(two.step_time.ci95_method == "between-runs");
  CHECK(two.step_time.samples == 14);
  // Recomputed from the pooled samples: the 1-device run is the baseline of the pooled efficiency.
  CHECK(p.runs[0].scaling_efficiency == Approx(1.0));
  CHECK(two.scaling_efficiency == Approx(two.images_per_sec / (2 * p.runs[0].images_per_sec)));
  CHECK(to_json(p).at("runs").at(1).at("run_samples") == nlohmann::json::array({8, 6}));
  // Each child's start and end, in the order they ran, so compare can tell how the runs were made.
  REQUIRE(p.process_runs.size() == 2);
  CHECK(p.process_runs[0].started_unix_s == a.process_runs[0].started_unix_s);
  CHECK(p.process_runs[1].finished_unix_s == 1795000030.0);

  // A part that was itself pooled keeps its boundaries; a single part is not "pooled".
  const RunResult nested = pool_runs({p, a});
  CHECK(nested.runs[1].run_samples == std::vector<int64_t>{8, 6, 8});
  CHECK(nested.process_runs.size() == 3);
  const RunResult alone = pool_runs({a});
  CHECK(alone.runs[1].run_samples.empty());
  CHECK(alone.runs[1].step_time.ci95_method == "order-statistic");
}

TEST_CASE("pooled MFU divides by the mean of the process runs' measured peaks") {
  RunResult a = test::make_result({1}, {0.10}, 8, 0.0, 1), b = test::make_result({1}, {0.10}, 8, 0.0, 2);
  for (RunResult* r : {&a, &b}) {
    r->runs[0].model_flops_per_sample = 1e9;
    r->runs[0].peak_flops_source = "measured fp32 FMA peak (avx2, 2 threads)";
  }
  a.runs[0].peak_flops_per_device = 300e9;
  b.runs[0].peak_flops_per_device = 500e9;
  const DeviceCountResult p = pool_runs({a, b}).runs[0];
  CHECK(p.peak_flops_per_device == Approx(400e9));
  CHECK(p.mfu == Approx(p.images_per_sec_per_device * 1e9 / 400e9));
  CHECK(p.peak_flops_source == "measured fp32 FMA peak (avx2, 2 threads); pooled: the mean of 2 process runs' peaks, 400 GFLOP/s");
  CHECK(pool_runs({a}).runs[0].peak_flops_per_device == Approx(300e9));  // one run: its own peak, unchanged text
  CHECK(pool_runs({a}).runs[0].peak_flops_source == a.runs[0].peak_flops_source);
}

TEST_CASE("pooling refuses runs that measured different things") {
  const RunResult a = test::make_result({1, 2}, {0.10, 0.11}, 8, 0.01, 1);
  const RunResult fewer = test::make_result({1}, {0.10}, 8, 0.01, 1);
  const RunResult other = test::make_result({1, 4}, {0.10, 0.11}, 8, 0.01, 1);
  const RunResult shm = test::make_result({1, 2}, {0.10, 0.11}, 8, 0.01, 1, "shm");
  CHECK_THROWS_AS(pool_runs({a, fewer}), Error);
  CHECK_THROWS_AS(pool_runs({a, other}), Error);
  CHECK_THROWS_AS(pool_runs({a, shm}), Error);
  CHECK_THROWS_AS(pool_runs({}), Error);
}
