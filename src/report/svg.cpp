#include "report/svg.h"

#include <cmath>

#include <fmt/format.h>

namespace mg::svg {

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) v = 0;
  const double r = std::round(v * 10) / 10;
  std::string s = fmt::format("{:.1f}", r == 0 ? 0.0 : r);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

Writer::Writer(double width, double height, const std::string& cls, const std::string& aria_label) {
  out_ = fmt::format(
      "<svg class=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
      escape(cls), num(width), num(height), num(width), num(height), escape(aria_label));
}

std::string Writer::style_attrs(const Style& s) const {
  std::string a;
  a += " fill=\"" + (s.fill.empty() ? std::string("none") : escape(s.fill)) + "\"";
  if (!s.stroke.empty()) a += " stroke=\"" + escape(s.stroke) + "\" stroke-width=\"" + num(s.stroke_width) + "\"";
  if (!s.dash.empty()) a += " stroke-dasharray=\"" + escape(s.dash) + "\"";
  if (s.opacity < 1) a += fmt::format(" fill-opacity=\"{:.2f}\"", s.opacity);
  if (!s.cls.empty()) a += " class=\"" + escape(s.cls) + "\"";
  return a;
}

namespace {
std::string title_elem(const std::string& title) {
  return title.empty() ? std::string() : "<title>" + escape(title) + "</title>";
}
std::string points(const std::vector<Point>& pts) {
  std::string p;
  for (const Point& q : pts) p += (p.empty() ? "" : " ") + num(q.x) + "," + num(q.y);
  return p;
}
}  // namespace

void Writer::line(double x1, double y1, double x2, double y2, const Style& s) {
  out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>\n", num(x1), num(y1), num(x2), num(y2),
                      style_attrs(s));
}

void Writer::rect(double x, double y, double w, double h, const Style& s, const std::string& title) {
  const std::string head = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}", num(x), num(y),
                                       num(std::max(0.0, w)), num(std::max(0.0, h)), style_attrs(s));
  out_ += title.empty() ? head + "/>\n" : head + ">" + title_elem(title) + "</rect>\n";
}

void Writer::circle(double cx, double cy, double r, const Style& s, const std::string& title) {
  const std::string head =
      fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{}", num(cx), num(cy), num(r), style_attrs(s));
  out_ += title.empty() ? head + "/>\n" : head + ">" + title_elem(title) + "</circle>\n";
}

void Writer::polyline(const std::vector<Point>& pts, const Style& s) {
  if (pts.empty()) return;
  out_ += "<polyline points=\"" + points(pts) + "\"" + style_attrs(s) + "/>\n";
}

void Writer::polygon(const std::vector<Point>& pts, const Style& s, const std::string& title) {
  if (pts.empty()) return;
  const std::string head = "<polygon points=\"" + points(pts) + "\"" + style_attrs(s);
  out_ += title.empty() ? head + "/>\n" : head + ">" + title_elem(title) + "</polygon>\n";
}

void Writer::text(double x, double y, const std::string& t, const std::string& anchor, double size,
                  const std::string& cls, double rotate) {
  std::string a = fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\"", num(x), num(y), num(size));
  if (anchor != "start") a += " text-anchor=\"" + escape(anchor) + "\"";
  if (!cls.empty()) a += " class=\"" + escape(cls) + "\"";
  if (rotate != 0) a += fmt::format(" transform=\"rotate({} {} {})\"", num(rotate), num(x), num(y));
  out_ += a + ">" + escape(t) + "</text>\n";
}

void Writer::open_group(const std::string& cls) { out_ += "<g class=\"" + escape(cls) + "\">\n"; }
void Writer::close_group() { out_ += "</g>\n"; }

std::string Writer::finish() { return out_ + "</svg>\n"; }

}  // namespace mg::svg
