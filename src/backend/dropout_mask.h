// Inverted dropout's counter-based mask, one definition for both backends so they draw the identical mask:
//   stream_c = splitmix64(seed) + c      (c = 0, 1, 2, ... counts the layer's training forwards)
//   keep(i)  = counter_uniform(stream_c, i) >= p      (i = element index in NHWC memory order)
//   out[i]   = keep(i) ? in[i] / (1 - p) : 0,         din[i] = keep(i) ? dout[i] / (1 - p) : 0
// Backward regenerates the mask of the latest training forward instead of storing it; inference forward is the
// identity and does not advance c.
#pragma once
#include <cstdint>
#include <string>

#include "core/counter_rng.h"
#include "core/error.h"

namespace mg {

MG_HD bool dropout_keeps(uint64_t stream, uint64_t i, float p) { return counter_uniform(stream, i) >= p; }

// A dropout layer's masks: drop probability p, a fresh stream for each training forward, the latest for backward.
class DropoutMask {
 public:
  DropoutMask(float p, uint64_t seed) : p_(p), stream0_(splitmix64(seed)) {}
  float p() const { return p_; }
  uint64_t next() { return last_ = stream0_ + calls_++; }
  // Throws naming the layer when no training forward has drawn a mask yet.
  uint64_t latest(const std::string& layer) const {
    MG_ENSURE(calls_ > 0, "dropout layer " + layer + ": backward before a training forward");
    return last_;
  }

 private:
  float p_;
  uint64_t stream0_;
  uint64_t calls_ = 0;
  uint64_t last_ = 0;
};

}  // namespace mg
