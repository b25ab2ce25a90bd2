#pragma once
// The scenario a front end asks for (api/: the layer between the front ends and the library): the
// field texts as the user typed them, in the user's unit, in; a checked montecarlo::Scenario in
// attempt-durations and its TimeUnit out. The CLI (cli/simulate_cmd.cpp) and the Python module
// (python/module.cpp) are thin adapters over it: neither builds a scenario itself.
// Invariants: every field is parsed by the field table (montecarlo/fields.hpp); the rules between
// fields are checked on the scenario in the user's unit first, so an error quotes the values as
// typed ("cap must be >= base (got cap=20, base=100)" in ms), then the scenario in attempt-durations
// is checked again; every InputError names the field by its id and other fields as references
// (api/spelling.hpp), spelled for the front end (Spelling) as it leaves.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "analytic/error.hpp"
#include "api/spelling.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::api {

struct ScenarioRequest {
  // Field name (the table's, '_' not '-') -> the value as typed: "0.5", "none", "lognormal", "on",
  // a text field's text ("0:1,30:2"; the load profile's may be a CSV file's path).
  // model "brooker" asks for the Brooker preset (montecarlo/brooker_preset.hpp).
  std::map<std::string, std::string, std::less<>> fields;
  std::string unit = "attempt";            // attempt | ms | s
  std::optional<double> attempt_duration;  // in `unit`; required with ms and s
  std::optional<std::string> outage;       // START:END[:FRACTION], shorthand for the outage_* fields
  std::optional<double> leg_mean, leg_sd;  // the brooker preset's network legs (ms)
  // Field name -> where a policy file set it ("FILE:LINE: KEY", api/policy.hpp): an error about
  // that field names the file's key, not a flag the user never typed.
  std::map<std::string, std::string, std::less<>> sources;
};

struct ResolvedScenario {
  montecarlo::Scenario scenario;  // in attempt-durations, checked
  montecarlo::TimeUnit unit;
  bool brooker = false;  // built by the Brooker preset (its unit is ms; it takes only some fields)
  // Each text field set (the load profile), by name: its canonical text in `unit`, as typed.
  std::map<std::string, std::string, std::less<>> texts;
};

// Throws InputError naming the field in `how`'s spelling.
ResolvedScenario resolve(const ScenarioRequest& request, Spelling how);

// The scenario field table as data (`retrylab simulate --list-fields json`, retrylab.fields()): per
// field its name, flag, unit, default, allowed range and meaning; with `kinds`, also its choices and
// kind (integer, choice, on_off, number, number_or_none: how Python spells its values).
nlohmann::ordered_json field_list_json(bool kinds = false);

}  // namespace retrylab::api
