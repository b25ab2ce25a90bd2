#include "papers/spec_policy.hpp"

#include <fmt/format.h>
#include <algorithm>
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

bool inside_folder(const std::string& name) {
  const std::filesystem::path p(name);
  if (name.empty() || p.is_absolute() || p.has_root_name() || p.has_root_directory()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f' || c == '\\') return false;
  return true;
}

std::string spec_relative_file(const std::string& spec_file, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(spec_file).parent_path();
  const fs::path path = folder / name;
  std::error_code ec;
  const fs::path real_folder = fs::weakly_canonical(folder.empty() ? fs::path(".") : folder, ec);
  if (ec) return {};
  const fs::path real = fs::weakly_canonical(path, ec);
  if (ec) return {};
  const auto [f, r] = std::mismatch(real_folder.begin(), real_folder.end(), real.begin(), real.end());
  return f == real_folder.end() ? path.string() : std::string();
}

policy::Policy sweep_policy_file(const std::string& spec_file, const std::string& key, std::int64_t line,
                                 const std::string& file, const std::string& select) {
  if (!inside_folder(file))
    throw SpecError(key, "must name a file inside the spec's folder: relative, without '..'", spec_file, line);
  const std::string path = spec_relative_file(spec_file, file);
  if (path.empty())
    throw SpecError(key, "must name a file inside the spec's folder (its link leads out of it)", spec_file, line);
  try {
    return policy::load(path, select);
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
