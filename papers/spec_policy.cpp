#include "papers/spec_policy.hpp"

#include <fmt/format.h>
#include <cmath>
#include <filesystem>

#include "montecarlo/fields.hpp"
#include "papers/spec.hpp"
#include "policy/policy.hpp"

namespace retrylab::papers {

namespace {

// Milliseconds per unit (0: attempt-durations of unknown length).
double ms_per(const std::string& unit, const std::string& sweep_unit, double attempt_duration) {
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1000.0;
  if (sweep_unit == "ms") return attempt_duration;
  if (sweep_unit == "s") return 1000.0 * attempt_duration;
  return 0.0;
}

}  // namespace

policy::Policy sweep_policy_file(const std::string& spec_file, const std::string& key, std::int64_t line,
                                 const std::string& file, const std::string& select) {
  const std::filesystem::path path = std::filesystem::path(spec_file).parent_path() / file;
  try {
    return policy::load(path.string(), select);
  } catch (const InputError& e) {
    throw SpecError(key, std::string(e.what()).substr(e.field().size() + 1), spec_file, line);
  }
}

std::vector<PolicyValue> sweep_policy(const policy::Policy& p, const std::string& spec_file, const std::string& key,
                                      std::int64_t line, const std::string& unit, double attempt_duration) {
  const std::string sweep_unit = unit.empty() ? "attempt" : unit;
  std::vector<PolicyValue> out;
  for (const policy::Entry& e : p.entries) {
    const montecarlo::Field* f = montecarlo::find_field(e.field);
    const auto refuse = [&](const std::string& why) {
      throw SpecError(key, fmt::format("{}:{}: {} {}", p.path, e.line, e.source, why), spec_file, line);
    };
    if (f == nullptr || (f->group != montecarlo::FieldGroup::backoff && f->group != montecarlo::FieldGroup::client))
      refuse(fmt::format("names {}, which is not a client-policy field", e.field));
    double v = 0.0;
    try {
      v = montecarlo::parse_field(*f, e.value);
    } catch (const InputError& err) {
      refuse(err.what());
    }
    if (f->unit == montecarlo::FieldUnit::time && !e.unit.empty() && e.unit != sweep_unit && std::isfinite(v)) {
      const double from = ms_per(e.unit, sweep_unit, attempt_duration),
                   to = ms_per(sweep_unit, sweep_unit, attempt_duration);
      if (from == 0.0 || to == 0.0)
        refuse(fmt::format("gives {} in {}: the sweep needs unit = \"ms\" or \"s\" and attempt_duration", e.field,
                           e.unit));
      v = v * from / to;
    }
    out.push_back({e.field, v});
  }
  return out;
}

}  // namespace retrylab::papers
