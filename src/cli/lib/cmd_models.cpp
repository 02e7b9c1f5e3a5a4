// `mgbench models`: the catalogue with the figures people compare networks by (parameters, forward GFLOPs per
// image at the default size), as a table or, with --json, as machine output.
#include <fmt/format.h>

#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/lib/command.h"
#include "models/registry.h"

namespace mg {

namespace {

std::string thousands(int64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

class ModelsCommand : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.add_flag("--json", json_, "print the catalogue as JSON on stdout instead of a table");
  }

  int run() override {
    nlohmann::json rows = nlohmann::json::array();
    for (const std::string& name : model_names()) {
      const ModelInfo info = model_info(name);
      const ModelDesc m = build_model(name);
      rows.push_back({{"name", name},
                      {"aliases", info.aliases},
                      {"parameters", count_params(m, m.default_image_size)},
                      {"gflops_per_image", forward_gflops_per_image(m, m.default_image_size)},
                      {"default_image_size", m.default_image_size},
                      {"min_image_size", m.min_image_size},
                      {"layers", m.layers.size()},
                      {"test_network", info.test_network},
                      {"note", info.note}});
    }
    if (json_) {
      std::cout << nlohmann::json{{"num_classes", 1000}, {"models", rows}}.dump(2) << "\n";
      return 0;
    }
    std::cout << "Networks (parameters with 1000 classes; GFLOPs = 2 x multiply-adds of conv and linear layers, "
                 "forward, per image at the default size)\n\n";
    print_section(rows, false);
    std::cout << "\nTest networks (for mgbench's own tests, not benchmarks):\n\n";
    print_section(rows, true);
    return 0;
  }

 private:
  static void print_section(const nlohmann::json& rows, bool test) {
    const auto row = fmt::runtime("{:<12} {:<14} {:>13} {:>11} {:>5} {:>8}  {}\n");
    std::cout << fmt::format(row, "model", "aliases", "parameters", "GFLOPs/img", "size", "min size", "note");
    for (const auto& r : rows) {
      if (r["test_network"].get<bool>() != test) continue;
      const auto aliases = r["aliases"].get<std::vector<std::string>>();
      std::cout << fmt::format(row, r["name"].get<std::string>(), aliases.empty() ? "-" : join(aliases),
                               thousands(r["parameters"].get<int64_t>()),
                               fmt::format("{:.4g}", r["gflops_per_image"].get<double>()),
                               r["default_image_size"].get<int64_t>(), r["min_image_size"].get<int64_t>(),
                               r["note"].get<std::string>());
    }
  }

  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_models_command() { return std::make_unique<ModelsCommand>(); }

}  // namespace mg
