#include "predict/predict_options.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "predict/link_model.h"
#include "result/config_ranges.h"

namespace mg {

namespace {

// One interconnect per --link, each with the same nodes: a count beyond one node needs the link between them.
std::vector<Interconnect> predict_interconnects(const PredictOptions& o) {
  std::optional<LinkModel> inter;
  if (!o.inter_node.empty()) inter = parse_link(o.inter_node, "--inter-node");
  int max_gpus = 0;
  for (int n : o.gpus) max_gpus = std::max(max_gpus, n);
  if (o.gpus_per_node && max_gpus > *o.gpus_per_node && !inter)
    throw UsageError("--gpus " + std::to_string(max_gpus) + " spans several nodes of " +
                     std::to_string(*o.gpus_per_node) + " GPUs: give --inter-node");
  std::vector<Interconnect> out;
  for (const std::string& l : split_link_list(o.links)) {
    Interconnect ic;
    ic.intra = parse_link(l, "--link");
    ic.inter = inter;
    ic.gpus_per_node = o.gpus_per_node.value_or(0);
    ic.nics_per_node = o.nics_per_node.value_or(0);
    out.push_back(ic);
  }
  return out;
}

bool gloo_tcp_form(const LinkModel& l) { return l.curve.empty() && l.transport == LinkTransport::GlooTcp; }

// The gloo-tcp form prices Gloo's ring on one link; the two-level and parameter-server forms would read its lat,
// a one-way delay, as a per-step latency and drop its frame, rendezvous and software terms.
void check_gloo_tcp_use(const Interconnect& ic, AllreduceMode mode) {
  if (ic.inter && gloo_tcp_form(*ic.inter))
    throw UsageError("--inter-node '" + ic.inter->label + "': transport=gloo-tcp prices a ring on one link, not "
                     "between nodes");
  if (!gloo_tcp_form(ic.intra)) return;
  if (ic.inter)
    throw UsageError("--link '" + ic.intra.label + "': transport=gloo-tcp prices a ring on one link, not with "
                     "--inter-node");
  if (mode == AllreduceMode::Ps)
    throw UsageError("--allreduce ps: --link '" + ic.intra.label + "' is transport=gloo-tcp, which prices only "
                     "Gloo's ring");
}

}  // namespace

void check_predict_options(const PredictOptions& o) {
  if (o.gpus.empty()) throw UsageError("--gpus needs at least one device count");
  for (int n : o.gpus)
    if (n < 1) throw UsageError("--gpus: device counts must be at least 1, got " + std::to_string(n));
  if (o.gpus_per_node && *o.gpus_per_node < 1)
    throw UsageError("--gpus-per-node must be at least 1, got " + std::to_string(*o.gpus_per_node));
  if (o.nics_per_node && *o.nics_per_node < 1) throw UsageError("--nics-per-node must be at least 1");
  if (!o.inter_node.empty() && !o.gpus_per_node) throw UsageError("--inter-node needs --gpus-per-node");
  if (o.input_rate && (!(*o.input_rate > 0) || !std::isfinite(*o.input_rate)))
    throw UsageError("--input-rate must be a positive rate");
}

PredictRequest merge_predict_options(const PredictOptions& o, const RunResult& profile, const StepProfile& p) {
  const RunConfig& c = profile.config;
  PredictRequest req;
  req.gpus = o.gpus;
  req.profile_path = o.profile_path;
  req.command_line = o.command_line;
  StepOptions& s = req.step;
  s.bucket_mb = o.bucket_mb.value_or(c.bucket_mb);
  check_bucket_mb(s.bucket_mb);
  s.overlap = o.overlap.value_or(c.overlap);
  req.allreduce_dtype = c.allreduce_dtype;
  if (o.allreduce_dtype) req.allreduce_dtype = kAllreduceDTypeNames.parse(*o.allreduce_dtype, "--allreduce-dtype");
  s.wire = req.allreduce_dtype.value_or(DType::F32);
  (void)apply_wire_cast_costs(s, p);  // its note, if any, is run_prediction's to say
  s.accum_steps = o.accum_steps.value_or(c.accum_steps);
  check_accum_steps(s.accum_steps);
  s.allreduce = c.allreduce;
  // Not the table's parse: predict's message lists the modes in its own order, as it always has.
  if (o.allreduce && !kAllreduceModeNames.find(*o.allreduce, s.allreduce))
    throw UsageError("--allreduce '" + *o.allreduce + "' is not one of: ring, ps, none");
  s.input_rate = o.input_rate.value_or(0);
  req.interconnects = predict_interconnects(o);
  for (const Interconnect& ic : req.interconnects) check_gloo_tcp_use(ic, s.allreduce);
  return req;
}

}  // namespace mg
