#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "core/error.h"
#include "result/comm_result_json.h"
#include "result/result_json.h"
#include "support/comm_fixture.h"

using namespace mg;
using nlohmann::json;

namespace {

void check_same(const CommRow& a, const CommRow& b) {
  CHECK(a.op == b.op);
  CHECK(a.dtype == b.dtype);
  CHECK(a.bytes == b.bytes);
  CHECK(a.count == b.count);
  CHECK(a.in_place == b.in_place);
  CHECK(a.time_us == b.time_us);
  CHECK(a.iters == b.iters);
  CHECK(a.gap_time_us == b.gap_time_us);
  CHECK(a.gap_iters == b.gap_iters);
  CHECK(a.algbw_GBps == b.algbw_GBps);
  CHECK(a.busbw_GBps == b.busbw_GBps);
  CHECK(a.wrong == b.wrong);
  CHECK(a.transport == b.transport);
  CHECK(a.library == b.library);
  CHECK(a.devices == b.devices);
}

void check_same(const CommResult& a, const CommResult& b) {
  CHECK(a.op == b.op);
  CHECK(a.allreduce == b.allreduce);
  CHECK(a.dtype == b.dtype);
  CHECK(a.warmup == b.warmup);
  CHECK(a.iters == b.iters);
  CHECK(a.min_time_s == b.min_time_s);
  CHECK(a.gap_s == b.gap_s);
  CHECK(a.env.host == b.env.host);
  CHECK(a.env.cpu == b.env.cpu);
  CHECK(a.env.mgbench_version == b.env.mgbench_version);
  CHECK(a.env.git_commit == b.env.git_commit);
  CHECK(a.env.command_line == b.env.command_line);
  CHECK(a.env.launcher == b.env.launcher);
  CHECK(a.env.world_size == b.env.world_size);
  CHECK(a.env.versions == b.env.versions);
  REQUIRE(a.env.libraries.size() == b.env.libraries.size());
  for (const auto& [name, lib] : a.env.libraries) {
    CHECK(b.env.libraries.at(name).file == lib.file);
    CHECK(b.env.libraries.at(name).version == lib.version);
  }
  CHECK(a.env.env_vars == b.env.env_vars);
  CHECK(a.env.topology == b.env.topology);
  CHECK(a.device == b.device);
  CHECK(a.processes == b.processes);
  CHECK(a.replicas_per_process == b.replicas_per_process);
  CHECK(a.gloo_iface == b.gloo_iface);
  CHECK(a.comm_timeout_s == b.comm_timeout_s);
  CHECK(a.local_devices == b.local_devices);
  CHECK(a.transport_env == b.transport_env);
  REQUIRE(a.rows.size() == b.rows.size());
  for (size_t i = 0; i < a.rows.size(); ++i) check_same(a.rows[i], b.rows[i]);
}

std::string message(const json& j, const std::string& source = "comm.json") {
  try {
    (void)comm_result_from_json(j, source);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("comm result JSON round-trips through the reader, with and without --gap") {
  for (double gap_s : {0.0, 0.01}) {
    const CommResult c = test::make_comm_result(2, gap_s);
    const json j = to_json(c);
    check_same(comm_result_from_json(j, "comm.json"), c);
    // Through the text as written, too: numbers keep their integer or floating type.
    check_same(comm_result_from_json(json::parse(j.dump(2)), "comm.json"), c);
  }
}

TEST_CASE("comm result JSON keeps the layout mgbench comm has always written") {
  const json j = to_json(test::make_comm_result());
  CHECK(j.at("comm_schema_version") == kCommSchemaVersion);
  CHECK(j.at("tool") == "mgbench comm");
  for (const char* key : {"op", "allreduce", "dtype", "warmup", "iters", "min_time_s", "gap_s"}) CHECK(j.contains(key));
  CHECK(j.size() == 11);
  const json& env = j.at("environment");
  CHECK(env.at("ranks") == 2);
  CHECK(env.at("libraries") == json{{"gloo", "0.5.0"}, {"onednn", "2.6.3"}});
  CHECK(env.at("loaded_libraries").at("gloo").at("file") == "/usr/lib/libgloo.so");
  CHECK(env.at("transport_env").at("auto") == json::object());
  CHECK(env.size() == 18);
  const json& row = j.at("results").at(0);
  CHECK(row.at("bytes").is_number_unsigned());
  CHECK(row.at("time_us").is_number_float());
  CHECK(row.size() == 15);
  // Gap timings only in a file measured with --gap.
  CHECK(to_json(test::make_comm_result(2, 0.0)).at("results").at(0).size() == 13);
}

TEST_CASE("comm files written before the schema version and later fields still read") {
  // The fuzz corpus's comm file is real output of an older mgbench comm: no comm_schema_version, allreduce,
  // min_time_s, gap_s, cpu, env_vars, loaded_libraries, nor the rows' iters and library.
  const std::string path = std::string(MG_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_report/comm.json";
  const CommResult c = read_comm_result_file(path);
  CHECK(c.allreduce == "ring");
  CHECK(c.gap_s == 0);
  CHECK(c.iters == 8);
  CHECK(c.env.world_size == 2);
  CHECK(c.gloo_iface == "mgv0_30091");
  REQUIRE(c.rows.size() == 12);
  CHECK(c.rows[0].bytes == 16384);
  CHECK(c.rows[0].iters == 0);
  CHECK(c.rows[0].library.empty());
}

TEST_CASE("the comm reader names the file and the field it cannot use") {
  const json good = to_json(test::make_comm_result());
  json missing = good;
  missing["results"][1].erase("busbw_GBps");
  CHECK(message(missing) == "comm.json: results[1]: missing field 'busbw_GBps'");
  json env = good;
  env["environment"].erase("ranks");
  CHECK(message(env) == "comm.json: environment: missing field 'ranks'");
  json type = good;
  type["results"][0]["in_place"] = "no";
  CHECK(message(type) == "comm.json: results[0].in_place: has the wrong type (string)");
  json vars = good;
  vars["environment"]["transport_env"]["tcp"]["MGBENCH_TRANSPORT"] = 1;
  CHECK(message(vars) == "comm.json: environment.transport_env: has the wrong type (object)");
  json rows = good;
  rows["results"] = json::object();
  CHECK(message(rows) == "comm.json: (top level).results: expected an array");
  CHECK(message(json::array()) == "comm.json: (top level): expected an object, found array");
}

TEST_CASE("the comm reader refuses a fraction or an out-of-range number in an integer field") {
  const json good = to_json(test::make_comm_result());
  json bytes = good;
  bytes["results"][2]["bytes"] = 1024.5;
  CHECK(message(bytes) == "comm.json: results[2].bytes: is not an integer in range (1024.5)");
  json wrong = good;
  wrong["results"][0]["wrong"] = 0.5;
  CHECK(message(wrong) == "comm.json: results[0].wrong: is not an integer in range (0.5)");
  json warmup = good;
  warmup["warmup"] = 3.0;
  CHECK(message(warmup) == "comm.json: (top level).warmup: is not an integer in range (3.0)");
  json ranks = good;
  ranks["environment"]["ranks"] = 1e12;
  CHECK(message(ranks) == "comm.json: environment.ranks: is not an integer in range (1000000000000.0)");
  json negative = good;
  negative["results"][0]["count"] = -4;
  CHECK(message(negative) == "comm.json: results[0].count: is not an integer in range (-4)");
}

TEST_CASE("the comm reader refuses other tools' files and other versions, naming the file") {
  json j = to_json(test::make_comm_result());
  j["comm_schema_version"] = 2;
  CHECK(message(j, "new.json") == "new.json: comm_schema_version 2, this mgbench reads 1");
  j["comm_schema_version"] = 1.5;
  CHECK(message(j, "new.json") == "new.json: comm_schema_version 1.5, this mgbench reads 1");
  json other = to_json(test::make_comm_result());
  other["tool"] = "mgbench compare";
  CHECK(message(other, "x.json") ==
        "x.json: (top level).tool: \"mgbench compare\" is not \"mgbench comm\": not a mgbench comm result");
  CHECK(message(json{{"schema_version", 1}}, "r.json") == "r.json: (top level): missing field 'tool'");
  // And the training reader names a comm file for what it is.
  CHECK_THROWS_WITH(result_from_json(to_json(test::make_comm_result()), "c.json"),
                    "c.json: a `mgbench comm` file, not a training or prediction result");
}
