#include "check/check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "check/adamw_check.h"
#include "check/layer_check.h"
#include "check/model_cases.h"
#include "check/system_check.h"
#include "check/xent_check.h"
#include "core/error.h"
#include "models/registry.h"

namespace mg::check {

namespace {

std::string describe(Backend& be) {
  return std::string(device_kind_name(be.kind())) + ":" + std::to_string(be.info().ordinal) + " (" + be.info().name +
         ")";
}

}  // namespace

CheckReport run_check(const CheckRequest& req) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckReport rep;
  rep.ran = true;
  BackendOptions opt;
  // One thread per CPU "stream", so copy and compute of the staging check can run side by side.
  if (req.device == DeviceKind::Cpu) opt.threads = 1;
  std::unique_ptr<Backend> dut = make_backend(req.device, req.ordinal, opt);
  std::unique_ptr<Backend> cpu_ref;
  if (req.device == DeviceKind::Cuda) cpu_ref = make_backend(DeviceKind::Cpu, 0, BackendOptions{});
  rep.device = describe(*dut);
  rep.reference = cpu_ref ? "CPU backend at fp32" : "naive fp64 reference";

  std::vector<Precision> precisions = req.precisions;
  if (precisions.empty()) {
    for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16})
      if (dut->supports(p)) precisions.push_back(p);
  }
  for (Precision p : precisions) require_precision(*dut, p);
  // A model's check binds on its own layers' shapes; the per-kind generic cases run beside them as advisory rows.
  std::vector<LayerCase> cases, advisory;
  if (req.model.empty()) {
    cases = all_layer_cases();
  } else {
    const ModelDesc m = build_model(req.model, 10);
    cases = model_layer_cases(m, *dut);
    advisory = kind_cases_for(m);
  }
  auto run_cases = [&](const std::vector<LayerCase>& list, bool is_advisory) {
    for (Precision p : precisions)
      for (const LayerCase& c : list) {
        // A fusion the device does not offer is one the network never builds there.
        if (c.relu && !dut->fuses_relu(c.desc.kind)) continue;
        rep.rows.push_back(check_layer(*dut, cpu_ref.get(), c, p));
        rep.rows.back().advisory = is_advisory;
      }
  };
  run_cases(cases, false);
  run_cases(advisory, true);
  // Training on the CPU may run a convolution as Winograd where timing at set-up finds it faster; the cases
  // above ran whichever won on their small shapes, so the fp32 3x3 stride-1 ones run again pinned to it (where
  // oneDNN has it on this CPU).
  if (req.device == DeviceKind::Cpu && cpu_has_winograd() &&
      std::count(precisions.begin(), precisions.end(), Precision::FP32)) {
    BackendOptions wopt = opt;
    wopt.cpu_conv_algo = CpuConvAlgo::Winograd;
    std::unique_ptr<Backend> wino = make_backend(req.device, req.ordinal, wopt);
    for (const auto* list : {&cases, &advisory})
      for (const LayerCase& c : *list)
        if (winograd_case(c)) {
          rep.rows.push_back(check_layer(*wino, nullptr, c, Precision::FP32));
          rep.rows.back().name += " winograd";
          rep.rows.back().advisory = list == &advisory;
        }
  }
  // Every model's loss, at the precision it trains in; AdamW's master weights are fp32 at every precision.
  for (Precision p : precisions) rep.rows.push_back(check_softmax_xent(*dut, p));
  if (req.adamw) rep.rows.push_back(check_adamw(*dut));
  if (req.training)
    for (Precision p : precisions) rep.rows.push_back(check_training(*dut, p));
  if (req.staging) rep.rows.push_back(check_staging_overlap(*dut));
  if (req.collectives) {
    const int devices = req.device == DeviceKind::Cuda ? cuda_device_count() : 2;
    dut.reset();  // the collective check creates its own backend for every device
    for (CheckRow& r : check_collectives(req.device, devices)) rep.rows.push_back(std::move(r));
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

CheckReport model_check(DeviceKind device, int ordinal, const std::string& model, Precision precision,
                        bool adamw) {
  // A device that is absent or cannot run the precision is the trainer's usage error to report, in its words.
  if (device == DeviceKind::Cuda && ordinal >= cuda_device_count()) return CheckReport{};
  {
    BackendOptions opt;
    opt.threads = 1;
    if (!make_backend(device, ordinal, opt)->supports(precision)) return CheckReport{};
  }
  CheckRequest req;
  req.device = device;
  req.ordinal = ordinal;
  req.model = model;
  req.precisions = {precision};
  req.collectives = false;
  req.staging = false;
  req.adamw = adamw;
  return run_check(req);
}

std::string format_check_table(const CheckReport& r) {
  std::string out = fmt::format("device: {}   reference: {}\n", r.device, r.reference);
  out += fmt::format("{:<12} {:<58} {:<9} {:>11} {:>11}  {:<6} {}\n", "check", "case", "precision", "error",
                     "tolerance", "result", "detail");
  int failed = 0, advisory_failed = 0;
  for (const CheckRow& row : r.rows) {
    const std::string err = row.metric == "wrong" && std::isfinite(row.error)
                                ? fmt::format("{:.0f} wrong", row.error)
                                : fmt::format("{:.3g}", row.error);
    const std::string tol = row.metric == "overlap" ? fmt::format(">= {:.3g}", row.tolerance)
                                                    : fmt::format("{:.3g}", row.tolerance);
    // An advisory failure is shown as "warn": not the model's shape, so it does not fail the run.
    const char* result = row.passed ? "pass" : row.advisory ? "warn" : "FAIL";
    out += fmt::format("{:<12} {:<58} {:<9} {:>11} {:>11}  {:<6} {}\n", row.advisory ? "layer-kind" : row.group,
                       row.name, row.precision.empty() ? "-" : row.precision, err, tol, result, row.detail);
    (row.advisory ? advisory_failed : failed) += row.passed ? 0 : 1;
  }
  const size_t binding = r.rows.size() - static_cast<size_t>(std::count_if(
                                             r.rows.begin(), r.rows.end(), [](const CheckRow& x) { return x.advisory; }));
  out += fmt::format("{} of {} checks passed in {:.1f} s{}\n", binding - failed, binding, r.seconds,
                     failed ? "" : " (all)");
  if (binding != r.rows.size())
    out += fmt::format("{} of {} advisory layer-kind rows (generic shapes, not the model's) passed{}\n",
                       r.rows.size() - binding - advisory_failed, r.rows.size() - binding,
                       advisory_failed ? "; a failure there does not stop the run" : "");
  return out;
}

}  // namespace mg::check
