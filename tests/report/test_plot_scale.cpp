#include <catch2/catch.hpp>

#include <cmath>

#include "report/scale.h"

using namespace mg::plot;

TEST_CASE("plot scale: nice numbers are 1, 2, 5 or 10 times a power of ten") {
  CHECK(nice_number(0.7, false) == Approx(1));
  CHECK(nice_number(1.7, false) == Approx(2));
  CHECK(nice_number(3.1, false) == Approx(5));
  CHECK(nice_number(6.0, false) == Approx(10));
  CHECK(nice_number(23, true) == Approx(20));
  CHECK(nice_number(0.0042, true) == Approx(0.005));
  CHECK(nice_number(1400, true) == Approx(1000));
}

TEST_CASE("plot scale: linear ticks enclose the data with a nice step") {
  const auto t = nice_ticks(0, 61.3, 5);
  REQUIRE(t.size() == 8);  // step 10 -> 0..70
  CHECK(t.front() == 0);
  CHECK(t.back() == Approx(70));
  CHECK(t[1] - t[0] == Approx(10));

  const auto u = nice_ticks(0.11, 0.29, 4);  // step 0.05
  CHECK(u.front() == Approx(0.1));
  CHECK(u.back() == Approx(0.3));
  CHECK(format_tick(u[4], u[1] - u[0]) == "0.30");
  CHECK(format_tick(0.3, 0.1) == "0.3");  // snapped: not 0.30000000000000004

  const auto c = nice_ticks(472, 718, 5);
  CHECK(c.front() <= 472);
  CHECK(c.back() >= 718);
  CHECK(c[1] - c[0] == Approx(50));

  const auto same = nice_ticks(5, 5, 5);  // a single value gets room around it
  CHECK(same.front() < 5);
  CHECK(same.back() > 5);
}

TEST_CASE("plot scale: log10 ticks are 1-2-5 over short ranges and decades over long ones") {
  const auto a = log10_ticks(3, 80);
  CHECK(a == std::vector<double>{2, 5, 10, 20, 50, 100});
  const auto b = log10_ticks(0.9, 120000);
  REQUIRE(!b.empty());
  for (double v : b) CHECK(std::abs(std::log10(v) - std::round(std::log10(v))) < 1e-9);
  CHECK(b.front() <= 0.9);
  CHECK(b.back() >= 120000);
  CHECK(b.size() <= 9);
}

TEST_CASE("plot scale: byte axes tick at powers of two and read in binary units") {
  const auto t = log2_ticks(8, 32 << 20, 9);
  CHECK(t.front() <= 8);
  CHECK(t.back() >= (32 << 20));
  CHECK(t.size() <= 9);
  for (double v : t) CHECK(std::abs(std::log2(v) - std::round(std::log2(v))) < 1e-9);
  const auto k = log2_ticks(1024, 4 << 20, 13);  // every power fits
  CHECK(k.size() == 13);
  const auto w = log2_ticks(8, 32 << 20, 9);  // 23 powers: every 5th, from 1 B
  CHECK(w == std::vector<double>{1, 32, 1024, 32768, 1 << 20, 32 << 20});
  CHECK(format_bytes(8) == "8 B");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(32 << 20) == "32 MiB");
  CHECK(format_bytes(1024.0 * 1024 * 1024) == "1 GiB");
}

TEST_CASE("plot scale: labels group thousands and keep the step's decimals") {
  CHECK(format_tick(12000, 2000) == "12,000");
  CHECK(format_tick(2.5, 0.5) == "2.5");
  CHECK(format_tick(0.25, 0.25) == "0.25");
  CHECK(format_tick(-0.0000001, 0.5) == "0.0");
  CHECK(format_sig(1234.6) == "1,235");
  CHECK(format_sig(0.012345) == "0.0123");
  CHECK(format_sig(29.2) == "29.2");
}

TEST_CASE("plot scale: mapping is linear or logarithmic onto the pixel range") {
  const Axis y = make_axis(ScaleKind::Linear, 3, 61, 300, 0, true);
  CHECK(y.scale.lo == 0);
  CHECK(y.scale.hi == Approx(70));
  CHECK(y.scale(0) == Approx(300));
  CHECK(y.scale(35) == Approx(150));
  REQUIRE(y.labels.size() == y.ticks.size());
  CHECK(y.labels.back() == "70");

  const Axis x = make_axis(ScaleKind::Log2, 1024, 4 << 20, 0, 120, false, true);
  CHECK(x.scale(1024) == Approx(0));
  CHECK(x.scale(4 << 20) == Approx(120));
  CHECK(x.scale(64 * 1024) == Approx(60));  // halfway in log space
  CHECK(x.labels.front() == "1 KiB");
  CHECK(x.labels.back() == "4 MiB");
}
