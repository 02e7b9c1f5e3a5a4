// The 16-bit wire casts' cost on this device, for the profile `mgbench predict` reads: GradSync casts each
// bucket fp32 -> wire dtype on the Compute stream before launching its all-reduce and back before the optimizer,
// work a 1-device run never does. Timed here with the same Backend::cast over the model's whole gradient and
// device events, so the figure comes from the code path and stream a multi-device run uses.
#pragma once
#include <cstddef>
#include <vector>

#include "backend/backend.h"
#include "result/run_result.h"

namespace mg {

// For fp16 and bf16: one untimed round trip, then `repetitions` timed ones (out-cast and in-cast between Compute
// events, `chunk` elements at a time, as GradSync casts one bucket at a time), median per direction over
// `elements`. The 16-bit buffer holds one chunk, so the profile adds no more than a bucket's wire copy to the
// process's peak memory. grads (n fp32 elements on the device) is read by the out-cast and overwritten by the
// in-cast with its own values rounded to the wire dtype: call it only when the gradients are no longer needed.
// Leaves the Compute stream synchronised. An empty result when the 16-bit buffer cannot be allocated (out of
// memory after the run): the profile then simply has no cast figure.
std::vector<WireCastCost> measure_wire_casts(Backend& be, float* grads, size_t n, size_t chunk, int repetitions = 5);

}  // namespace mg
