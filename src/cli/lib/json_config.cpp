#include "cli/lib/json_config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mg {

namespace {

std::string scalar(const nlohmann::json& v, const std::string& key) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  throw UsageError(
      fmt::format("--config: value of \"{}\" must be a string, number, boolean or a list of those", key));
}

}  // namespace

std::string JsonConfig::to_config(const CLI::App* app, bool default_also, bool, std::string) const {
  nlohmann::json j = nlohmann::json::object();
  for (const CLI::Option* opt : app->get_options({})) {
    if (opt->get_lnames().empty() || opt->get_lnames()[0] == "config" || opt->get_lnames()[0] == "help") continue;
    const std::string name = opt->get_lnames()[0];
    if (opt->count() > 0) {
      auto res = opt->results();
      if (res.size() == 1) j[name] = res[0]; else j[name] = res;
    } else if (default_also && !opt->get_default_str().empty()) {
      j[name] = opt->get_default_str();
    }
  }
  return j.dump(2) + "\n";
}

std::vector<CLI::ConfigItem> JsonConfig::from_config(std::istream& input) const {
  nlohmann::json j;
  try {
    input >> j;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("--config: not valid JSON: {}", e.what()));
  }
  if (!j.is_object()) throw UsageError("--config: the preset must be a JSON object of option names to values");
  std::vector<CLI::ConfigItem> items;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key().rfind("//", 0) == 0 || it.key() == "description") continue;  // comments in presets
    CLI::ConfigItem item;
    item.name = it.key();
    if (it->is_array()) {
      for (const auto& v : *it) item.inputs.push_back(scalar(v, it.key()));
    } else {
      item.inputs.push_back(scalar(*it, it.key()));
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace mg
