// A line chart over two continuous axes (linear or log): the scaling curves and the comm bandwidth curves.
// Each series is a polyline with markers and optional error bars; reference series (ideal scaling) are thin
// dotted lines without markers; predicted series are dashed with hollow markers.
#pragma once
#include <string>
#include <vector>

#include "report/chart_parts.h"

namespace mg::plot {

struct XYSeries {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> lo, hi;  // error bar ends, same length as y, or empty
  int style = 0;               // index into the palette (colour and marker)
  bool dashed = false;         // a prediction
  bool hollow = false;
  bool reference = false;      // thin dotted line, no markers (ideal scaling)
};

struct XYChart {
  std::string aria_label;
  std::string x_title, y_title;
  ScaleKind x_kind = ScaleKind::Linear, y_kind = ScaleKind::Linear;
  bool x_bytes = false;          // log2 x axis labelled in bytes
  bool y_include_zero = true;    // linear y from 0 (throughput, efficiency)
  std::vector<double> x_ticks;   // explicit ticks for a linear x axis (device counts); empty = nice ticks
  std::vector<XYSeries> series;
  std::vector<double> y_reference;  // horizontal reference lines (e.g. 100 % efficiency)
  double width = 860, plot_height = 300;
};

std::string render_xy_chart(const XYChart& c);

}  // namespace mg::plot
