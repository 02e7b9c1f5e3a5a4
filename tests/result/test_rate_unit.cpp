#include <catch2/catch.hpp>

#include <string>

#include "result/rate_unit.h"

using namespace mg;

TEST_CASE("rate units: a language model's samples are sequences and its total is tokens, and mixed runs name both") {
  const RateUnit image = rate_unit(0), lm = rate_unit(256);
  CHECK(std::string(image.samples) == "images/s");
  CHECK(std::string(image.samples_short) == "img/s");
  CHECK(std::string(lm.samples) == "sequences/s");
  CHECK(std::string(lm.samples_short) == "seq/s");
  CHECK(std::string(lm.total) == "tokens/s");
  CHECK(lm.per_sample == 256);
  CHECK(std::string(common_rate_unit({}).samples) == "images/s");
  CHECK(std::string(common_rate_unit({lm, rate_unit(64)}).samples) == "sequences/s");
  CHECK(std::string(common_rate_unit({image, lm}).samples) == "images or sequences/s");
}
