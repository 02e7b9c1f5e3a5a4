#include <catch2/catch.hpp>

#include "result/breakdown.h"
#include "stats/summary.h"
#include "support/result_fixture.h"

using namespace mg;

TEST_CASE("summarize derives throughput, breakdown and statistics from the samples") {
  DeviceCountResult r;
  r.devices = 4;
  r.global_batch = 128;
  r.samples = {test::make_step(0.01, 0.03, 0.07, 0.01, 0.02, 0.03),   // 0.15 s
               test::make_step(0.01, 0.04, 0.08, 0.02, 0.02, 0.05),   // 0.20 s
               test::make_step(0.02, 0.05, 0.09, 0.03, 0.02, 0.06)};  // 0.25 s
  summarize(r);
  // 3 steps x 128 images over 0.6 s.
  CHECK(r.images_per_sec == Approx(640));
  CHECK(r.images_per_sec_per_device == Approx(160));
  CHECK(r.step_time.samples == 3);
  CHECK(r.step_time.median_s == Approx(0.20));
  CHECK(r.breakdown.total == Approx(0.20));
  CHECK(r.breakdown.input_wait == Approx(0.04 / 3));
  CHECK(r.breakdown.forward == Approx(0.04));
  CHECK(r.breakdown.backward == Approx(0.08));
  CHECK(r.breakdown.comm_exposed == Approx(0.02));
  CHECK(r.breakdown.comm_overlapped == Approx(0.02));
  CHECK(r.breakdown.optimizer == Approx(0.14 / 3));
  CHECK(breakdown_relative_gap(r.breakdown) < 1e-12);  // means of parts add up to the mean of totals
}

TEST_CASE("summarize derives a language model's tokens/s and the model FLOPs utilisation") {
  DeviceCountResult r;
  r.devices = 4;
  r.global_batch = 128;  // sequences
  r.tokens_per_sample = 256;
  r.model_flops_per_sample = 2e9;
  r.samples = {test::make_step(0, 0.1, 0.1, 0, 0, 0), test::make_step(0, 0.1, 0.1, 0, 0, 0)};
  summarize(r);
  CHECK(r.images_per_sec == Approx(640));  // 2 x 128 sequences over 0.4 s
  CHECK(r.tokens_per_sec == Approx(640 * 256));
  CHECK(r.mfu == 0);  // no known peak
  r.peak_flops_per_device = 1e12;
  summarize(r);
  CHECK(r.mfu == Approx(160 * 2e9 / 1e12));  // 160 sequences/s per device
}

TEST_CASE("summarize computes all-reduce bandwidth as nccl-tests does") {
  DeviceCountResult r;
  r.devices = 4;
  r.global_batch = 4;
  r.samples = {test::make_step(0, 0.1, 0.1, 0, 0, 0)};
  r.allreduce.bytes_per_step = 1000000000;                 // 1 GB
  r.allreduce.per_bucket = {{600000000, 0.3}, {400000000, 0.2}};  // 0.5 s per step
  summarize(r);
  CHECK(r.allreduce.time_s == Approx(0.5));
  CHECK(r.allreduce.algbw_GBps == Approx(2.0));
  CHECK(r.allreduce.busbw_GBps == Approx(2.0 * 2 * 3 / 4));  // 3.0

  r.devices = 1;  // nothing crosses a link
  summarize(r);
  CHECK(r.allreduce.busbw_GBps == 0);

  DeviceCountResult empty;
  empty.devices = 2;
  summarize(empty);
  CHECK(empty.images_per_sec == 0);
  CHECK(empty.allreduce.algbw_GBps == 0);
}

TEST_CASE("scaling efficiency and speedup against the 1-device run of the same transport") {
  std::vector<DeviceCountResult> runs(5);
  runs[0].devices = 1, runs[0].transport = "p2p", runs[0].images_per_sec = 100;
  runs[1].devices = 2, runs[1].transport = "p2p", runs[1].images_per_sec = 180;
  runs[2].devices = 4, runs[2].transport = "p2p", runs[2].images_per_sec = 300;
  runs[3].devices = 1, runs[3].transport = "shm", runs[3].images_per_sec = 50;
  runs[4].devices = 2, runs[4].transport = "net", runs[4].images_per_sec = 90;  // no 1-device "net" run
  compute_scaling(runs);
  CHECK(runs[0].scaling_efficiency == Approx(1.0));
  CHECK(runs[0].speedup == Approx(1.0));
  CHECK(runs[1].scaling_efficiency == Approx(0.9));
  CHECK(runs[1].speedup == Approx(1.8));
  CHECK(runs[2].scaling_efficiency == Approx(0.75));
  CHECK(runs[2].speedup == Approx(3.0));
  CHECK(runs[3].scaling_efficiency == Approx(1.0));
  CHECK(runs[4].scaling_efficiency == 0);
  CHECK(runs[4].speedup == 0);
}

TEST_CASE("images per second is over the wall time of the timed window and the step-time rate is kept beside it") {
  DeviceCountResult r;
  r.devices = 2;
  r.global_batch = 64;
  r.samples = {test::make_step(0, 0.05, 0.1, 0, 0, 0.05), test::make_step(0, 0.05, 0.1, 0, 0, 0.05)};  // 0.2 s each
  r.timed_wall_s = 0.5;  // the device idled 0.1 s between steps (a launch-bound host)
  summarize(r);
  CHECK(r.images_per_sec == Approx(2 * 64 / 0.5));
  CHECK(r.images_per_sec_from_steps == Approx(2 * 64 / 0.4));
  CHECK(r.images_per_sec_per_device == Approx(r.images_per_sec / 2));
  r.timed_wall_s = 0;  // older files and predictions have no window: the step-time rate stands in
  summarize(r);
  CHECK(r.images_per_sec == Approx(2 * 64 / 0.4));
}
