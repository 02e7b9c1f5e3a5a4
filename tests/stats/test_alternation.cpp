#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "core/error.h"
#include "stats/alternation.h"

using namespace mg;

namespace {

// A file of one process run that started at t and took d seconds.
TimedFile run(const std::string& path, double t, double d = 1.0) { return {path, {{t, t + d}}}; }

std::string error_of(const std::vector<TimedFile>& base, const std::vector<TimedFile>& next) {
  try {
    require_alternation(base, next);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("alternation: BASE NEW BASE NEW passes, and so does either order within a pair") {
  const std::vector<TimedFile> b{run("b1", 100), run("b2", 102), run("b3", 104)};
  const std::vector<TimedFile> n{run("n1", 101), run("n2", 103), run("n3", 105)};
  CHECK(error_of(b, n) == "no error");
  // bench-ab.sh swaps the order every round: NEW first in pair 2 is still back to back.
  const std::vector<TimedFile> swapped{run("n1", 101), run("n2", 102.5), run("n3", 106)};
  const std::vector<TimedFile> b_late{run("b1", 100), run("b2", 103.6), run("b3", 105)};
  CHECK(error_of(b_late, swapped) == "no error");
}

TEST_CASE("alternation: runs made in blocks are refused, naming the pair") {
  const std::vector<TimedFile> b{run("b1", 100), run("b2", 102), run("b3", 104)};
  const std::vector<TimedFile> n{run("n1", 106), run("n2", 108), run("n3", 110)};
  CHECK(error_of(b, n) == "--paired: BASE b1 and NEW n1 (pair 1) did not run back to back: 2 other run(s) started "
                          "between them, so BASE and NEW did not alternate");
}

TEST_CASE("alternation: pairs whose names do not follow the order they ran in are refused") {
  // Alternating in time, but NEW's files sorted by name pair run 1 with the NEW run made after BASE run 2.
  const std::vector<TimedFile> b{run("b1", 100), run("b2", 102)};
  const std::vector<TimedFile> n{run("n1", 103), run("n2", 101)};
  CHECK(error_of(b, n).find("BASE b1 and NEW n1 (pair 1) did not run back to back: 2 other run(s)") !=
        std::string::npos);
}

TEST_CASE("alternation: runs that overlapped in time are refused") {
  const std::vector<TimedFile> b{run("b1", 100, 5), run("b2", 110)};
  const std::vector<TimedFile> n{run("n1", 101), run("n2", 111)};
  CHECK(error_of(b, n) == "--paired: b1 and n1 overlap in time (they ran at once, not one after the other)");
}

TEST_CASE("alternation: a file without times, or pooling several runs, cannot be checked") {
  const std::vector<TimedFile> n{run("n1", 101), run("n2", 103)};
  CHECK(error_of({run("b1", 100), {"old.json", {}}}, n) ==
        "--paired: old.json records no process start time (written by an older mgbench), so whether BASE and NEW "
        "alternated cannot be checked");
  const TimedFile pooled{"pooled.json", {{100, 100.5}, {102, 102.5}}};
  CHECK(error_of({pooled}, {run("n1", 101)}) ==
        "--paired: pooled.json pools 2 process runs made one after another; interleaved pairs need one file per run");
  CHECK(error_of({run("b1", 100)}, n) == "--paired: 1 BASE files and 2 NEW files; pairs need as many of each");
}
