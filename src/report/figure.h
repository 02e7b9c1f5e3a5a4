// What each plot kind produces for the page: the SVG and the same numbers as a table, so a reader who prefers
// numbers (or a screen reader) gets them, and html_report.cpp only lays figures out.
#pragma once
#include <string>
#include <vector>

namespace mg::plot {

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> highlight;  // per row (e.g. a regression); may be shorter than rows
};

struct Figure {
  std::string title;    // heading above the plot
  std::string caption;  // one or two sentences: what is drawn and how to read it
  std::string svg;      // inline <svg> element
  Table table;
  std::vector<std::string> series;  // names of the series drawn (the tests check each is in the SVG)
};

}  // namespace mg::plot
