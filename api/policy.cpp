#include "api/policy.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/fields.hpp"

namespace retrylab::api {

namespace {

[[noreturn]] void fail(const policy::Policy& p, int line, const std::string& key, const std::string& message,
                       Spelling how) {
  throw InputError(
      spelled("policy", how),
      fmt::format("{}{}: {} {}", p.path, line > 0 ? fmt::format(":{}", line) : std::string(), key, message));
}

// Milliseconds per unit of `unit`, for a request whose attempt-duration is D in its own unit
// (0 when unknown: only attempt-durations to attempt-durations is then possible).
double ms_per(const std::string& unit, const ScenarioRequest& r) {
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1000.0;
  if (!r.attempt_duration) return 0.0;
  return *r.attempt_duration * (r.unit == "s" ? 1000.0 : r.unit == "ms" ? 1.0 : 0.0);
}

// The entry's value in the request's unit (times only).
std::string in_request_unit(const policy::Policy& p, const policy::Entry& e, const montecarlo::Field& f,
                            const ScenarioRequest& r, Spelling how) {
  if (f.unit != montecarlo::FieldUnit::time || e.unit.empty() || e.unit == r.unit || e.value == "none") return e.value;
  const double from = ms_per(e.unit, r), to = ms_per(r.unit, r);
  if (from == 0.0 || to == 0.0)
    fail(p, e.line, e.source,
         fmt::format("gives {} in {}: give {} ms or s with {} so it can be stated in attempt-durations", e.field,
                     e.unit == "attempt" ? "attempt-durations" : e.unit, spelled("unit", how),
                     spelled("attempt_duration", how)),
         how);
  const double v = montecarlo::parse_field(f, e.value);
  return fmt::format("{}", v * from / to);
}

}  // namespace

const montecarlo::Field& policy_field(const policy::Policy& p, const policy::Entry& e, Spelling how) {
  const montecarlo::Field* f = montecarlo::find_field(e.field);
  if (f == nullptr) fail(p, e.line, e.source, fmt::format("names {}, which is not a scenario field", e.field), how);
  if (f->group != montecarlo::FieldGroup::backoff && f->group != montecarlo::FieldGroup::client)
    fail(p, e.line, e.source,
         fmt::format("names {}, which is not a client-policy field (the backoff and client groups of "
                     "docs/scenario-fields.md)",
                     e.field),
         how);
  // retrylab's TOML puts each field under its group's table: a field in the other table is refused,
  // never read as if it were in its own.
  if (p.format == policy::Format::toml && e.line > 0) {
    const std::string table = e.source.substr(0, e.source.find('.'));
    const std::string group = f->group == montecarlo::FieldGroup::backoff ? "backoff" : "client";
    if (table != group)
      fail(p, e.line, e.source, fmt::format("is a field of [{}], not of [{}] (docs/policies.md)", group, table), how);
  }
  try {
    montecarlo::parse_field(*f, e.value);
  } catch (const InputError& err) {
    fail(p, e.line, e.source, std::string(err.what()), how);
  }
  return *f;
}

std::vector<std::string> apply_policy(ScenarioRequest& r, const policy::Policy& p, Spelling how, bool strict) {
  std::vector<std::string> warnings;
  for (const policy::Note& n : p.notes) {
    if (strict && n.effect)
      throw InputError(spelled("policy", how),
                       fmt::format("{} (refused by {})", policy::note_line(p, n), spelled("strict", how)));
    warnings.push_back(policy::note_line(p, n));
  }
  std::map<std::string, std::string, std::less<>> from_file, where;
  for (const policy::Entry& e : p.entries) {
    const montecarlo::Field& f = policy_field(p, e, how);
    from_file[e.field] = in_request_unit(p, e, f, r, how);
    where[e.field] = e.line > 0 ? fmt::format("{}:{}: {}", p.path, e.line, e.source)
                                : fmt::format("{}: {} ({})", p.path, e.field, e.source);
  }
  // A budget or breaker given explicitly replaces the policy's whole control: its numbers and scope
  // go with it (they would not apply to another preset).
  const auto replaced = [&](const std::string& field) {
    const auto other = [&](const char* control) {
      auto f = from_file.find(control);
      auto e = r.fields.find(control);
      return f != from_file.end() && e != r.fields.end() && f->second != e->second;
    };
    if (field.rfind("bucket_", 0) == 0 || field == "budget_scope") return other("budget");
    if (field.rfind("breaker_", 0) == 0) return other("breaker");
    return false;
  };
  for (auto& [field, text] : from_file) {
    auto it = r.fields.find(field);
    if (it == r.fields.end()) {
      if (!replaced(field)) {
        r.fields[field] = text;
        r.sources[field] = where[field];
      }
    } else if (it->second != text) {
      const bool control = field == "budget" || field == "breaker";
      warnings.push_back(fmt::format("{}: {} {} overrides the policy's {}{}", p.path, spelled(field, how), it->second,
                                     text, control ? fmt::format(" (and its {} settings with it)", field) : ""));
    }
  }
  return warnings;
}

policy::Policy load_policy(const std::string& path, const std::string& select, Spelling how) {
  try {
    return policy::load(path, select);
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
}

}  // namespace retrylab::api
