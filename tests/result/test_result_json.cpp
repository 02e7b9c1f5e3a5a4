#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "result/result_json.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

TEST_CASE("result JSON carries every documented field") {
  const RunResult r = test::make_result({1, 2}, {0.1, 0.11}, 12, 0.02, 5);
  const json j = to_json(r);
  CHECK(j.at("schema_version") == kResultSchemaVersion);
  CHECK(j.at("mgbench").at("commit") == "0123456789ab");
  CHECK(j.at("command_line") == r.env.command_line);
  CHECK(j.at("environment").at("devices").size() == 2);
  CHECK(j.at("environment").at("versions").at("onednn") == "3.0.0");
  CHECK(j.at("config").at("precision") == "fp32");
  CHECK(j.at("config").at("device") == "cpu");
  CHECK(j.at("config").at("scaling") == "weak");
  CHECK(j.at("config").at("allreduce") == "ring");
  CHECK(j.at("config").at("optimizer") == "sgd");
  CHECK(j.at("config").size() == 51);  // one key per RunConfig field
  CHECK(j.at("check").is_null());       // the fixture ran no correctness check
  const json& run = j.at("runs").at(1);
  CHECK(run.at("devices") == 2);
  CHECK(run.at("threads_per_replica") == 4);
  CHECK(run.at("conv_algorithms") == json{{"direct", 42}, {"winograd", 11}});
  CHECK(j.at("config").at("inject_slowdown") == 0.0);
  CHECK(run.at("step_time").at("samples") == 12);
  CHECK(run.at("samples").at("total_s").size() == 12);
  CHECK(run.at("breakdown").at("shares").size() == 6);
  CHECK(run.at("allreduce").at("per_bucket").size() == 2);
  CHECK(run.at("scaling_efficiency").get<double>() > 0);
  CHECK(run.at("replica_checksums") == json::array({"cbf29ce484222336", "cbf29ce484222336"}));
  CHECK(run.at("replicas_identical") == true);
  CHECK(run.at("timed_wall_s").get<double>() > 0);
  CHECK(run.at("tokens_per_sample") == 0);  // an image model's
  CHECK(run.at("tokens_per_sec") == 0.0);
  CHECK(run.at("images_per_sec").get<double>() == Approx(run.at("images_per_sec_from_steps").get<double>()));
  CHECK(run.at("device_memory_in_use_bytes").get<size_t>() > run.at("peak_memory_bytes").get<size_t>());
  for (const char* k : {"input_wait_s", "forward_s", "backward_s", "comm_exposed_s", "comm_overlapped_s",
                        "optimizer_s", "total_s"}) {
    CHECK(run.at("samples").at(k).size() == 12);
    CHECK(run.at("breakdown").contains(k));
  }
}

TEST_CASE("result JSON round-trips through the reader") {
  RunResult r = test::make_result({1, 2, 4}, {0.1, 0.11, 0.125}, 8, 0.03, 9, "shm");
  r.runs.at(1).tokens_per_sample = 64;  // a language model's entry
  r.runs.at(1).tokens_per_sec = 64 * r.runs.at(1).images_per_sec;
  const json j = to_json(r);
  const RunResult back = result_from_json(j, "x.json");
  CHECK(to_json(back) == j);
  CHECK(back.runs.at(2).samples.at(3).comm_exposed == r.runs.at(2).samples.at(3).comm_exposed);
  CHECK(back.config.device_counts == r.config.device_counts);
  CHECK(back.runs.at(2).replica_checksums == r.runs.at(2).replica_checksums);
  CHECK(back.runs.at(2).conv_algorithms == r.runs.at(2).conv_algorithms);
  CHECK(back.runs.at(1).tokens_per_sample == 64);
  CHECK(back.runs.at(1).tokens_per_sec == r.runs.at(1).tokens_per_sec);
  json no_algos = j;  // a file written before the algorithms were recorded
  no_algos["runs"][0].erase("conv_algorithms");
  CHECK(result_from_json(no_algos, "old.json").runs.at(0).conv_algorithms.empty());

  // The profile's wire-cast costs round-trip; a file written before them (no key) reads as none.
  RunResult cast = r;
  cast.runs.at(0).wire_casts = {{"fp16", 3e-9, 2e-9, 1000, 5}, {"bf16", 2.5e-9, 1.5e-9, 1000, 5}};
  const json cj = to_json(cast);
  const RunResult cb = result_from_json(cj, "x.json");
  REQUIRE(cb.runs.at(0).wire_casts.size() == 2);
  CHECK(cb.runs.at(0).wire_casts[1].dtype == "bf16");
  CHECK(cb.runs.at(0).wire_casts[1].to_wire_s_per_element == 2.5e-9);
  CHECK(cb.runs.at(0).wire_casts[1].from_wire_s_per_element == 1.5e-9);
  CHECK(to_json(cb) == cj);
  json older = cj;
  older["runs"][0].erase("wire_casts");
  CHECK(result_from_json(older, "old.json").runs.at(0).wire_casts.empty());

  // --layer-times round-trips; a file written before it reads as none.
  RunResult timed = r;
  timed.runs.at(2).layer_times = {{0, "input", "input", 1e-5, 0}, {5, "h.0.attn", "attention", 2e-3, 4e-3},
                                  {-1, "loss", "loss", 3e-4, 0}};
  const json tj = to_json(timed);
  const RunResult tb = result_from_json(tj, "x.json");
  REQUIRE(tb.runs.at(2).layer_times.size() == 3);
  CHECK(tb.runs.at(2).layer_times[1].name == "h.0.attn");
  CHECK(tb.runs.at(2).layer_times[1].kind == "attention");
  CHECK(tb.runs.at(2).layer_times[1].backward_s == 4e-3);
  CHECK(tb.runs.at(2).layer_times[2].layer == -1);
  CHECK(to_json(tb) == tj);
  json untimed_layers = tj;
  untimed_layers["runs"][2].erase("layer_times");
  CHECK(result_from_json(untimed_layers, "old.json").runs.at(2).layer_times.empty());

  // When each process run began and ended round-trips; a file written before them reads as none.
  REQUIRE(back.process_runs.size() == 1);
  CHECK(back.process_runs[0].started_unix_s == 1795000000.25);
  CHECK(back.process_runs[0].finished_unix_s == 1795000012.75);
  json untimed = j;
  untimed.erase("process_runs");
  CHECK(result_from_json(untimed, "old.json").process_runs.empty());

  RunResult no_loss = r;
  no_loss.runs.at(0).final_loss = std::nan("");
  const json nj = to_json(no_loss);
  CHECK(nj.at("runs").at(0).at("final_loss").is_null());
  CHECK(std::isnan(result_from_json(nj, "x.json").runs.at(0).final_loss));

  RunResult diverged = r;
  diverged.runs.at(1).replica_checksums.at(1) ^= 1;
  CHECK(to_json(diverged).at("runs").at(1).at("replicas_identical") == false);
}

TEST_CASE("the reader names the file and the field it cannot use") {
  const json good = to_json(test::make_result({1}, {0.1}, 6, 0.02, 1));
  auto message = [](const json& j) {
    try {
      result_from_json(j, "base.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json v2 = good;
  v2["schema_version"] = 2;
  CHECK(message(v2) == "base.json: schema_version 2, this mgbench reads 1");
  json missing = good;
  missing["runs"][0]["step_time"].erase("median_s");
  CHECK(message(missing) == "base.json: runs[0].step_time: missing field 'median_s'");
  json wrong = good;
  wrong["runs"][0]["devices"] = "two";
  CHECK(message(wrong) == "base.json: runs[0].devices: has the wrong type (string)");
  json fraction = good;
  fraction["runs"][0]["devices"] = 2.5;
  CHECK(message(fraction) == "base.json: runs[0].devices: is not an integer in range (2.5)");
  json huge = good;
  huge["runs"][0]["devices"] = 1e300;
  CHECK(message(huge) == "base.json: runs[0].devices: is not an integer in range (1e+300)");
  json too_big = good;
  too_big["runs"][0]["devices"] = int64_t{1} << 40;
  CHECK(message(too_big) == "base.json: runs[0].devices: is not an integer in range (1099511627776)");
  json negative = good;
  negative["runs"][0]["peak_memory_bytes"] = -1;
  CHECK(message(negative) == "base.json: runs[0].peak_memory_bytes: is not an integer in range (-1)");
  json list = good;
  list["config"]["device_counts"] = json::array({1, 2.5});
  CHECK(message(list) ==
        "base.json: config.device_counts: has an element of the wrong type or out of range ([1,2.5])");
  json bad_enum = good;
  bad_enum["config"]["precision"] = "fp8";
  CHECK(message(bad_enum) == "base.json: config.precision: fp8 is not one of: fp32, tf32, fp16, bf16");
  json ragged = good;
  ragged["runs"][0]["samples"]["forward_s"].erase(0);
  CHECK(message(ragged).find("sample columns differ in length") != std::string::npos);
  json bad_sum = good;
  bad_sum["runs"][0]["replica_checksums"][0] = "xyz";
  CHECK(message(bad_sum) == "base.json: runs[0].replica_checksums[0]: not a hex checksum: 'xyz'");
  CHECK(message(json::array()) == "base.json: (top level): expected an object, found array");
  json backwards = good;
  backwards["process_runs"][0]["finished_unix_s"] = 1795000000.0;  // before it started
  CHECK(message(backwards) == "base.json: process_runs[0]: needs 0 < started_unix_s <= finished_unix_s");
  json bad_runs = good;
  bad_runs["runs"][0]["run_samples"] = {2, 3};  // 6 samples
  CHECK(message(bad_runs) == "base.json: runs[0].run_samples: add up to 5, but there are 6 samples");
  // Results written before --runs existed have neither run_samples nor the CI method: one run.
  json older = good;
  older["runs"][0].erase("run_samples");
  older["runs"][0]["step_time"].erase("ci95_method");
  older["runs"][0]["step_time"].erase("runs");
  older["config"].erase("runs");
  older["config"].erase("seq_len");
  older["runs"][0].erase("tokens_per_sample");
  older["runs"][0].erase("tokens_per_sec");
  const RunResult old = result_from_json(older, "old.json");
  CHECK(old.runs[0].run_samples.empty());
  CHECK(old.runs[0].tokens_per_sample == 0);
  CHECK(old.config.seq_len == 0);
  CHECK(old.runs[0].step_time.ci95_method == "order-statistic");
  CHECK(old.config.runs == 1);
  // config.transports holds --transport names: an unknown one in a measured result names the field. A
  // prediction's is ignored: files written before transports were parsed listed its link labels there.
  json bad_transport = good;
  bad_transport["config"]["transports"] = {"tcp", "nvlink4"};
  CHECK(message(bad_transport) ==
        "base.json: config.transports: 'nvlink4' is not one of: auto, p2p, shm, net, tcp, local");
  json old_prediction = good;
  old_prediction["kind"] = "prediction";
  old_prediction["config"]["transports"] = {"nvlink4", "bw=10GB/s,lat=20us"};
  CHECK(result_from_json(old_prediction, "pred.json").config.transports.empty());
}

TEST_CASE("read_json_file reports missing and malformed files in one line") {
  const std::string dir = test::scratch_dir("read_json");
  CHECK_THROWS_WITH(read_json_file(dir + "/absent.json"),
                    "cannot read " + dir + "/absent.json: no such file or not readable");
  std::ofstream(dir + "/bad.json") << "{\"schema_version\": 1, \"runs\": [";
  CHECK_THROWS_WITH(read_json_file(dir + "/bad.json"), Catch::StartsWith(dir + "/bad.json: not valid JSON: "));
  // Found by fuzz_result_json: a number too large for a double is nlohmann's out_of_range, not a parse_error,
  // and escaped as an uncaught exception.
  std::ofstream(dir + "/huge.json") << "{\"schema_version\": 1, \"x\": 2.1947000277e7975}";
  CHECK_THROWS_WITH(read_json_file(dir + "/huge.json"),
                    Catch::StartsWith(dir + "/huge.json: not valid JSON: ") && Catch::Contains("overflow"));
}

TEST_CASE("write_json_atomic writes the whole file and leaves no temporary behind") {
  namespace fs = std::filesystem;
  const std::string dir = test::scratch_dir("atomic");
  const json j = to_json(test::make_result({1, 2}, {0.1, 0.11}, 10, 0.02, 2));
  write_json_atomic(dir + "/out.json", j);
  write_json_atomic(dir + "/out.json", j);  // replaces an existing file
  CHECK(read_json_file(dir + "/out.json") == j);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.path().filename() != "out.json" ? 100 : 1;
  CHECK(entries == 1);
  CHECK_THROWS_WITH(write_json_atomic(dir + "/no/such/dir/out.json", j),
                    Catch::StartsWith("cannot write " + dir + "/no/such/dir/out.json: "));
  CHECK_THROWS_AS(write_json_atomic(dir + "/no/such/dir/out.json", j), UsageError);
}

// tests/cli/schema.sh runs this case with MG_EXAMPLE_RESULT_OUT set and validates the file against
// docs/result-schema.json, so the schema is checked against everything the writer can emit even before a
// trainer-produced file exists.
TEST_CASE("example result file for schema validation", "[example-result]") {
  const char* out = std::getenv("MG_EXAMPLE_RESULT_OUT");
  const std::string path = out ? out : test::scratch_dir("example") + "/example_result.json";
  RunResult r = test::make_result({1, 2, 4}, {0.1, 0.11, 0.125}, 10, 0.02, 11, "p2p");
  r.config.precision = Precision::BF16;
  r.config.scaling = Scaling::Strong;
  r.config.allreduce = AllreduceMode::None;
  r.env.devices.at(0).pci_bus_id = "0000:1b:00.0";
  r.check.ran = true;
  r.check.device = "cpu:0 (test CPU)";
  r.check.reference = "naive fp64 reference";
  r.check.seconds = 1.25;
  r.check.rows = {{"layer", "conv3x3_s1 (conv)", "bf16", "rel_err", 2.5e-3, 4e-2, true, "worst: forward"},
                  {"layer", "dropout (dropout)", "bf16", "rel_err", INFINITY, 4e-2, false, "failed to run: boom"},
                  {"allreduce", "allreduce of 7 elements", "fp16", "wrong", 0, 0, true, "library gloo"},
                  {"layer", "conv3x3_g4 (conv)", "bf16", "rel_err", 0.5, 4e-2, false, "worst: forward", true}};
  r.env.libraries = {{"onednn", {"/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6", "2.6.0"}}, {"gloo", {"", ""}}};
  write_json_atomic(path, to_json(r));
  const RunResult back = result_from_json(read_json_file(path), path);
  CHECK(back.runs.size() == 3);
  CHECK(back.runs[0].timed_wall_s == Approx(r.runs[0].timed_wall_s));
  CHECK(back.runs[0].device_memory_in_use_bytes == r.runs[0].device_memory_in_use_bytes);
  REQUIRE(back.check.rows.size() == 4);
  CHECK_FALSE(back.check.passed());
  CHECK(std::isinf(back.check.rows[1].error));
  CHECK(back.check.rows[2].metric == "wrong");
}

TEST_CASE("result JSON records the loaded libraries and advisory check rows, and reads files without them") {
  RunResult r = test::make_result({1}, {0.1}, 6, 0.02, 1);
  r.env.libraries = {{"onednn", {"/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6", "2.6.0"}},
                     {"gloo", {"/usr/lib/libgloo.so.0.5.0", "0.5.0"}}};
  r.check.ran = true;
  r.check.device = "cpu:0 (test CPU)";
  r.check.reference = "naive fp64 reference";
  r.check.rows = {{"layer", "layer1.0.conv1 (conv)", "fp32", "rel_err", 1e-6, 2e-4, true, "worst: forward"},
                  {"layer", "conv3x3_g4 (conv)", "fp32", "rel_err", 0.5, 2e-4, false, "worst: forward", true}};
  const json j = to_json(r);
  CHECK(j.at("environment").at("libraries").at("onednn").at("file") == "/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6");
  CHECK(j.at("environment").at("libraries").at("gloo").at("version") == "0.5.0");
  CHECK(j.at("check").at("passed") == true);  // the failing row is advisory
  CHECK(j.at("check").at("rows").at(0).contains("advisory") == false);  // written only where true
  CHECK(j.at("check").at("rows").at(1).at("advisory") == true);
  const RunResult back = result_from_json(j, "x.json");
  CHECK(to_json(back) == j);
  CHECK(back.env.libraries.at("onednn").version == "2.6.0");
  CHECK(back.check.rows.at(1).advisory);
  CHECK(back.check.passed());
  json older = j;  // a file written before either existed
  older["environment"].erase("libraries");
  older["check"]["rows"][1].erase("advisory");
  const RunResult old = result_from_json(older, "old.json");
  CHECK(old.env.libraries.empty());
  CHECK_FALSE(old.check.rows.at(1).advisory);
  CHECK_FALSE(old.check.passed());
  json bad = j;
  bad["environment"]["libraries"]["onednn"].erase("file");
  CHECK_THROWS_WITH(result_from_json(bad, "b.json"),
                    Catch::Contains("b.json: environment.libraries.onednn: missing field 'file'"));
}
