// What `mgbench report` reads is outside input: a field of an unexpected type reads as absent (compare output)
// or is a one-line UsageError (the typed readers of results and comm output), never nlohmann's type_error.
#include <catch2/catch.hpp>

#include <fstream>

#include "core/error.h"
#include "report/report_input.h"
#include "result/comm_result_json.h"
#include "support/comm_fixture.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

TEST_CASE("report input: a compare field of the wrong type reads as absent and a comm one is refused, never a type_error") {
  // The fuzzer's first find (fuzz_report): "efficiency_drop": 1 threw type_error 302 out of the reader.
  json pair = {{"key", 7},
               {"base", 5},
               {"new", "x"},
               {"verdict", "regression"},
               {"ratio", 0.8},
               {"efficiency_drop", 1},
               {"notes", {"slower"}}};
  ComparePair p;
  REQUIRE_NOTHROW(p = compare_pair_from_json(pair));
  CHECK(p.label.empty());
  CHECK(p.regression);  // from the verdict; the number is not a flag
  CHECK(p.notes == "slower");
  CHECK(p.base_ips == 0);

  const std::string dir = test::scratch_dir("report-input");
  const std::string cmp = dir + "/cmp.json";
  std::ofstream(cmp) << json{{"compare_schema_version", 2}, {"pairs", {pair}}, {"regression", "yes"}}.dump();
  ReportInputs in;
  REQUIRE_NOTHROW(in = load_report_inputs({cmp}));
  REQUIRE(in.compares.size() == 1);
  CHECK_FALSE(in.compares[0].regression);

  // Comm output is read by its typed reader: a field of the wrong type is a UsageError naming file and field.
  const std::string comm = dir + "/comm.json";
  json c = to_json(test::make_comm_result());
  c["results"][0]["in_place"] = "no";
  std::ofstream(comm) << c.dump();
  CHECK_THROWS_WITH(load_report_inputs({comm}), Catch::Contains(comm) && Catch::Contains("results[0].in_place"));

  const std::string odd = dir + "/odd.json";
  std::ofstream(odd) << json{{"tool", 3}}.dump();
  CHECK_THROWS_AS(load_report_inputs({odd}), UsageError);
}
