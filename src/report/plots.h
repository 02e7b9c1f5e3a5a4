// The plot kinds of the HTML report, one source file each; every function returns the figures its inputs
// support (none when the inputs hold nothing for it) with the plotted numbers as a table.
#pragma once
#include <vector>

#include "report/figure.h"
#include "report/report_input.h"

namespace mg::plot {

// plot_scaling.cpp: throughput (images or sequences/s) vs device count with the ideal line and 95 % CI bars,
// and scaling efficiency; one series per file and transport, predictions dashed.
std::vector<Figure> scaling_figures(const std::vector<ResultInput>& results);
// plot_breakdown.cpp: per file, the mean step as stacked bars per entry (input wait, forward, backward,
// exposed comm, optimizer) with overlapped comm beside.
std::vector<Figure> breakdown_figures(const std::vector<ResultInput>& results);
// plot_samples.cpp: per file with samples, every timed step time per entry as a strip, with median and CI.
std::vector<Figure> sample_figures(const std::vector<ResultInput>& results);
// plot_comm.cpp: per comm file, busbw and time vs message size (log axes), one series per transport and op.
std::vector<Figure> comm_figures(const std::vector<CommInput>& comms);
// plot_compare.cpp: per compare file, NEW/BASE throughput ratio with its interval per pair, regressions marked.
std::vector<Figure> compare_figures(const std::vector<CompareInput>& compares);

// The entries of a result as the plots and tables name them: "2 dev" plus the transport when it is not
// the only one or not "default".
std::string entry_label(const RunResult& r, const DeviceCountResult& d);

}  // namespace mg::plot
