// The token-level loss on a device: the mean softmax cross-entropy of a [tokens x vocab] logits tensor with integer
// targets (Backend::softmax_xent), its loss and d(logits), against the naive fp64 reference (reference_layers.h)
// within the precision's tolerance (layer_check.h), as a row of `mgbench check`.
#pragma once
#include "backend/backend.h"
#include "result/check_report.h"

namespace mg::check {

// One row at precision p (logits and d(logits) in its activation dtype): the worst of the loss with the gradient,
// d(logits) and the loss of a call without a gradient (an evaluation step's). A failure to run is a failed row
// naming it.
CheckRow check_softmax_xent(Backend& dut, Precision p);

}  // namespace mg::check
