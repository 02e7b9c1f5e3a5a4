// --config presets: a JSON object whose keys are mgbench's long option names ("batch-size": 64,
// "gpus": [1, 2]). Read through CLI11's config mechanism, so options given on the command line override them
// and an unknown key is an error rather than silently ignored.
#pragma once
#include <CLI/CLI.hpp>

namespace mg {

class JsonConfig : public CLI::Config {
 public:
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;
};

}  // namespace mg
