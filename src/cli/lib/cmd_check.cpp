// `mgbench check`: the correctness check of src/check on the user's device, as a table; exit 1 when any
// comparison is outside its tolerance.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "check/check.h"
#include "cli/lib/command.h"
#include "core/error.h"
#include "models/registry.h"
#include "result/result_json.h"
#include "train/device_plan.h"

namespace mg {

namespace {

class CheckCommand : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.add_option("--device", device_, "cpu | cuda | auto (cuda when a GPU is present; gpu means cuda)");
    sub.add_option("--model", model_,
                   "check this model's own layers; its kinds' generic cases become advisory (default: every kind)");
    sub.add_option("--precision", precisions_,
                   "fp32, tf32, fp16, bf16, comma-separated (default: every precision the device supports)")
        ->delimiter(',');
    sub.add_option("--json", json_path_, "also write the report as JSON to this file");
  }

  int run() override {
    check::CheckRequest req;
    req.device = device_kind_option(device_);
    require_device_present(req.device);
    if (!model_.empty()) build_model(model_, 10);  // an unknown name is a usage error naming the choices
    req.model = model_;
    for (const std::string& p : precisions_) req.precisions.push_back(kPrecisionNames.parse(p, "--precision"));
    const CheckReport rep = check::run_check(req);
    std::fputs(check::format_check_table(rep).c_str(), stdout);
    std::fflush(stdout);
    if (!json_path_.empty()) write_json_atomic(json_path_, to_json(rep));
    return rep.passed() ? 0 : 1;
  }

 private:
  std::string device_, model_, json_path_;
  std::vector<std::string> precisions_;
};

}  // namespace

std::unique_ptr<Command> make_check_command() { return std::make_unique<CheckCommand>(); }

}  // namespace mg
