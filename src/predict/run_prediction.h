// `mgbench predict` as one call: the options in; the profile read, merged with them and checked; the prediction
// out, with what the command prints beside it. Writing and printing are the caller's.
#pragma once
#include <optional>
#include <string>

#include "predict/predict_options.h"
#include "predict/prediction.h"
#include "predict/step_profile.h"
#include "result/run_result.h"

namespace mg {

struct Prediction {
  RunResult profile;                  // as read from o.profile_path
  StepProfile step;                   // the step predicted from (after --batch-size and --profile-rate)
  double profile_images_per_sec = 0;  // the profile's own 1-device rate, before --batch-size and --profile-rate
  int64_t profile_batch_per_device = 0;  // the profile's own batch, before --batch-size
  PredictRequest request;
  // Why the 16-bit casts are priced as free (an older profile), where some entry exchanges gradients; "": none.
  std::string cast_note;
  RunResult result;                   // kind "prediction"
  std::optional<RunResult> measured;  // o.measured_path's training result
};

// UsageError (one line) for bad options or files, checked in the order the command has always given them.
Prediction run_prediction(const PredictOptions& o);

}  // namespace mg
