// `mgbench predict` on fuzzed files: the profile (read_result_file, step_profile_from) and a link measured by
// `mgbench comm --json` (parse_link on the file), then the prediction over 1-16 devices, one and two nodes.
// The input is the profile, a NUL, then the comm file (without a NUL, the same bytes as both).
#include <cstdio>

#include "fuzz_input.h"
#include "predict/link_model.h"
#include "predict/prediction.h"
#include "result/result_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [profile, comm] = mg::fuzz::split_at_nul(data, size);
  const std::string profile_path = mg::fuzz::input_file(reinterpret_cast<const uint8_t*>(profile.data()),
                                                        profile.size(), "-profile.json");
  const std::string comm_path = mg::fuzz::input_file(reinterpret_cast<const uint8_t*>(comm.data()), comm.size(),
                                                     "-comm.json");
  mg::fuzz::expect_only_mg_errors([&] {
    const mg::RunResult r = mg::read_result_file(profile_path);
    const mg::StepProfile p = mg::step_profile_from(r, profile_path);
    // What cmd_predict.cpp takes from the profile, after the same range checks (check_bucket_mb, check_accum_steps).
    const mg::RunConfig& c = r.config;
    if (!(c.bucket_mb > 0) || c.bucket_mb > 65536 || c.accum_steps < 1 || c.accum_steps > 4096) return;
    mg::PredictRequest req;
    req.gpus = {1, 2, 4, 16};
    req.profile_path = profile_path;
    req.step.bucket_mb = c.bucket_mb;
    req.step.overlap = c.overlap;
    req.step.accum_steps = c.accum_steps;
    req.step.strategy = c.allreduce == mg::AllreduceMode::Ps     ? mg::SyncStrategy::Ps
                        : c.allreduce == mg::AllreduceMode::None ? mg::SyncStrategy::None
                                                                 : mg::SyncStrategy::Ring;
    req.allreduce_dtype = c.allreduce_dtype;
    req.step.wire = req.allreduce_dtype.value_or(mg::DType::F32);
    (void)mg::apply_wire_cast_costs(req.step, p);
    mg::Interconnect one;
    one.intra = mg::parse_link("nvlink4", "--link");
    mg::Interconnect two = one;
    two.intra = mg::parse_link(comm_path, "--link");
    two.inter = two.intra;
    two.gpus_per_node = 8;
    req.interconnects = {one, two};
    const mg::RunResult out = mg::predict(r, p, req);
    (void)mg::to_json(out).dump();
    (void)mg::match_measured(out, r);
  });
  std::remove(profile_path.c_str());
  std::remove(comm_path.c_str());
  return 0;
}
