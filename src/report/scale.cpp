#include "report/scale.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mg::plot {

double nice_number(double x, bool round) {
  const double e = std::floor(std::log10(x));
  const double f = x / std::pow(10.0, e);  // in [1, 10)
  double n;
  if (round) n = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  else n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return n * std::pow(10.0, e);
}

namespace {

double snap(double v, double step) {
  const double k = std::round(v / step);
  return std::abs(v / step - k) < 1e-9 ? k * step : v;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  target = std::max(1, target);
  const double step = nice_number((hi - lo) / target, true);
  const double first = std::floor(lo / step + 1e-9) * step;
  const double last = std::ceil(hi / step - 1e-9) * step;
  std::vector<double> t;
  for (int i = 0; first + i * step <= last + step * 1e-6 && i < 1000; ++i) t.push_back(snap(first + i * step, step));
  return t;
}

std::vector<double> log10_ticks(double lo, double hi, int max_decades_125) {
  if (!(lo > 0) || !(hi > 0)) return {1, 10};
  if (hi < lo) std::swap(lo, hi);
  int e0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (e1 == e0) ++e1;
  const int decades = e1 - e0;
  std::vector<double> t;
  if (decades <= max_decades_125) {
    for (int e = e0; e <= e1; ++e) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (e == e1 && m > 1) break;
        t.push_back(v);
      }
    }
    // Trim 1-2-5 ticks outside the data, keeping one enclosing tick on each side.
    while (t.size() > 2 && t[1] <= lo) t.erase(t.begin());
    while (t.size() > 2 && t[t.size() - 2] >= hi) t.pop_back();
    return t;
  }
  const int every = std::max(1, (decades + 7) / 8);
  e0 = e0 - ((e0 % every) + every) % every;
  while (e1 % every != 0) ++e1;
  for (int e = e0; e <= e1; e += every) t.push_back(std::pow(10.0, e));
  return t;
}

std::vector<double> log2_ticks(double lo, double hi, int max_ticks) {
  if (!(lo > 0) || !(hi > 0)) return {1, 2};
  if (hi < lo) std::swap(lo, hi);
  int e0 = static_cast<int>(std::floor(std::log2(lo) + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log2(hi) - 1e-9));
  if (e1 == e0) ++e1;
  // Every 1st, 2nd, 5th or 10th power, aligned to multiples of it, so the labels read 1 KiB, 1 MiB, ...
  const auto down = [](int e, int k) { return e - ((e % k) + k) % k; };
  const auto up = [&](int e, int k) { return down(e, k) == e ? e : down(e, k) + k; };
  int every = 1;
  for (int k : {1, 2, 5, 10, 20, 50}) {
    every = k;
    if ((up(e1, k) - down(e0, k)) / k + 1 <= std::max(2, max_ticks)) break;
  }
  e0 = down(e0, every);
  e1 = up(e1, every);
  std::vector<double> t;
  for (int e = e0; e <= e1; e += every) t.push_back(std::ldexp(1.0, e));
  return t;
}

namespace {

std::string group_thousands(const std::string& digits) {
  std::string s = digits, sign;
  if (!s.empty() && s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const size_t dot = s.find('.');
  std::string ip = s.substr(0, dot), fp = dot == std::string::npos ? "" : s.substr(dot);
  std::string g;
  for (size_t i = 0; i < ip.size(); ++i) {
    if (i > 0 && (ip.size() - i) % 3 == 0) g += ',';
    g += ip[i];
  }
  return sign + g + fp;
}

}  // namespace

std::string format_tick(double v, double step) {
  int decimals = 0;
  if (step > 0 && step < 1) decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  // A step of 0.25 needs two decimals, 2.5 needs one: check the step itself prints exactly.
  while (decimals < 12 && std::abs(std::round(step * std::pow(10.0, decimals)) - step * std::pow(10.0, decimals)) >
                              1e-6 * std::pow(10.0, decimals) * step) {
    ++decimals;
  }
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // no "-0.0"
  return group_thousands(s);
}

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && std::abs(bytes) >= 1024) {
    bytes /= 1024;
    ++u;
  }
  const double r = std::round(bytes * 10) / 10;
  return (r == std::round(r) ? fmt::format("{:.0f}", r) : fmt::format("{:.1f}", r)) + " " + units[u];
}

std::string format_sig(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::abs(v);
  if (a == 0) return "0";
  if (a >= 100) return group_thousands(fmt::format("{:.0f}", v));
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(a))));
  return fmt::format("{:.{}f}", v, decimals);
}

std::string format_ms(double seconds) { return format_sig(1e3 * seconds); }

double Scale::operator()(double v) const {
  double t;
  switch (kind) {
    case ScaleKind::Log10:
    case ScaleKind::Log2: {
      const double l = std::log(std::max(v, 1e-300)), a = std::log(lo), b = std::log(hi);
      t = b == a ? 0.5 : (l - a) / (b - a);
      break;
    }
    default: t = hi == lo ? 0.5 : (v - lo) / (hi - lo);
  }
  return p0 + t * (p1 - p0);
}

Axis make_axis(ScaleKind kind, double lo, double hi, double p0, double p1, bool include_zero, bool bytes,
               int target) {
  Axis a;
  a.scale.kind = kind;
  a.scale.p0 = p0;
  a.scale.p1 = p1;
  if (kind == ScaleKind::Linear) {
    if (include_zero) {
      lo = std::min(lo, 0.0);
      hi = std::max(hi, 0.0);
    }
    a.ticks = nice_ticks(lo, hi, target);
    const double step = a.ticks.size() > 1 ? a.ticks[1] - a.ticks[0] : 1;
    for (double t : a.ticks) a.labels.push_back(format_tick(t, step));
  } else {
    a.ticks = kind == ScaleKind::Log2 ? log2_ticks(lo, hi) : log10_ticks(lo, hi);
    for (double t : a.ticks) {
      std::string l = bytes ? format_bytes(t) : fmt::format("{:.6g}", t);
      if (!bytes && t >= 1000 && l.find('e') == std::string::npos) l = group_thousands(l);
      a.labels.push_back(l);
    }
  }
  a.scale.lo = a.ticks.front();
  a.scale.hi = a.ticks.back();
  return a;
}

}  // namespace mg::plot
