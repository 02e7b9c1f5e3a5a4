// What `mgbench report` reads is outside input: a field of an unexpected type is a one-line UsageError from the
// typed readers (results, comm and compare output), never nlohmann's type_error.
#include <catch2/catch.hpp>

#include <fstream>

#include "core/error.h"
#include "report/report_input.h"
#include "result/comm_result_json.h"
#include "result/compare_result_json.h"
#include "support/comm_fixture.h"
#include "support/compare_fixture.h"
#include "support/result_fixture.h"

using namespace mg;
using nlohmann::json;

TEST_CASE("report input: a compare or comm field of the wrong type is refused naming file and field, never a type_error") {
  // The fuzzer's first find (fuzz_report): "efficiency_drop": 1 threw type_error 302 out of the reader.
  const std::string dir = test::scratch_dir("report-input");
  const std::string cmp = dir + "/cmp.json";
  json x = to_json(test::make_compare_result());
  x["pairs"][0]["efficiency_drop"] = 1;
  std::ofstream(cmp) << x.dump();
  CHECK_THROWS_WITH(load_report_inputs({cmp}), Catch::Contains(cmp) && Catch::Contains("pairs[0].efficiency_drop"));

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
