// A minimal SVG writer for the HTML report: elements appended to a string with every attribute and text
// escaped, coordinates rounded to 0.1 px so the output is compact and stable for tests. No ids are emitted
// (a page holds many SVGs, and ids would collide), no external references (the page must work offline).
#pragma once
#include <string>
#include <vector>

namespace mg::svg {

// &, <, >, " and ' as entities: safe in element text and in double-quoted attributes (HTML and SVG alike).
std::string escape(const std::string& s);

// Number as SVG/CSS wants it: fixed, at most one decimal, no trailing ".0".
std::string num(double v);

struct Point {
  double x = 0, y = 0;
};

// Stroke and fill of one shape; empty strings are left out (SVG defaults apply).
struct Style {
  std::string stroke, fill;
  double stroke_width = 1;
  std::string dash;      // stroke-dasharray, e.g. "6 4"
  double opacity = 1;    // fill-opacity
  std::string cls;       // class attribute
};

class Writer {
 public:
  Writer(double width, double height, const std::string& cls, const std::string& aria_label);

  void line(double x1, double y1, double x2, double y2, const Style& s);
  void rect(double x, double y, double w, double h, const Style& s, const std::string& title = "");
  void circle(double cx, double cy, double r, const Style& s, const std::string& title = "");
  void polyline(const std::vector<Point>& pts, const Style& s);
  void polygon(const std::vector<Point>& pts, const Style& s, const std::string& title = "");
  // anchor: start | middle | end; rotate: degrees about (x, y).
  void text(double x, double y, const std::string& t, const std::string& anchor = "start", double size = 12,
            const std::string& cls = "", double rotate = 0);
  void open_group(const std::string& cls);
  void close_group();
  std::string finish();  // the whole <svg>…</svg> element

 private:
  std::string style_attrs(const Style& s) const;
  std::string out_;
};

}  // namespace mg::svg
