// The run description's one field list. Every RunConfig field is described once here: its JSON key, how it is
// written and read back (with validation), how its command-line option binds to it, the roles it plays elsewhere
// and its option's --help text and group, so the JSON writer and reader, the command line, the cross-rank
// fingerprint, compare's keys and --help cannot drift apart: a field is added by its RunConfig member and its row.
// Enum fields use their type's name table (run_config.h, core/dtype.h, core/device.h).
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/run_config.h"

namespace mg {

// `mgbench --help`'s groups of training options, in its order (plain strings: result/ does not depend on CLI11).
inline constexpr char kGroupGeneral[] = "Options";
inline constexpr char kGroupModelData[] = "Model and data";
inline constexpr char kGroupOptimizer[] = "Optimizer";
inline constexpr char kGroupDevices[] = "Devices and communication";
inline constexpr char kGroupMeasurement[] = "Measurement";
inline constexpr char kGroupOutput[] = "Output";

struct ConfigField;

// The command line's side of a field's option, implemented over CLI11 in src/cli (result/ does not depend on it).
// Each call registers the field's option (f.option, f.help, f.group) to set the given member when it is given.
class FieldOptionBinder {
 public:
  virtual ~FieldOptionBinder() = default;
  virtual void value(const ConfigField& f, std::string& v) = 0;
  virtual void value(const ConfigField& f, int& v) = 0;
  virtual void value(const ConfigField& f, int64_t& v) = 0;
  virtual void value(const ConfigField& f, uint64_t& v) = 0;
  virtual void value(const ConfigField& f, float& v) = 0;
  virtual void value(const ConfigField& f, double& v) = 0;
  virtual void value(const ConfigField& f, std::vector<int>& v) = 0;  // a comma list, or the option repeated
  virtual void flag(const ConfigField& f, bool& v, bool when_given) = 0;
  // An enum by its name: `set` parses the text (UsageError naming the option and the names); `current` is shown.
  virtual void name(const ConfigField& f, const std::string& current,
                    std::function<void(const std::string& text, const std::string& option)> set) = 0;
};

struct ConfigField {
  const char* key;  // JSON key in the result's "config" object
  nlohmann::json (*write)(const RunConfig&);
  // Sets the field from its JSON value; throws FieldError naming what is wrong with the value.
  void (*read)(RunConfig&, const nlohmann::json&);
  // Registers the field's option on the command line; nullptr where the command line binds the option itself (its
  // value needs the machine, such as --device auto, or has a spelling the result never records) or none sets it.
  void (*bind)(FieldOptionBinder&, const ConfigField&, RunConfig&);
  const char* option;  // the command-line option (without --) that sets it, for messages; "" when none does
  bool optional;     // added after schema 1 shipped: absent in older files, which keep the default
  bool fingerprint;  // every process of one launched job must agree on it (the communicator's bootstrap checks)
  bool compare_key;  // runs that differ in it are different benchmarks: compare pairs by it (stats/compare.h)
  bool preset;       // defines what a preset measures: compare refuses to pool or pair runs that differ in it
  const char* group;  // the option's --help group (one of the kGroup names); "" when no option sets it
  const char* help;   // the option's --help text; "" when no option sets it
};

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// In `mgbench --help`'s order, groups together (JSON is written sorted by key; fingerprint lines keep this order).
const std::vector<ConfigField>& run_config_fields();

// The field whose option is `option` (without --); nullptr when none is.
const ConfigField* config_field_of_option(const std::string& option);

// Every field as JSON, enums as their command-line spelling, an unset optional as "".
nlohmann::json to_json(const RunConfig& c);
// The inverse. UsageError "<where>: missing field 'k'", "<where>.k: has the wrong type (T)" or
// "<where>.k: V is not one of: a, b" for an unknown enum name.
RunConfig config_from_json(const nlohmann::json& j, const std::string& where);

// "key=value" lines of the fingerprint fields; the trainer adds what it resolves from them (batch per replica).
std::string config_fingerprint(const RunConfig& c);

// "key=value" lines of the compare_key fields: two runs are the same benchmark only if these agree.
std::string compare_identity(const RunConfig& c);

// A field's value as a message shows it: strings bare, everything else as JSON.
std::string field_text(const ConfigField& f, const RunConfig& c);

}  // namespace mg
