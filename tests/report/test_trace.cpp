#include <catch2/catch.hpp>

#include <set>

#include "core/error.h"
#include "result/result_json.h"
#include "report/trace.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

TEST_CASE("trace: complete events in microseconds with one track per replica and stream") {
  DeviceCountResult r = test::make_run(2, "default", {});
  r.trace = {{0, "compute", "forward", 0.0, 0.030},   {0, "compute", "backward", 0.030, 0.050},
             {0, "comm", "allreduce b0", 0.060, 0.010}, {0, "copy", "h2d", 0.0, 0.002},
             {1, "compute", "forward", 0.001, 0.031},   {1, "comm", "allreduce b0", 0.061, 0.009}};
  const std::string dir = test::scratch_dir("trace");
  write_trace(dir + "/trace.json", r);
  const json j = read_json_file(dir + "/trace.json");  // valid JSON on disk
  const json& ev = j.at("traceEvents");

  std::set<std::pair<int, int>> x_tracks;
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  int x = 0;
  for (const json& e : ev) {
    const std::string ph = e.at("ph");
    const std::pair<int, int> track{e.at("pid").get<int>(), e.at("tid").get<int>()};
    if (ph == "X") {
      ++x;
      x_tracks.insert(track);
    } else if (e.at("name") == "thread_name") {
      thread_names[track] = e.at("args").at("name");
    } else if (e.at("name") == "process_name") {
      process_names[track.first] = e.at("args").at("name");
    }
  }
  CHECK(x == 6);
  CHECK(x_tracks == std::set<std::pair<int, int>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 2}});
  CHECK(thread_names.at({0, 0}) == "compute");
  CHECK(thread_names.at({0, 1}) == "copy");
  CHECK(thread_names.at({0, 2}) == "comm");
  CHECK(thread_names.at({1, 2}) == "comm");
  CHECK(process_names.at(0) == "replica 0");
  CHECK(process_names.at(1) == "replica 1");

  const json& bwd = ev.at(1);
  CHECK(bwd.at("name") == "backward");
  CHECK(bwd.at("ts").get<double>() == Approx(30000));
  CHECK(bwd.at("dur").get<double>() == Approx(50000));
  CHECK_THROWS_AS(write_trace(dir + "/missing/trace.json", r), UsageError);
}
