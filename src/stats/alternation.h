// Whether the runs of an interleaved A/B really alternated: `mgbench compare --paired` treats run i of BASE and
// run i of NEW as made back to back, so a slow period of the machine hits both; files made in blocks, in parallel
// or in another order would be judged as pairs they are not. The order comes from each file's process_runs.
#pragma once
#include <string>
#include <vector>

#include "result/run_result.h"

namespace mg {

struct TimedFile {
  std::string path;
  std::vector<ProcessSpan> spans;  // RunResult::process_runs
};

// UsageError (one line) unless every file holds exactly one process run with its times, the runs of all files
// never overlap, and BASE i and NEW i are neighbours in start-time order (either first), for every pair i.
void require_alternation(const std::vector<TimedFile>& base, const std::vector<TimedFile>& next);

}  // namespace mg
