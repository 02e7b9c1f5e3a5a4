// The furniture every plot of the report shares: the plot-area frame, axes with grid lines, tick labels and
// titles, categorical axes, markers and the legend. Layout is in pixels; text widths are estimated (no font
// metrics offline), generously, so labels do not collide.
#pragma once
#include <string>
#include <vector>

#include "report/palette.h"
#include "report/scale.h"
#include "report/svg.h"

namespace mg::plot {

struct PlotArea {
  double x = 0, y = 0, w = 0, h = 0;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

// Estimated width of text at a font size (px); a sans-serif average, rounded up.
double text_width(const std::string& s, double size = 12);

// The frame is a 1-px rectangle in kFrame with class "plot-area", drawn last-but-data so the browser test can
// find each plot's area in a screenshot.
void draw_frame(svg::Writer& w, const PlotArea& a);
void draw_y_axis(svg::Writer& w, const PlotArea& a, const Axis& axis, const std::string& title);
void draw_x_axis(svg::Writer& w, const PlotArea& a, const Axis& axis, const std::string& title);
// Category labels centred at the given x positions; rotated 30 degrees when they would overlap.
// Returns the height used below the plot area.
double draw_x_categories(svg::Writer& w, const PlotArea& a, const std::vector<std::string>& labels,
                         const std::vector<double>& centres, const std::string& title);
double x_categories_height(const std::vector<std::string>& labels, double slot_width);

void draw_marker(svg::Writer& w, Marker m, double x, double y, double size, const std::string& colour, bool hollow,
                 const std::string& title = "");

struct LegendEntry {
  std::string label;
  std::string colour;
  enum Kind { LineMarker, Swatch } kind = LineMarker;
  Marker marker = Marker::Circle;
  bool show_marker = true;
  bool hollow = false;
  std::string dash;  // line dash pattern, "" solid
  bool show_line = true;
};

// Entries flow left to right in rows across `width`; legend_height tells the caller how much room to leave.
double legend_height(const std::vector<LegendEntry>& entries, double width);
void draw_legend(svg::Writer& w, double x, double y, double width, const std::vector<LegendEntry>& entries);

}  // namespace mg::plot
