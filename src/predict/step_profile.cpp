#include "predict/step_profile.h"

#include "core/error.h"

namespace mg {

StepProfile step_profile_from(const RunResult& r, const std::string& source) {
  if (r.kind != "training")
    throw UsageError(source + ": is a " + r.kind + ", not a training result; profile a 1-device run (mgbench --gpus 1)");
  if (r.config.forward_only || r.config.input_only)
    throw UsageError(source + ": was run with --" + (r.config.forward_only ? "forward-only" : "input-only") +
                     "; a profile needs a training step");
  const DeviceCountResult* one = nullptr;
  for (const DeviceCountResult& d : r.runs)
    if (d.devices == 1 && !one) one = &d;
  if (!one) throw UsageError(source + ": has no 1-device run; profile with mgbench --gpus 1");
  if (one->gradient_layers.empty())
    throw UsageError(source + ": its 1-device run has no gradient_layers profile (written by an older mgbench?)");
  if (!(one->breakdown.total > 0) || !(one->breakdown.backward > 0))
    throw UsageError(source + ": its 1-device run has no timed steps");
  StepProfile p;
  p.accum_steps = std::max(1, r.config.accum_steps);
  p.batch_per_device = one->batch_per_device;
  p.input_wait_s = one->breakdown.input_wait;
  p.forward_s = one->breakdown.forward;
  p.backward_s = one->breakdown.backward;
  p.optimizer_s = one->breakdown.optimizer;
  p.images_per_sec = one->images_per_sec;
  p.layers = one->gradient_layers;
  return p;
}

}  // namespace mg
