// `mgbench predict --profile run.json --gpus 1,2,4,8 --link nvlink4,pcie4 [--gpus-per-node 8 --inter-node ib-ndr]`:
// scaling on interconnects you do not have, simulated from a 1-device profile (docs/predict.md). Prints a table,
// writes a result file of kind "prediction" with --json, and with --measured prints a measured sweep beside it.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "comm/rendezvous/child_runs.h"
#include "cli/lib/command.h"
#include "predict/gloo_tcp_cost.h"
#include "predict/link_model.h"
#include "predict/run_prediction.h"
#include "result/rate_unit.h"
#include "result/result_json.h"

namespace mg {

namespace {

class PredictCommand final : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.description(
        "Predict data-parallel scaling on interconnects you do not have, from a 1-device profile (a mgbench --json "
        "result) and link models (presets, bw=..,lat=.., or a mgbench comm result). See docs/predict.md");
    std::string presets = "Link presets (GB/s per GPU per direction; published nccl-tests all-reduce busbw, docs/predict.md):";
    for (const LinkPreset& p : link_presets())
      presets += p.published.busbw_GBps > 0
                     ? fmt::format("\n  {:<14} {:>7.4g}  busbw {:.4g} on {} GPUs", p.name, p.bandwidth_GBps,
                                   p.published.busbw_GBps, p.published.ranks)
                     : fmt::format("\n  {:<14} {:>7.4g}  busbw: none found", p.name, p.bandwidth_GBps);
    presets += fmt::format(
        "\ntransport=gloo-tcp prices Gloo's ring over TCP (frames, ACKs, two trips per ring step, the shaper's burst, "
        "TCP's window after idle); step= and wake= are the host's software time per ring step and its wake-up after "
        "compute (defaults {:.3f}ms and {:.3f}ms, measured on loopback). See docs/predict.md",
        gloo_tcp::kStepSoftwareS * 1e3, gloo_tcp::kWakeS * 1e3);
    sub.footer(presets);
    sub.add_option("--profile", opts_.profile_path, "1-device training result (mgbench --gpus 1 --json FILE)")->required();
    sub.add_option("--gpus,--devices", opts_.gpus, "device counts, e.g. 1,2,4,8,16,32")->delimiter(',')->capture_default_str();
    sub.add_option("--link", opts_.links,
                   "links between the GPUs of a node, comma list: presets (nvlink1..5, pcie3..5, pcie4-switch, "
                   "ib-hdr, ib-ndr, 25gbe, 100gbe, 400gbe, nvlink4-nccl, ...: listed below), bw=<rate>,lat=<time>"
                   "[,transport=gloo-tcp[,mtu=<bytes>][,burst=<size>][,step=<time>][,wake=<time>]], or a mgbench "
                   "comm JSON file")
        ->required();
    per_node_opt_ = sub.add_option("--gpus-per-node", gpus_per_node_, "GPUs per node (default: all in one node)");
    sub.add_option("--inter-node", opts_.inter_node, "link between nodes, per NIC (preset, bw=..,lat=.. or comm JSON)");
    nics_opt_ = sub.add_option("--nics-per-node", nics_per_node_, "NICs per node (default: one per GPU, as on DGX/HGX)");
    bucket_opt_ = sub.add_option("--bucket-mb", bucket_mb_, "gradient bucket size in MiB (default: the profile's)");
    overlap_opt_ = sub.add_flag("--no-overlap", no_overlap_, "start all-reduce only after the whole backward pass");
    dtype_opt_ = sub.add_option("--allreduce-dtype", dtype_, "fp32 | fp16 | bf16 (default: the profile's)");
    accum_opt_ = sub.add_option("--accum-steps", accum_, "micro-batches per optimizer step (default: the profile's)");
    strategy_opt_ = sub.add_option("--allreduce", strategy_, "ring | ps | none (default: the profile's)");
    input_rate_opt_ = sub.add_option("--input-rate", input_rate_,
                   "images/s one node's input pipeline delivers (e.g. from mgbench --input-only); default: "
                   "as fast as the profile saw");
    batch_opt_ = sub.add_option("--batch-size", batch_,
                                "per-device batch to predict for (default: the profile's): its input, forward and "
                                "backward times scale with the batch, the optimizer's does not");
    rate_opt_ = sub.add_option("--profile-rate", profile_rate_,
                               "images/s of one device you do not have (e.g. a published figure): the profile's "
                               "times are scaled to it, keeping the shape of its step");
    sub.add_option("--measured", opts_.measured_path, "a measured multi-device result to print beside the prediction");
    sub.add_option("--json", json_, "write the prediction (a result file of kind \"prediction\") to FILE");
  }

  int run() override {
    const PredictOptions o = options();
    const Prediction pr = run_prediction(o);
    if (!pr.cast_note.empty())
      std::fprintf(stderr, "mgbench predict: %s: %s\n", o.profile_path.c_str(), pr.cast_note.c_str());
    print(pr);
    if (o.batch_size)
      std::printf("# profile moved from batch %lld to %lld per device (--batch-size): input, forward and backward "
                  "scaled with it, the optimizer not\n",
                  static_cast<long long>(pr.profile_batch_per_device),
                  static_cast<long long>(pr.step.batch_per_device));
    if (o.profile_rate)
      std::printf("# profile scaled from %.4g to %.4g images/s on 1 device (--profile-rate)\n",
                  pr.profile_images_per_sec, pr.step.images_per_sec);
    if (!json_.empty()) write_json_atomic(json_, to_json(pr.result));
    return 0;
  }

 private:
  // The options as a request: a setting not given stays unset, so the profile's applies.
  PredictOptions options() const {
    PredictOptions o = opts_;
    o.command_line = own_command_line();
    o.gpus_per_node = given(per_node_opt_, gpus_per_node_);
    o.nics_per_node = given(nics_opt_, nics_per_node_);
    o.bucket_mb = given(bucket_opt_, bucket_mb_);
    o.overlap = given(overlap_opt_, !no_overlap_);
    o.allreduce_dtype = given(dtype_opt_, dtype_);
    o.accum_steps = given(accum_opt_, accum_);
    o.allreduce = given(strategy_opt_, strategy_);
    o.input_rate = given(input_rate_opt_, input_rate_);
    o.batch_size = given(batch_opt_, batch_);
    o.profile_rate = given(rate_opt_, profile_rate_);
    return o;
  }
  template <class T>
  static std::optional<T> given(const CLI::Option* opt, const T& value) {
    return opt->count() ? std::optional<T>(value) : std::nullopt;
  }

  void print(const Prediction& pr) const {
    const RunResult& profile = pr.profile;
    const StepProfile& p = pr.step;
    const PredictRequest& req = pr.request;
    const RunResult& out = pr.result;
    const std::optional<RunResult>& measured = pr.measured;
    const StepOptions& o = req.step;
    std::printf("# mgbench predict: %s %s, batch %lld per device, profile %s (1 device: %.1f images/s)\n",
                profile.config.model.c_str(), precision_name(profile.config.precision),
                static_cast<long long>(p.batch_per_device), opts_.profile_path.c_str(), p.images_per_sec);
    std::printf("# %s all-reduce, %s wire, bucket %g MiB, overlap %s, accum-steps %d%s\n",
                kAllreduceModeNames.name(o.allreduce), dtype_name(req.allreduce_dtype.value_or(DType::F32)),
                o.bucket_mb, o.overlap ? "on" : "off", o.accum_steps,
                o.input_rate > 0 ? fmt::format(", input {:.0f} images/s per node", o.input_rate).c_str() : "");
    if (o.wire != DType::F32 && o.cast_to_wire_s_per_element > 0)
      std::printf("# %s casts on the compute stream (profile): %.3f ns/element to the wire, %.3f back\n",
                  dtype_name(o.wire), 1e9 * o.cast_to_wire_s_per_element, 1e9 * o.cast_from_wire_s_per_element);
    for (const Interconnect& ic : req.interconnects) {
      std::printf("# link %s: %s\n", ic.intra.label.c_str(), ic.intra.description.c_str());
    }
    if (const auto& ic = req.interconnects.front(); ic.inter) {
      std::printf("# inter-node %s (%d GPUs per node, %d NICs per node): %s\n", ic.inter->label.c_str(),
                  ic.gpus_per_node, ic.nics_per_node > 0 ? ic.nics_per_node : ic.gpus_per_node,
                  ic.inter->description.c_str());
    }
    const std::vector<MeasuredMatch> matches = measured ? match_measured(out, *measured) : std::vector<MeasuredMatch>{};
    const RateUnit unit = out.runs.empty() ? RateUnit{} : rate_unit(out.runs.front());
    const double per_sample = unit.per_sample;
    std::printf("%7s %-22s %10s %9s %6s %9s %9s %9s %9s %7s", "devices", "link", unit.total, unit.per_device, "eff%",
                "step ms", "comm ms", "exposed", "overlap", "buckets");
    if (measured) std::printf(" %10s %7s %7s", "measured", "error%", "naive%");
    std::printf("\n");
    for (const DeviceCountResult& d : out.runs) {
      std::printf("%7d %-22s %10.1f %9.1f %6.1f %9.3f %9.3f %9.3f %9.3f %7d", d.devices, d.transport.c_str(),
                  d.images_per_sec * per_sample, d.images_per_sec_per_device * per_sample, 100 * d.scaling_efficiency,
                  1e3 * d.breakdown.total, 1e3 * d.allreduce.time_s, 1e3 * d.breakdown.comm_exposed,
                  1e3 * d.breakdown.comm_overlapped, d.allreduce.buckets);
      if (measured) {
        bool found = false;
        for (const MeasuredMatch& m : matches) {
          if (m.devices == d.devices && m.link == d.transport && !found) {
            // The naive forecast, N x this link's predicted 1-device rate, beside the model's: what the model adds.
            const double naive = d.speedup > 0 ? d.devices * d.images_per_sec / d.speedup : 0;
            std::printf(" %10.1f %+7.1f %+7.1f", m.measured * per_sample, 100 * m.error,
                        100 * (naive - m.measured) / m.measured);
            found = true;
          }
        }
        if (!found) std::printf(" %10s %7s %7s", "-", "-", "-");
      }
      std::printf("\n");
    }
    std::fflush(stdout);
  }

  PredictOptions opts_;  // what CLI11 fills directly; options() adds the settings that may be left unset
  CLI::Option* per_node_opt_ = nullptr;
  int gpus_per_node_ = 0;
  CLI::Option* nics_opt_ = nullptr;
  int nics_per_node_ = 0;
  CLI::Option* bucket_opt_ = nullptr;
  double bucket_mb_ = 25;
  CLI::Option* overlap_opt_ = nullptr;
  bool no_overlap_ = false;
  CLI::Option* dtype_opt_ = nullptr;
  std::string dtype_;
  CLI::Option* accum_opt_ = nullptr;
  int accum_ = 1;
  CLI::Option* strategy_opt_ = nullptr;
  std::string strategy_ = "ring";
  CLI::Option* input_rate_opt_ = nullptr;
  double input_rate_ = 0;
  CLI::Option* batch_opt_ = nullptr;
  int64_t batch_ = 0;
  CLI::Option* rate_opt_ = nullptr;
  double profile_rate_ = 0;
  std::string json_;
};

}  // namespace

std::unique_ptr<Command> make_predict_command() { return std::make_unique<PredictCommand>(); }

}  // namespace mg
