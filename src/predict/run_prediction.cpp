#include "predict/run_prediction.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "result/result_json.h"

namespace mg {

Prediction run_prediction(const PredictOptions& o) {
  check_predict_options(o);
  Prediction out;
  out.profile = read_result_file(o.profile_path);
  out.step = step_profile_from(out.profile, o.profile_path);
  out.profile_images_per_sec = out.step.images_per_sec;
  out.profile_batch_per_device = out.step.batch_per_device;
  if (o.batch_size) rebatch_profile(out.step, *o.batch_size);
  if (o.profile_rate) rescale_profile(out.step, *o.profile_rate);
  out.request = merge_predict_options(o, out.profile, out.step);
  if (!o.measured_path.empty()) {
    out.measured = read_result_file(o.measured_path);
    if (out.measured->kind != "training") throw UsageError(o.measured_path + ": --measured needs a training result");
    for (const DeviceCountResult& m : out.measured->runs)
      if (m.batch_per_device != out.step.batch_per_device)
        throw UsageError(fmt::format("{}: its batch per device is {}, the prediction's {}: measure at the same batch",
                                     o.measured_path, m.batch_per_device, out.step.batch_per_device));
  }
  // Said, not silently taken as 0: an older profile cannot price the 16-bit casts. Only where some entry
  // exchanges gradients (else nothing is cast).
  StepOptions priced = out.request.step;
  const std::string note = apply_wire_cast_costs(priced, out.step);
  const bool exchanges = priced.allreduce != AllreduceMode::None &&
                         *std::max_element(o.gpus.begin(), o.gpus.end()) > 1;
  if (exchanges) out.cast_note = note;
  out.result = predict(out.profile, out.step, out.request);
  return out;
}

}  // namespace mg
