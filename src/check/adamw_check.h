// The optimizer on a device: one AdamW step (Backend::adamw_update, decoupled weight decay as torch.optim.AdamW)
// on fp32 parameters, gradients and moments, against the naive fp64 reference (reference_layers.h) within fp32's
// tolerance (layer_check.h), as a row of `mgbench check`. fp32 at every precision: the master weights and the
// moments are fp32 whatever the layers compute in.
#pragma once
#include "backend/backend.h"
#include "result/check_report.h"

namespace mg::check {

// One row: the worst of the parameters' change, the new parameters and both moments. A failure to run is a failed
// row naming it.
CheckRow check_adamw(Backend& dut);

}  // namespace mg::check
