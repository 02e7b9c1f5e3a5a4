#include "predict/prediction.h"

#include <algorithm>
#include <cmath>

#include "core/build_info.h"

namespace mg {

namespace {

nlohmann::json link_json(const LinkModel& l) {
  return {{"label", l.label},
          {"description", l.description},
          {"bandwidth_GBps", l.bandwidth_Bps / 1e9},
          {"latency_us", l.latency_s * 1e6},
          {"measured_curve_points", l.curve.size()},
          {"fit_rms_rel", l.fit_rms_rel},
          {"gap_s", l.gap_s},
          {"gap_curve_points", l.gap_curve.size()}};
}

}  // namespace

std::string apply_wire_cast_costs(StepOptions& o, const StepProfile& p) {
  o.cast_to_wire_s_per_element = o.cast_from_wire_s_per_element = 0;
  if (o.wire == DType::F32) return {};
  if (const WireCastCost* c = wire_cast_cost(p, o.wire)) {
    o.cast_to_wire_s_per_element = c->to_wire_s_per_element;
    o.cast_from_wire_s_per_element = c->from_wire_s_per_element;
    return {};
  }
  return std::string("the profile has no ") + dtype_name(o.wire) +
         " wire-cast cost (no wire_casts entry: an older mgbench wrote it); the casts are predicted as free";
}

RunResult predict(const RunResult& profile, const StepProfile& p, const PredictRequest& request) {
  PredictRequest req = request;
  const std::string cast_note = apply_wire_cast_costs(req.step, p);
  RunResult out;
  out.kind = "prediction";
  out.env = profile.env;  // where the profile was measured
  out.env.mgbench_version = mgbench_version();
  out.env.git_commit = mgbench_git_commit();
  out.env.command_line = req.command_line;
  out.config = profile.config;
  out.config.device_counts = req.gpus;
  out.config.batch_size = p.batch_per_device;  // after --batch-size; every prediction is weak scaling
  out.config.scaling = Scaling::Weak;
  out.config.bucket_mb = req.step.bucket_mb;
  out.config.overlap = req.step.overlap;
  out.config.allreduce_dtype = req.allreduce_dtype;
  out.config.accum_steps = req.step.accum_steps;
  out.config.allreduce = req.step.allreduce;
  out.config.command_line = req.command_line;
  out.config.json_path.clear();
  out.config.transports.clear();  // the links are the entries' transports and topology.prediction's interconnects

  nlohmann::json links = nlohmann::json::array();
  for (const Interconnect& ic : req.interconnects) {
    nlohmann::json l = {{"label", ic.label()},
                        {"intra", link_json(ic.intra)},
                        {"gpus_per_node", ic.gpus_per_node},
                        {"nics_per_node", ic.nics_per_node}};
    if (ic.inter) l["inter"] = link_json(*ic.inter);
    links.push_back(l);
  }
  nlohmann::json topo = profile.env.topology.is_object() ? profile.env.topology : nlohmann::json::object();
  topo["prediction"] = {{"profile", req.profile_path},
                        {"profile_images_per_sec", p.images_per_sec},  // after --batch-size and --profile-rate
                        {"strategy", kAllreduceModeNames.name(req.step.allreduce)},
                        {"input_rate_images_per_sec", req.step.input_rate},
                        {"interconnects", links}};
  // The casts a 16-bit wire adds (docs/predict.md): their cost per element, or why there is none.
  nlohmann::json cast = nullptr;
  if (req.step.wire != DType::F32) {
    cast = {{"dtype", dtype_name(req.step.wire)},
            {"to_wire_s_per_element", req.step.cast_to_wire_s_per_element},
            {"from_wire_s_per_element", req.step.cast_from_wire_s_per_element},
            {"source", cast_note.empty() ? "profile" : "missing"}};
    if (!cast_note.empty()) cast["note"] = cast_note;
  }
  topo["prediction"]["wire_cast"] = cast;
  out.env.topology = topo;

  const int64_t k = std::max(1, req.step.accum_steps);
  for (size_t li = 0; li < req.interconnects.size(); ++li) {
    const Interconnect& ic = req.interconnects[li];
    // The straggler wait inside comm_exposed_s, per device count (docs/predict.md, item 6 of the model).
    nlohmann::json& waits = out.env.topology["prediction"]["interconnects"][li]["straggler_wait_s"];
    waits = nlohmann::json::object();
    // How many of each step's all-reduces were priced as issued after a gap (schedule.h), per device count.
    nlohmann::json& gapped = out.env.topology["prediction"]["interconnects"][li]["allreduces_after_gap"];
    gapped = nlohmann::json::object();
    const int per_node = ic.gpus_per_node > 0 ? ic.gpus_per_node : 0;
    const StepPrediction one = simulate_step(p, req.step, ic, 1, 1);
    const double base_ips = static_cast<double>(p.batch_per_device * k) / one.breakdown.total;
    for (int n : req.gpus) {
      const StepPrediction s = simulate_step(p, req.step, ic, n, per_node > 0 ? std::min(n, per_node) : n);
      waits[std::to_string(n)] = s.straggler_s;
      gapped[std::to_string(n)] = s.after_gap;
      DeviceCountResult d;
      d.devices = n;
      d.transport = ic.label();
      d.batch_per_device = p.batch_per_device;
      d.global_batch = p.batch_per_device * n * k;
      d.images_per_sec = static_cast<double>(d.global_batch) / s.breakdown.total;
      d.images_per_sec_per_device = d.images_per_sec / n;
      d.tokens_per_sample = p.tokens_per_sample;
      d.tokens_per_sec = d.images_per_sec * static_cast<double>(p.tokens_per_sample);
      d.speedup = d.images_per_sec / base_ips;
      d.scaling_efficiency = d.speedup / n;
      d.breakdown = s.breakdown;
      const double t = s.breakdown.total;
      d.step_time.median_s = d.step_time.mean_s = d.step_time.p5_s = d.step_time.p95_s = t;
      d.step_time.ci95_lo_s = d.step_time.ci95_hi_s = t;
      d.step_time.samples = 0;  // no samples, so no interval: lo = hi = the predicted step
      d.allreduce.library = n > 1 ? kAllreduceModeNames.name(req.step.allreduce) : "none";
      d.allreduce.dtype = dtype_name(req.allreduce_dtype.value_or(DType::F32));
      d.allreduce.bytes_per_step = s.wire_bytes;
      d.allreduce.buckets = static_cast<int>(s.buckets.size());
      d.allreduce.time_s = s.comm_s;
      d.allreduce.per_bucket = s.buckets;
      if (s.comm_s > 0) {
        d.allreduce.algbw_GBps = static_cast<double>(s.wire_bytes) / s.comm_s / 1e9;
        d.allreduce.busbw_GBps = d.allreduce.algbw_GBps * 2.0 * (n - 1) / n;
      }
      d.final_loss = std::nan("");
      out.runs.push_back(std::move(d));
    }
  }
  return out;
}

std::vector<MeasuredMatch> match_measured(const RunResult& prediction, const RunResult& measured) {
  std::vector<MeasuredMatch> out;
  for (const DeviceCountResult& pr : prediction.runs) {
    for (const DeviceCountResult& m : measured.runs) {
      if (m.devices != pr.devices || !(m.images_per_sec > 0)) continue;
      out.push_back({pr.devices, pr.transport, pr.images_per_sec, m.images_per_sec,
                     (pr.images_per_sec - m.images_per_sec) / m.images_per_sec});
      break;
    }
  }
  return out;
}

}  // namespace mg
