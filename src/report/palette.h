// Colours and markers of the report's plots. The Okabe-Ito palette stays distinguishable with the common
// colour-vision deficiencies; each series also gets its own marker shape (and predictions a dashed line) so
// a grey-scale print still separates them. Yellow is left out: it vanishes on white paper.
#pragma once
#include <array>
#include <string>

namespace mg::plot {

inline const std::array<const char*, 6> kSeriesColours = {"#0072B2", "#D55E00", "#009E73",
                                                          "#CC79A7", "#E69F00", "#56B4E9"};
enum class Marker { Circle, Square, Triangle, Diamond, TriangleDown, Cross };
inline constexpr int kMarkerCount = 6;

inline std::string series_colour(int i) { return kSeriesColours[static_cast<size_t>(i) % kSeriesColours.size()]; }
// Shifted by the colour cycle so the 7th series differs from the 1st in shape as well as being a repeat colour.
inline Marker series_marker(int i) {
  return static_cast<Marker>((i + i / static_cast<int>(kSeriesColours.size())) % kMarkerCount);
}

inline const char* kInk = "#222222";       // axes, text
inline const char* kGrid = "#e3e3e3";      // grid lines
inline const char* kFrame = "#8c8c8c";     // plot-area frame (the browser test finds plot areas by it)
inline const char* kReference = "#555555"; // ideal lines, ratio 1

}  // namespace mg::plot
