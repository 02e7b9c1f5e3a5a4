// How `mgbench predict` merges its options with the profile: a setting given wins over the profile's, the
// profile's over the default; the one-line errors for bad values and combinations; and run_prediction's order.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "predict/predict_options.h"
#include "predict/run_prediction.h"
#include "result/result_json.h"
#include "support/temp_dir.h"

namespace mg {

namespace {

// A profile whose every gradient setting differs from RunConfig's default and from the options below.
RunResult opts_profile() {
  RunResult r;
  r.kind = "training";
  r.config.bucket_mb = 10;
  r.config.overlap = false;
  r.config.allreduce_dtype = DType::F16;
  r.config.accum_steps = 2;
  r.config.allreduce = AllreduceMode::Ps;
  return r;
}

// A step with a distinct cast cost per 16-bit dtype, so the one taken names its dtype.
StepProfile opts_step() {
  StepProfile p;
  p.batch_per_device = 8;
  p.forward_s = 0.01;
  p.backward_s = 0.02;
  p.optimizer_s = 0.005;
  p.images_per_sec = 8 / 0.035;
  p.layers = {{0, 1000, 0.02}};
  p.wire_casts = {{"fp16", 1e-9, 2e-9, 1000, 3}, {"bf16", 3e-9, 4e-9, 1000, 3}};
  return p;
}

PredictOptions opts_links(const std::string& links) {
  PredictOptions o;
  o.links = links;
  return o;
}

// Options on one nvlink4 node with one change.
template <class F>
PredictOptions opts_with(F&& change) {
  PredictOptions o = opts_links("nvlink4");
  change(o);
  return o;
}

// The gradient settings of a merged request, each against the source that should have won.
void opts_check_settings(const PredictRequest& req, double bucket_mb, bool overlap, DType wire, int accum_steps,
                         AllreduceMode allreduce) {
  CHECK(req.step.bucket_mb == bucket_mb);
  CHECK(req.step.overlap == overlap);
  CHECK(req.allreduce_dtype == wire);
  CHECK(req.step.wire == wire);
  CHECK(req.step.accum_steps == accum_steps);
  CHECK(req.step.allreduce == allreduce);
}

// The message of the UsageError that fn throws; "" when it throws none.
template <class F>
std::string opts_usage_error(F&& fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The profile of opts_step as a 1-device training result in a file, as a mgbench --json run writes it.
std::string opts_profile_file(const test::TempDir& dir, bool with_casts) {
  RunResult r = opts_profile();
  DeviceCountResult d;
  d.devices = 1;
  d.transport = "default";
  d.batch_per_device = 8;
  d.global_batch = 8;
  d.breakdown.forward = 0.01;
  d.breakdown.backward = 0.02;
  d.breakdown.optimizer = 0.005;
  d.breakdown.total = 0.035;
  d.images_per_sec = 8 / 0.035;
  d.gradient_layers = opts_step().layers;
  if (with_casts) d.wire_casts = opts_step().wire_casts;
  r.runs.push_back(d);
  const std::string path = dir / (with_casts ? "profile.json" : "old.json");
  write_json_atomic(path, to_json(r));
  return path;
}

}  // namespace

TEST_CASE("merge_predict_options: every setting given wins over the profile's") {
  PredictOptions o = opts_links("nvlink4");
  o.bucket_mb = 3;
  o.overlap = true;
  o.allreduce_dtype = "bf16";
  o.accum_steps = 4;
  o.allreduce = "none";
  o.input_rate = 500;
  const PredictRequest req = merge_predict_options(o, opts_profile(), opts_step());
  opts_check_settings(req, 3, true, DType::BF16, 4, AllreduceMode::None);
  CHECK(req.step.input_rate == 500);
  o.allreduce = "ring";
  CHECK(merge_predict_options(o, opts_profile(), opts_step()).step.allreduce == AllreduceMode::Ring);
}

TEST_CASE("merge_predict_options: a setting not given is the profile's, over the default") {
  const PredictRequest req = merge_predict_options(opts_links("nvlink4"), opts_profile(), opts_step());
  opts_check_settings(req, 10, false, DType::F16, 2, AllreduceMode::Ps);
  // The profile's gradient dtype unset: the default, fp32 gradients on an fp32 wire.
  RunResult fp32 = opts_profile();
  fp32.config.allreduce_dtype.reset();
  const PredictRequest plain = merge_predict_options(opts_links("nvlink4"), fp32, opts_step());
  CHECK_FALSE(plain.allreduce_dtype.has_value());
  CHECK(plain.step.wire == DType::F32);
  CHECK(plain.step.cast_to_wire_s_per_element == 0);
}

TEST_CASE("merge_predict_options: what neither gives takes the default: no input limit, one node, a NIC per GPU") {
  PredictOptions o = opts_links("nvlink4,bw=1GB/s,lat=2us");
  o.gpus = {2, 4};
  o.profile_path = "p.json";
  o.command_line = "mgbench predict";
  const PredictRequest req = merge_predict_options(o, opts_profile(), opts_step());
  CHECK(req.gpus == std::vector<int>{2, 4});
  CHECK(req.profile_path == "p.json");
  CHECK(req.command_line == "mgbench predict");
  CHECK(req.step.input_rate == 0);
  REQUIRE(req.interconnects.size() == 2);
  for (const Interconnect& ic : req.interconnects) {
    CHECK_FALSE(ic.inter.has_value());
    CHECK(ic.gpus_per_node == 0);
    CHECK(ic.nics_per_node == 0);
  }
  CHECK(req.interconnects[0].label() == "nvlink4");
  CHECK(req.interconnects[1].label() == "bw=1GB/s,lat=2us");
}

TEST_CASE("merge_predict_options: every link gets the same nodes and the same link between them") {
  PredictOptions o = opts_links("nvlink4,pcie4");
  o.gpus = {8, 32};
  o.gpus_per_node = 8;
  o.nics_per_node = 2;
  o.inter_node = "ib-ndr";
  const PredictRequest req = merge_predict_options(o, opts_profile(), opts_step());
  REQUIRE(req.interconnects.size() == 2);
  for (const Interconnect& ic : req.interconnects) {
    REQUIRE(ic.inter.has_value());
    CHECK(ic.inter->label == "ib-ndr");
    CHECK(ic.gpus_per_node == 8);
    CHECK(ic.nics_per_node == 2);
  }
  CHECK(req.interconnects[1].label() == "pcie4+ib-ndr");
}

TEST_CASE("merge_predict_options: the wire casts cost what the profile timed for the merged wire dtype") {
  PredictOptions o = opts_links("nvlink4");
  const PredictRequest fp16 = merge_predict_options(o, opts_profile(), opts_step());  // the profile's fp16
  CHECK(fp16.step.cast_to_wire_s_per_element == 1e-9);
  CHECK(fp16.step.cast_from_wire_s_per_element == 2e-9);
  o.allreduce_dtype = "bf16";
  const PredictRequest bf16 = merge_predict_options(o, opts_profile(), opts_step());
  CHECK(bf16.step.cast_to_wire_s_per_element == 3e-9);
  CHECK(bf16.step.cast_from_wire_s_per_element == 4e-9);
  o.allreduce_dtype = "fp32";
  CHECK(merge_predict_options(o, opts_profile(), opts_step()).step.cast_to_wire_s_per_element == 0);
}

TEST_CASE("merge_predict_options: out-of-range settings, from the options or the profile, and unknown names") {
  const auto merged = [](const PredictOptions& o, const RunResult& profile = opts_profile()) {
    return opts_usage_error([&] { merge_predict_options(o, profile, opts_step()); });
  };
  CHECK(merged(opts_with([](PredictOptions& o) { o.bucket_mb = 0; })) == "--bucket-mb must be in (0, 65536]");
  CHECK(merged(opts_with([](PredictOptions& o) { o.bucket_mb = 1e9; })) == "--bucket-mb must be in (0, 65536]");
  CHECK(merged(opts_with([](PredictOptions& o) { o.accum_steps = 5000; })) ==
        "--accum-steps 5000 must be between 1 and 4096");
  // A hand-edited profile's settings are checked as if given.
  RunResult odd = opts_profile();
  odd.config.bucket_mb = 0;
  CHECK(merged(opts_links("nvlink4"), odd) == "--bucket-mb must be in (0, 65536]");
  odd = opts_profile();
  odd.config.accum_steps = 0;
  CHECK(merged(opts_links("nvlink4"), odd) == "--accum-steps 0 must be between 1 and 4096");
  CHECK(merged(opts_with([](PredictOptions& o) { o.allreduce = "tree"; })) ==
        "--allreduce 'tree' is not one of: ring, ps, none");
  CHECK(merged(opts_with([](PredictOptions& o) { o.allreduce_dtype = "fp8"; })) ==
        "--allreduce-dtype fp8 is not one of: fp32, fp16, bf16");
  CHECK(merged(opts_links("nvlink9")).rfind("--link: unknown link 'nvlink9'", 0) == 0);
  CHECK(merged(opts_with([](PredictOptions& o) {
          o.gpus_per_node = 8;
          o.inter_node = "ib-zzz";
        })).rfind("--inter-node: unknown link 'ib-zzz'", 0) == 0);
  // More devices than one node holds, with nothing between the nodes.
  PredictOptions o = opts_links("nvlink4");
  o.gpus_per_node = 8;
  o.gpus = {4, 16};
  CHECK(merged(o) == "--gpus 16 spans several nodes of 8 GPUs: give --inter-node");
  o.gpus = {4, 8};
  CHECK(merged(o).empty());
}

TEST_CASE("merge_predict_options: a transport=gloo-tcp link only where its ring is what runs") {
  const auto merged = [](const PredictOptions& o) {
    return opts_usage_error([&] { merge_predict_options(o, opts_profile(), opts_step()); });
  };
  const std::string tcp = "bw=1gbit,lat=2ms,transport=gloo-tcp";
  // The profile's parameter server, or the two-level form across nodes, would read lat as a per-step latency.
  CHECK(merged(opts_links(tcp)) == "--allreduce ps: --link '" + tcp + "' is transport=gloo-tcp, which prices "
                                   "only Gloo's ring");
  CHECK(merged(opts_with([&](PredictOptions& o) {
          o.links = tcp;
          o.allreduce = "ring";
          o.gpus_per_node = 2;
          o.inter_node = "100gbe";
        })) == "--link '" + tcp + "': transport=gloo-tcp prices a ring on one link, not with --inter-node");
  CHECK(merged(opts_with([&](PredictOptions& o) {
          o.allreduce = "ring";
          o.gpus_per_node = 2;
          o.inter_node = tcp;
        })) == "--inter-node '" + tcp + "': transport=gloo-tcp prices a ring on one link, not between nodes");
  // Its ring on one link, or no exchange at all, is priced.
  for (const std::string mode : {"ring", "none"}) {
    INFO(mode);
    CHECK(merged(opts_with([&](PredictOptions& o) {
            o.links = tcp;
            o.allreduce = mode;
          })).empty());
  }
}

TEST_CASE("check_predict_options: one line for each bad value or combination that needs no file") {
  const auto checked = [](const PredictOptions& o) { return opts_usage_error([&] { check_predict_options(o); }); };
  CHECK(checked(opts_links("nvlink4")).empty());
  CHECK(checked(opts_with([](PredictOptions& o) { o.gpus = {}; })) == "--gpus needs at least one device count");
  CHECK(checked(opts_with([](PredictOptions& o) { o.gpus = {1, 0}; })) ==
        "--gpus: device counts must be at least 1, got 0");
  CHECK(checked(opts_with([](PredictOptions& o) { o.gpus_per_node = 0; })) ==
        "--gpus-per-node must be at least 1, got 0");
  CHECK(checked(opts_with([](PredictOptions& o) { o.nics_per_node = 0; })) == "--nics-per-node must be at least 1");
  PredictOptions o = opts_links("nvlink4");
  o.inter_node = "ib-ndr";
  CHECK(checked(o) == "--inter-node needs --gpus-per-node");
  o.gpus_per_node = 8;
  CHECK(checked(o).empty());
  for (double rate : {0.0, -1.0, std::nan(""), HUGE_VAL})
    CHECK(checked(opts_with([&](PredictOptions& x) { x.input_rate = rate; })) ==
          "--input-rate must be a positive rate");
}

TEST_CASE("run_prediction: the options are checked before the profile is read, the profile before --measured") {
  test::TempDir dir("mg_predict_opts");
  PredictOptions o = opts_links("nvlink4");
  o.profile_path = dir / "missing.json";
  o.gpus = {0};
  CHECK(opts_usage_error([&] { run_prediction(o); }) == "--gpus: device counts must be at least 1, got 0");
  o.gpus = {1, 2};
  CHECK(opts_usage_error([&] { run_prediction(o); }).find("cannot read") != std::string::npos);
  o.profile_path = opts_profile_file(dir, true);
  o.bucket_mb = 0;
  o.measured_path = dir / "missing.json";
  CHECK(opts_usage_error([&] { run_prediction(o); }) == "--bucket-mb must be in (0, 65536]");
  o.bucket_mb.reset();
  CHECK(opts_usage_error([&] { run_prediction(o); }).find("cannot read") != std::string::npos);
  // A prediction is no measured sweep.
  o.measured_path.clear();
  const std::string prediction = dir / "prediction.json";
  write_json_atomic(prediction, to_json(run_prediction(o).result));
  o.measured_path = prediction;
  CHECK(opts_usage_error([&] { run_prediction(o); }) == prediction + ": --measured needs a training result");
  o.measured_path = o.profile_path;
  CHECK(run_prediction(o).measured.has_value());
}

TEST_CASE("run_prediction: predicts from the merged request, keeping the profile's own rate beside --profile-rate") {
  test::TempDir dir("mg_predict_opts");
  PredictOptions o = opts_links("nvlink4");
  o.profile_path = opts_profile_file(dir, true);
  o.gpus = {1, 4};
  o.allreduce = "ring";
  o.profile_rate = 1000;
  const Prediction pr = run_prediction(o);
  CHECK(pr.profile_images_per_sec == Approx(8 / 0.035));
  CHECK(pr.step.images_per_sec == 1000);
  CHECK(pr.request.step.allreduce == AllreduceMode::Ring);
  CHECK(pr.request.step.bucket_mb == 10);  // the profile's
  REQUIRE(pr.result.runs.size() == 2);
  CHECK(pr.result.kind == "prediction");
  CHECK(pr.result.config.allreduce == AllreduceMode::Ring);
  CHECK(pr.result.runs[0].images_per_sec == Approx(1000));
  CHECK(pr.result.runs[1].allreduce.library == "ring");
}

TEST_CASE("run_prediction: --batch-size moves the profile to another batch before --profile-rate sets its rate") {
  test::TempDir dir("mg_predict_opts");
  PredictOptions o = opts_links("nvlink4");
  // Batch 8 in 2 micro-batches at 8 / 0.035 images/s: forward 20 ms, backward 40, optimizer 10 per step.
  o.profile_path = opts_profile_file(dir, true);
  o.gpus = {1, 4};
  o.batch_size = 16;
  Prediction pr = run_prediction(o);
  CHECK(pr.profile_batch_per_device == 8);
  CHECK(pr.step.batch_per_device == 16);
  CHECK(pr.result.config.batch_size == 16);
  CHECK(pr.result.runs[1].global_batch == 16 * 4 * 2);
  CHECK(pr.result.runs[0].images_per_sec == Approx(32 / 0.130));  // 40 + 80 ms, the optimizer's 10 ms kept
  o.profile_rate = 1000;
  pr = run_prediction(o);
  CHECK(pr.result.runs[0].images_per_sec == Approx(1000));
  CHECK(pr.step.optimizer_s == Approx(0.010 * (32 / 1000.0) / 0.130));
  o.batch_size = -3;
  CHECK(opts_usage_error([&] { run_prediction(o); }) == "--batch-size -3 must be between 1 and 65536");
}

TEST_CASE("run_prediction: an older profile's missing cast cost is said only where some entry exchanges gradients") {
  test::TempDir dir("mg_predict_opts");
  PredictOptions o = opts_links("nvlink4");
  o.profile_path = opts_profile_file(dir, false);  // fp16 gradients, no wire_casts
  o.gpus = {1, 2};
  CHECK(run_prediction(o).cast_note.find("the profile has no fp16 wire-cast cost") == 0);
  o.gpus = {1};
  CHECK(run_prediction(o).cast_note.empty());
  o.gpus = {1, 2};
  o.allreduce = "none";
  CHECK(run_prediction(o).cast_note.empty());
  o.allreduce.reset();
  o.allreduce_dtype = "fp32";
  CHECK(run_prediction(o).cast_note.empty());
  o.allreduce_dtype.reset();
  o.profile_path = opts_profile_file(dir, true);
  CHECK(run_prediction(o).cast_note.empty());
}

}  // namespace mg
