#include "api/scenario.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>

#include "analytic/error.hpp"
#include "api/profile_csv.hpp"
#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/fields.hpp"

namespace retrylab::api {

using montecarlo::Field;
using montecarlo::FieldUnit;
using montecarlo::Scenario;
using montecarlo::TimeUnit;

namespace {

bool given(const ScenarioRequest& r, std::string_view field) { return r.fields.find(field) != r.fields.end(); }

// The field's value as typed, parsed by the table (in the user's unit).
double parsed(const Field& f, const ScenarioRequest& r, Spelling how) {
  try {
    return montecarlo::parse_field(f, r.fields.find(f.name)->second);
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
}

// A value in the user's unit into attempt-durations (times / D, rates x D).
double to_attempts(const Field& f, double v, const TimeUnit& u) {
  if (f.unit == FieldUnit::time) return v / u.attempt_duration;
  if (f.unit == FieldUnit::per_time) return v * u.attempt_duration;
  return v;
}

// --outage START:END[:FRACTION] into the outage_* fields of both scenarios.
void apply_outage(const ScenarioRequest& r, Spelling how, Scenario& typed, Scenario& sc, const TimeUnit& u) {
  const std::string name = spelled("outage", how);
  for (const char* f : {"outage_start", "outage_end", "outage_fraction"})
    if (given(r, f)) throw InputError(name, fmt::format("cannot be given with {}", spelled(f, how)));
  std::vector<std::string> parts;
  for (std::string_view rest = *r.outage;;) {
    const std::size_t colon = rest.find(':');
    parts.emplace_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (parts.size() < 2 || parts.size() > 3)
    throw InputError(name, fmt::format("must be START:END or START:END:FRACTION (got {})", *r.outage));
  const char* names[] = {"outage_start", "outage_end", "outage_fraction"};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Field& f = *montecarlo::find_field(names[i]);
    double v = 0.0;
    try {
      v = montecarlo::parse_field(f, parts[i]);
    } catch (const InputError& e) {
      throw InputError(name, fmt::format("{}: {}", f.name, std::string(e.what()).substr(e.field().size() + 1)));
    }
    f.set(typed, v);
    f.set(sc, to_attempts(f, v, u));
  }
}

// A text field as typed (its own parser): the load profile's value may also be a CSV file's path,
// which the front end reads (api/profile_csv.hpp) into the profile's inline form.
void apply_text(const Field& f, const std::string& value, Spelling how, Scenario& typed) {
  try {
    if (f.name == "load_profile" && names_profile_file(value))
      typed.traffic.load_profile = read_profile_csv(value);
    else
      montecarlo::set_field_text(f, typed, value);
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
}

// The load profile completed as typed: a sine given without its mean takes rate's, which it then
// replaces (so rate is 0 in both scenarios).
void complete_load_profile(const ScenarioRequest& r, Spelling how, Scenario& typed, Scenario& sc) {
  montecarlo::LoadProfile& p = typed.traffic.load_profile;
  try {
    if (p.needs_mean()) {
      if (!given(r, "rate"))
        throw InputError(
            "load_profile",
            fmt::format("sine:period:amplitude needs {} (its mean rate), or give sine:period:amplitude:mean",
                        spelled("rate", how)));
      p = p.with_mean(typed.traffic.rate);
      typed.traffic.rate = 0.0;
      sc.traffic.rate = 0.0;
    }
    p.check();
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
}

// The controls that keep time need the length of an attempt-duration in ms: from the unit, or from
// attempt_ms. Both at once must agree (an attempt_ms that says otherwise would be silently overruled
// by one or the other).
void apply_clock(const ScenarioRequest& r, Spelling how, Scenario& typed, Scenario& sc, const TimeUnit& u) {
  const double unit_ms = u.ms();
  const double given_ms = sc.client.attempt_ms;
  const bool disagree = std::abs(given_ms - unit_ms) > 1e-12 * std::max(given_ms, unit_ms);
  if (given(r, "attempt_ms") && !u.plain() && disagree)
    throw InputError(
        spelled("attempt_ms", how),
        fmt::format("must agree with {} {} {} {}, which make an attempt-duration {} ms (got {})", spelled("unit", how),
                    u.name, spelled("attempt_duration", how), u.attempt_duration, unit_ms, given_ms));
  if (montecarlo::needs_clock(sc.client) && !given(r, "attempt_ms") && !u.plain()) {
    sc.client.attempt_ms = unit_ms;
    typed.client.attempt_ms = unit_ms;
  }
}

// check_scenario on the scenario the engine runs; when it fails, the same rule on the values as
// typed (in the user's unit) gives the message, so it quotes them; a rule that holds as typed but
// not in attempt-durations (none is known) reports in attempt-durations.
void check(const Scenario& typed, const Scenario& sc, Spelling how) {
  try {
    montecarlo::check_scenario(sc);
  } catch (const InputError& e) {
    try {
      montecarlo::check_scenario(typed);
    } catch (const InputError& as_typed) {
      if (as_typed.field() == e.field()) rethrow_spelled(as_typed, how);
    }
    rethrow_spelled(e, how);
  }
}

// Brooker's test in his own terms: strategy (required), base (his: the first window is 2·base),
// cap, window, clients, the legs; every time in ms. Any other field is refused.
bool brooker_takes(std::string_view field) {
  return field == "model" || field == "strategy" || field == "base" || field == "cap" || field == "window" ||
         field == "clients";
}

ResolvedScenario brooker(const ScenarioRequest& r, Spelling how) {
  std::vector<std::string> foreign;
  for (const auto& [name, text] : r.fields)
    if (!brooker_takes(name)) foreign.push_back(spelled(name, how));
  if (r.unit != "attempt") foreign.push_back(spelled("unit", how));
  if (r.attempt_duration) foreign.push_back(spelled("attempt_duration", how));
  if (r.outage) foreign.push_back(spelled("outage", how));
  if (!foreign.empty())
    throw InputError(foreign.front(),
                     "does not apply to `model=brooker` (it takes `strategy`, `base`, `cap`, `window`, `clients`, "
                     "`leg_mean`, `leg_sd`; to change more, give the engine fields its table prints)");
  if (!given(r, "strategy")) throw InputError(spelled("strategy", how), "is required with `model=brooker`");
  const montecarlo::BrookerTest defaults;
  const double leg_mean = r.leg_mean.value_or(defaults.leg_mean), leg_sd = r.leg_sd.value_or(defaults.leg_sd);
  if (!(leg_mean > 0.0) || !std::isfinite(leg_mean))
    throw InputError(spelled("leg_mean", how),
                     fmt::format("must be > 0 ms: the round trip is made of legs (got {})", leg_mean));
  if (!(leg_sd >= 0.0) || !std::isfinite(leg_sd))
    throw InputError(spelled("leg_sd", how), fmt::format("must be >= 0 ms (got {})", leg_sd));
  // The same parsing as the engine's fields, Brooker's defaults where a field is not given, and
  // check_backoff's rules in his terms before the engine's base is derived.
  Scenario parsed_sc;
  parsed_sc.backoff = {Strategy::full, defaults.base, defaults.cap, 0.0};
  parsed_sc.traffic.clients = defaults.clients;
  for (const Field& f : montecarlo::scenario_fields())
    if (f.name != "model" && brooker_takes(f.name) && given(r, f.name)) f.set(parsed_sc, parsed(f, r, how));
  try {
    check_backoff(parsed_sc.backoff);
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
  montecarlo::BrookerTest t;
  t.strategy = parsed_sc.backoff.strategy;
  t.base = parsed_sc.backoff.base;
  t.cap = parsed_sc.backoff.cap;
  t.window = parsed_sc.backoff.window;
  t.clients = parsed_sc.traffic.clients;
  t.leg_mean = leg_mean;
  t.leg_sd = leg_sd;
  ResolvedScenario out;
  out.unit = montecarlo::time_unit("ms", 1.0, true);
  out.brooker = true;
  try {
    out.scenario = montecarlo::brooker_scenario(t);
  } catch (const InputError& e) {
    const std::string f = e.field();
    throw InputError(spelled(f == "delay"      ? "leg_mean"
                             : f == "delay_sd" ? "leg_sd"
                                               : f,
                             how),
                     std::string(e.what()).substr(f.size() + 1));
  }
  return out;
}

}  // namespace

namespace {
ResolvedScenario resolve_fields(const ScenarioRequest& r, Spelling how);
}  // namespace

ResolvedScenario resolve(const ScenarioRequest& r, Spelling how) {
  try {
    return resolve_fields(r, how);
  } catch (const InputError& e) {
    // A field a policy file set: the error names the file, its line and key.
    std::string name = e.field();
    if (name.rfind("--", 0) == 0) {
      name.erase(0, 2);
      std::replace(name.begin(), name.end(), '-', '_');
    }
    const auto it = r.sources.find(name);
    if (it == r.sources.end()) throw;
    throw InputError(spelled("policy", how),
                     fmt::format("{} {}", it->second, std::string(e.what()).substr(e.field().size() + 1)));
  }
}

namespace {

ResolvedScenario resolve_fields(const ScenarioRequest& r, Spelling how) {
  for (const auto& [name, text] : r.fields)
    if (montecarlo::find_field(name) == nullptr)
      throw InputError(spelled(name, how), "is not a scenario field (the field table lists them)");
  if (!given(r, "model"))
    throw InputError(spelled("model", how),
                     "is required: collision, free, shared, ps or none (or the preset brooker); `list_fields` "
                     "lists every field");
  const bool is_brooker = r.fields.find("model")->second == "brooker";
  if (!is_brooker)
    for (const auto& [name, value] : {std::pair{"leg_mean", r.leg_mean}, std::pair{"leg_sd", r.leg_sd}})
      if (value)
        throw InputError(spelled(name, how), fmt::format("applies only to {} (got {})", ref("model", "brooker"),
                                                         ref("model", r.fields.find("model")->second)));
  if (is_brooker) return brooker(r, how);

  ResolvedScenario out;
  try {
    out.unit = montecarlo::time_unit(r.unit, r.attempt_duration.value_or(0.0), r.attempt_duration.has_value());
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
  // Two scenarios: as typed (in the user's unit, for messages) and in attempt-durations (the one
  // the engine runs, and the canonical string and RNG key read).
  Scenario typed, sc;
  for (const Field& f : montecarlo::scenario_fields()) {
    if (!given(r, f.name) || f.kind == montecarlo::FieldKind::text) continue;
    const double v = parsed(f, r, how);
    f.set(typed, v);
    f.set(sc, to_attempts(f, v, out.unit));
  }
  if (r.outage) apply_outage(r, how, typed, sc, out.unit);
  // The text fields, each by its own parser; in the engine's scenario as typed, then in
  // attempt-durations (times / D, rates x D).
  for (const Field& f : montecarlo::scenario_fields())
    if (given(r, f.name) && f.kind == montecarlo::FieldKind::text)
      apply_text(f, r.fields.find(f.name)->second, how, typed);
  complete_load_profile(r, how, typed, sc);
  for (const Field& f : montecarlo::scenario_fields()) {
    if (f.kind != montecarlo::FieldKind::text || !f.text.is_set(typed)) continue;
    std::string text = f.text.get(typed);
    f.text.set(sc, text);
    if (f.text.scale) f.text.scale(sc, out.unit.attempt_duration);
    out.texts.emplace(std::string(f.name), std::move(text));
  }
  apply_clock(r, how, typed, sc, out.unit);
  if (sc.client.retries && !given(r, "strategy"))
    throw InputError(spelled("strategy", how),
                     "is required with retries on (one of none, nojitter, full, equal, decorrelated, window, "
                     "memoryless); with retries off it may be left out");
  check(typed, sc, how);
  out.scenario = sc;
  return out;
}

}  // namespace

nlohmann::ordered_json field_list_json(bool kinds) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const Field& f : montecarlo::scenario_fields()) {
    nlohmann::ordered_json row = {{"name", f.name},
                                  {"flag", montecarlo::flag_of(f)},
                                  {"unit", montecarlo::unit_text(f)},
                                  {"default", montecarlo::default_text(f)},
                                  {"allowed", montecarlo::range_text(f)},
                                  {"meaning", f.meaning}};
    if (kinds) {
      row["choices"] = nlohmann::ordered_json::array();
      for (auto c : f.choices) row["choices"].push_back(std::string(c));
      using K = montecarlo::FieldKind;
      row["kind"] = f.kind == K::integer  ? "integer"
                    : f.kind == K::choice ? "choice"
                    : f.kind == K::on_off ? "on_off"
                    : f.kind == K::number ? "number"
                    : f.kind == K::text   ? "text"
                                          : "number_or_none";
    }
    j.push_back(std::move(row));
  }
  return j;
}

}  // namespace retrylab::api
