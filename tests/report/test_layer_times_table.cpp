#include <catch2/catch.hpp>

#include "report/layer_times_table.h"

using namespace mg;

TEST_CASE("layer times table: kinds summed, largest first, shares of the total, for the last entry that has them") {
  RunResult r;
  r.runs.resize(2);
  r.runs[0].devices = 1;
  r.runs[0].layer_times = {{1, "a", "linear", 1, 1}};  // an earlier entry: not shown
  r.runs[1].devices = 2;
  r.runs[1].layer_times = {{0, "input", "input", 0.0001, 0},      {1, "fc1", "linear", 0.002, 0.004},
                           {2, "attn", "attention", 0.003, 0.006}, {3, "fc2", "linear", 0.001, 0.0019},
                           {-1, "loss", "loss", 0.0020, 0}};
  const std::string t = format_layer_times(r, 2);
  INFO(t);
  CHECK(t.find("time by layer kind, last warm-up step (replica 0, 2 devices): 20.00 ms of forward, loss and "
               "backward\n") == 0);
  const size_t attention = t.find("  attention             1      3.000      6.000   45.0%\n");
  const size_t linear = t.find("  linear                2      3.000      5.900   44.5%\n");
  const size_t loss = t.find("  loss                  1      2.000      0.000   10.0%\n");
  CHECK(attention != std::string::npos);
  CHECK(linear != std::string::npos);
  CHECK(loss != std::string::npos);
  CHECK(attention < linear);
  CHECK(linear < loss);
  CHECK(t.find("  slowest layers: attn (attention) 9.000 ms, fc1 (linear) 6.000 ms\n") != std::string::npos);
  CHECK(t.find("first step") == std::string::npos);
  r.config.warmup = 1;  // the profiled step was the run's first
  CHECK(format_layer_times(r).find("ms of forward, loss and backward (the run's first step: one-time set-up "
                                   "included; --warmup 2 or more excludes it)\n") != std::string::npos);
  r.runs[1].layer_times.clear();
  CHECK(format_layer_times(r).find("(replica 0, 1 device)") != std::string::npos);
  r.runs[0].layer_times.clear();
  CHECK(format_layer_times(r).empty());
}
