#include "report/chart_parts.h"

#include <algorithm>
#include <cmath>

namespace mg::plot {

double text_width(const std::string& s, double size) {
  double units = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    units += (c == ' ' || c == '.' || c == ',' || c == 'i' || c == 'l' || c == '1') ? 0.35
             : (c >= 'A' && c <= 'Z') || c == 'm' || c == 'w'                       ? 0.75
                                                                                      : 0.58;
  }
  return units * size;
}

namespace {
// Pixel-aligned coordinate for a crisp 1-px line.
double crisp(double v) { return std::floor(v) + 0.5; }
}  // namespace

void draw_frame(svg::Writer& w, const PlotArea& a) {
  svg::Style s;
  s.stroke = kFrame;
  s.cls = "plot-area";
  w.rect(crisp(a.x), crisp(a.y), std::round(a.w), std::round(a.h), s);
}

void draw_y_axis(svg::Writer& w, const PlotArea& a, const Axis& axis, const std::string& title) {
  svg::Style grid;
  grid.stroke = kGrid;
  for (size_t i = 0; i < axis.ticks.size(); ++i) {
    const double y = crisp(axis.scale(axis.ticks[i]));
    w.line(a.x, y, a.right(), y, grid);
    w.text(a.x - 6, y + 4, axis.labels[i], "end", 11, "tick");
  }
  double widest = 0;
  for (const auto& l : axis.labels) widest = std::max(widest, text_width(l, 11));
  w.text(a.x - widest - 16, a.y + a.h / 2, title, "middle", 12, "axis-title", -90);
}

void draw_x_axis(svg::Writer& w, const PlotArea& a, const Axis& axis, const std::string& title) {
  svg::Style grid;
  grid.stroke = kGrid;
  for (size_t i = 0; i < axis.ticks.size(); ++i) {
    const double x = crisp(axis.scale(axis.ticks[i]));
    w.line(x, a.y, x, a.bottom(), grid);
    w.text(x, a.bottom() + 16, axis.labels[i], "middle", 11, "tick");
  }
  w.text(a.x + a.w / 2, a.bottom() + 36, title, "middle", 12, "axis-title");
}

double x_categories_height(const std::vector<std::string>& labels, double slot_width) {
  double widest = 0;
  for (const auto& l : labels) widest = std::max(widest, text_width(l, 11));
  if (widest <= slot_width - 4) return 40;
  return 40 + std::min(widest, 260.0) * 0.5;  // rotated 30 degrees: sin(30) of the width
}

double draw_x_categories(svg::Writer& w, const PlotArea& a, const std::vector<std::string>& labels,
                         const std::vector<double>& centres, const std::string& title) {
  const double slot = labels.empty() ? a.w : a.w / static_cast<double>(labels.size());
  const double used = x_categories_height(labels, slot);
  const bool rotate = used > 40;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (rotate) w.text(centres[i] + 4, a.bottom() + 14, labels[i], "end", 11, "tick", -30);
    else w.text(centres[i], a.bottom() + 16, labels[i], "middle", 11, "tick");
  }
  w.text(a.x + a.w / 2, a.bottom() + used - 4, title, "middle", 12, "axis-title");
  return used;
}

void draw_marker(svg::Writer& w, Marker m, double x, double y, double size, const std::string& colour, bool hollow,
                 const std::string& title) {
  svg::Style s;
  s.stroke = colour;
  s.stroke_width = 1.5;
  s.fill = hollow ? "#ffffff" : colour;
  const double r = size / 2;
  using P = svg::Point;
  switch (m) {
    case Marker::Circle: w.circle(x, y, r, s, title); break;
    case Marker::Square: w.polygon({P{x - r, y - r}, P{x + r, y - r}, P{x + r, y + r}, P{x - r, y + r}}, s, title); break;
    case Marker::Triangle: w.polygon({P{x, y - r * 1.2}, P{x + r * 1.1, y + r * 0.8}, P{x - r * 1.1, y + r * 0.8}}, s, title); break;
    case Marker::TriangleDown: w.polygon({P{x, y + r * 1.2}, P{x + r * 1.1, y - r * 0.8}, P{x - r * 1.1, y - r * 0.8}}, s, title); break;
    case Marker::Diamond: w.polygon({P{x, y - r * 1.3}, P{x + r * 1.1, y}, P{x, y + r * 1.3}, P{x - r * 1.1, y}}, s, title); break;
    case Marker::Cross: {
      const double k = r * 0.45;
      w.polygon({P{x - k, y - r}, P{x + k, y - r}, P{x + k, y - k}, P{x + r, y - k}, P{x + r, y + k}, P{x + k, y + k},
                 P{x + k, y + r}, P{x - k, y + r}, P{x - k, y + k}, P{x - r, y + k}, P{x - r, y - k}, P{x - k, y - k}},
                s, title);
      break;
    }
  }
}

namespace {
constexpr double kLegendRow = 20;
double entry_width(const LegendEntry& e) { return 34 + text_width(e.label, 12) + 18; }
}  // namespace

double legend_height(const std::vector<LegendEntry>& entries, double width) {
  if (entries.empty()) return 0;
  int rows = 1;
  double x = 0;
  for (const auto& e : entries) {
    const double ew = entry_width(e);
    if (x > 0 && x + ew > width) {
      ++rows;
      x = 0;
    }
    x += ew;
  }
  return rows * kLegendRow + 4;
}

void draw_legend(svg::Writer& w, double x0, double y0, double width, const std::vector<LegendEntry>& entries) {
  w.open_group("legend");
  double x = 0, y = y0 + kLegendRow / 2;
  for (const auto& e : entries) {
    const double ew = entry_width(e);
    if (x > 0 && x + ew > width) {
      x = 0;
      y += kLegendRow;
    }
    const double lx = x0 + x;
    if (e.kind == LegendEntry::Swatch) {
      svg::Style s;
      s.fill = e.colour;
      s.stroke = e.colour;
      w.rect(lx + 8, y - 6, 16, 12, s);
    } else {
      if (e.show_line) {
        svg::Style s;
        s.stroke = e.colour;
        s.stroke_width = 2;
        s.dash = e.dash;
        w.line(lx + 2, y, lx + 30, y, s);
      }
      if (e.show_marker) draw_marker(w, e.marker, lx + 16, y, 8, e.colour, e.hollow);
    }
    w.text(lx + 36, y + 4, e.label, "start", 12, "legend-label");
    x += ew;
  }
  w.close_group();
}

}  // namespace mg::plot
