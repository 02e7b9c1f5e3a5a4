// How a run's rates are named and scaled for display: images or, for a language model, sequences and tokens.
#pragma once
#include <cstdint>
#include <vector>

#include "result/run_result.h"

namespace mg {

// How a run's rates are shown: a language model's in tokens (its samples are sequences of tokens_per_sample),
// an image model's in images; a rate per sample times per_sample is the rate in `total`'s unit. A rate per
// sample itself (images_per_sec) is named by `samples`: images/s, or a language model's sequences/s.
struct RateUnit {
  double per_sample = 1;
  const char* total = "images/s";
  const char* per_device = "img/s/dev";
  const char* samples = "images/s";
  const char* samples_short = "img/s";
};
RateUnit rate_unit(int64_t tokens_per_sample);  // > 0: a language model's sequence length
RateUnit rate_unit(const DeviceCountResult& r);
// The labels for the rates of several runs: the first's when all count the same kind of sample (an image
// model's with none), else labels naming both ("images or sequences/s"). For labels only: per_sample may differ.
RateUnit common_rate_unit(const std::vector<RateUnit>& units);

}  // namespace mg
