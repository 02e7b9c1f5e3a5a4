// `mgbench report`: one self-contained HTML page from results, predictions, comm and compare outputs. Plots are
// inline SVG with their numbers in tables beneath; no scripts, fonts, images or styles are fetched (a
// Content-Security-Policy of default-src 'none' makes the browser refuse any), so the file reads offline and
// can be attached to a CI job or an email.
#pragma once
#include <string>

#include "report/report_input.h"

namespace mg {

std::string render_html_report(const ReportInputs& in);

// Writes render_html_report(in) with write_file_atomic: either the complete page or no file.
// UsageError when `in` is empty or the path is unwritable.
void write_html_report(const std::string& path, const ReportInputs& in);

}  // namespace mg
