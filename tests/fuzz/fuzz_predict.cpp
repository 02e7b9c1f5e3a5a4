// `mgbench predict` on fuzzed files: the profile (read_result_file, step_profile_from) and a link measured by
// `mgbench comm --json` (parse_link on the file), then the prediction over 1-16 devices, one and two nodes.
// The input is the profile, a NUL, then the comm file (without a NUL, the same bytes as both).
#include <cstdio>

#include "fuzz_input.h"
#include "predict/link_model.h"
#include "predict/predict_options.h"
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
    // The profile's settings as `mgbench predict` takes them (their range checks included), on one node of
    // nvlink4; then the comm file as both links of 8-GPU nodes.
    mg::PredictOptions o;
    o.profile_path = profile_path;
    o.gpus = {1, 2, 4, 16};
    o.links = "nvlink4";
    mg::PredictRequest req = mg::merge_predict_options(o, r, p);
    mg::Interconnect two;
    two.intra = mg::parse_link(comm_path, "--link");
    two.inter = two.intra;
    two.gpus_per_node = 8;
    req.interconnects.push_back(two);
    const mg::RunResult out = mg::predict(r, p, req);
    (void)mg::to_json(out).dump();
    (void)mg::match_measured(out, r);
  });
  std::remove(profile_path.c_str());
  std::remove(comm_path.c_str());
  return 0;
}
