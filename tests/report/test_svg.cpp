#include <catch2/catch.hpp>

#include "report/svg.h"

using namespace mg;

TEST_CASE("svg: text and attributes are escaped") {
  CHECK(svg::escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  svg::Writer w(100, 50, "plot", "x < y");
  w.text(1, 2, "<script>alert(1)</script>");
  const std::string s = w.finish();
  CHECK(s.find("<script>") == std::string::npos);
  CHECK(s.find("&lt;script&gt;") != std::string::npos);
  CHECK(s.find("aria-label=\"x &lt; y\"") != std::string::npos);
}

TEST_CASE("svg: numbers are compact and finite") {
  CHECK(svg::num(1.0) == "1");
  CHECK(svg::num(1.25) == "1.3");  // rounded to 0.1 px
  CHECK(svg::num(-0.04) == "0");
  CHECK(svg::num(12.5) == "12.5");
  CHECK(svg::num(std::nan("")) == "0");
}

TEST_CASE("svg: the writer emits one well-formed element per call, no ids and no external references") {
  svg::Writer w(200, 100, "plot", "t");
  svg::Style s;
  s.stroke = "#0072B2";
  s.dash = "4 3";
  w.line(0, 0, 10, 10, s);
  w.rect(1, 2, 3, 4, s, "tip");
  w.circle(5, 5, 2, s);
  w.polyline({{0, 0}, {1, 1}}, s);
  w.polygon({{0, 0}, {1, 1}, {0, 1}}, s);
  w.open_group("series");
  w.close_group();
  const std::string out = w.finish();
  CHECK(out.rfind("<svg class=\"plot\" width=\"200\" height=\"100\" viewBox=\"0 0 200 100\"", 0) == 0);
  CHECK(out.find("</svg>") != std::string::npos);
  CHECK(out.find("stroke-dasharray=\"4 3\"") != std::string::npos);
  CHECK(out.find("<title>tip</title></rect>") != std::string::npos);
  CHECK(out.find("points=\"0,0 1,1\"") != std::string::npos);
  CHECK(out.find(" id=") == std::string::npos);
  CHECK(out.find("http") == std::string::npos);
  CHECK(out.find("href") == std::string::npos);
}
