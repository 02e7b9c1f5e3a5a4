// Axes of the report's plots: mapping data to pixels (linear or logarithmic) and choosing ticks a reader can
// read at a glance: "nice" linear steps (1, 2 or 5 times a power of ten), decades with 1-2-5 subdivisions on
// a log axis, powers of two for byte sizes, and labels with units (8 B, 64 KiB, 32 MiB).
#pragma once
#include <string>
#include <vector>

namespace mg::plot {

// The largest of 1, 2, 5 or 10 times a power of ten that is <= x (round = false), or the nearest (round = true):
// Heckbert's "nice number" (Graphics Gems, 1990). x > 0.
double nice_number(double x, bool round);

// Ticks covering [lo, hi] with about `target` intervals: step = nice_number((hi - lo) / target), first tick
// floor(lo / step) * step, last ceil(hi / step) * step, so the ticks enclose the data. lo == hi is widened
// around the value. Values within 1e-9 of a step are snapped so 0.30000000000000004 prints as 0.3.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

// Ticks on a log10 axis covering [lo, hi] (lo > 0): 1-2-5 in each decade when the range spans at most
// `max_decades_125` decades, every decade up to 8 ticks, else every k-th decade. Enclosing like nice_ticks.
std::vector<double> log10_ticks(double lo, double hi, int max_decades_125 = 2);

// Powers of two enclosing [lo, hi] (lo > 0): every 1st, 2nd, 5th or 10th power (aligned, so labels read
// 1 KiB, 1 MiB...), the smallest stride that keeps at most max_ticks.
std::vector<double> log2_ticks(double lo, double hi, int max_ticks = 9);

// Label of a linear tick: as many decimals as the step needs (step 0.25 -> 2), thousands as "12,000".
std::string format_tick(double v, double step);
// A byte count in binary units: 8 B, 512 B, 1 KiB, 1.5 MiB, 32 MiB, 1 GiB.
std::string format_bytes(double bytes);
// A value with about 3 significant digits for tables and tooltips: 1234.5 -> "1,235", 0.01234 -> "0.0123".
std::string format_sig(double v);
// Seconds as milliseconds, with format_sig's digits: 0.0123 -> "12.3".
std::string format_ms(double seconds);

enum class ScaleKind { Linear, Log10, Log2 };

// Maps [lo, hi] onto the pixel range [p0, p1] (p1 < p0 for a y axis growing upwards).
struct Scale {
  ScaleKind kind = ScaleKind::Linear;
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  double operator()(double v) const;
};

// An axis ready to draw: its scale (domain widened to the outer ticks) and the ticks with their labels.
struct Axis {
  Scale scale;
  std::vector<double> ticks;
  std::vector<std::string> labels;
};

// lo/hi are the data extent; include_zero widens a linear domain to 0; bytes labels a log2 axis in bytes.
Axis make_axis(ScaleKind kind, double lo, double hi, double p0, double p1, bool include_zero, bool bytes = false,
               int target = 5);

}  // namespace mg::plot
