#include "papers/spec_series.hpp"

#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analytic/input_file.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/profile_csv.hpp"
#include "montecarlo/series.hpp"
#include "papers/spec_policy.hpp"

namespace retrylab::papers {

namespace {

std::int64_t line_of(const toml::node& n) { return static_cast<std::int64_t>(n.source().begin.line); }

// A value as an error message shows it: a string quoted, on one line, at most 80 bytes.
std::string node_text(const toml::node& n) {
  if (auto s = n.as_string()) {
    std::string o;
    for (char c : s->get().substr(0, 80)) o += static_cast<unsigned char>(c) < 0x20 || c == '\x7f' ? ' ' : c;
    return "\"" + o + (s->get().size() > 80 ? "...\"" : "\"");
  }
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  std::ostringstream os;
  n.visit([&os](const auto& v) { os << v; });
  return os.str();
}

[[noreturn]] void series_fail(const std::string& file, const std::string& key, const toml::node& n,
                              const std::string& rule) {
  throw SpecError(key, fmt::format("{} (got {})", rule, node_text(n)), file, line_of(n));
}

std::optional<double> number_of(const toml::node& n) {
  if (auto i = n.as_integer()) return static_cast<double>(i->get());
  if (auto f = n.as_floating_point()) return f->get();
  return std::nullopt;
}

double positive(const std::string& file, const std::string& key, const toml::node& n) {
  const auto x = number_of(n);
  if (!x || !(*x > 0.0) || !std::isfinite(*x))
    series_fail(file, key, n, "must be a finite number > 0 (in the sweep's unit)");
  return *x;
}

void apply_policies(const std::string& file, const std::string& key, const toml::node& n, SeriesDraft& d) {
  const auto* arr = n.as_array();
  if (arr == nullptr || arr->empty() || !arr->is_array_of_tables())
    series_fail(file, key, n, "must be one or more [[policies]] tables (name, then scenario fields)");
  // Bounded at read time: every policy runs every point and is a curve of the figure (300 ran in
  // full, then the figure failed).
  if (arr->size() > static_cast<std::size_t>(max_series_policies))
    series_fail(
        file, key, n,
        fmt::format("must be at most {} tables (got {}): one curve each in a figure, each in its own colour and "
                    "dash type",
                    max_series_policies, arr->size()));
  d.policies.clear();
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::table& t = *arr->get(i)->as_table();
    SeriesPolicyDraft p;
    p.key = fmt::format("{}[{}]", key, i);
    p.line = line_of(t);
    for (const auto& [k, v] : t) {
      const std::string fkey = p.key + "." + std::string(k.str());
      if (k.str() == "name") {
        const auto s = v.as_string();
        if (!s || s->get().empty() || s->get().size() > 200)
          series_fail(file, fkey, v, "must be a string of 1 to 200 bytes (the policy's name in tables and figures)");
        p.name = s->get();
      } else if (montecarlo::find_field(k.str()) != nullptr) {
        if (v.is_array() || v.is_table()) series_fail(file, fkey, v, "must be one value (a policy is one scenario)");
        p.fields.emplace_back(std::string(k.str()), &v);
      } else {
        series_fail(file, fkey, v, "is not a key of a policy (name, or a scenario field)");
      }
    }
    if (p.name.empty()) throw SpecError(p.key + ".name", "is required (a string)", file, p.line);
    for (const auto& q : d.policies)
      if (q.name == p.name)
        throw SpecError(p.key + ".name",
                        fmt::format("must differ from every other policy's (got \"{}\" twice)", p.name), file, p.line);
    d.policies.push_back(std::move(p));
  }
}

}  // namespace

bool apply_series_key(const std::string& file, const std::string& key, std::string_view name, const toml::node& n,
                      SweepKind kind, bool is_scale, SeriesDraft& d) {
  if (name == "load_profile" && kind != SweepKind::sleep && kind != SweepKind::amplification) {
    const auto s = n.as_string();
    if (!s || s->get().empty())
      series_fail(
          file, key, n,
          "must be a load profile: t:rate,... step:t:rate,... sine:period:amplitude[:mean] or a CSV file in the "
          "spec's folder");
    d.load_profile = s->get();
    d.profile_line = line_of(n);
    return true;
  }
  if (kind != SweepKind::series) return false;
  if (name == "policies") {
    if (is_scale) series_fail(file, key, n, "cannot change with the scale");
    apply_policies(file, key, n, d);
  } else if (name == "bin") {
    d.bin = positive(file, key, n);
    d.bin_line = line_of(n);
  } else if (name == "recover_over") {
    d.recover_over = positive(file, key, n);
  } else if (name == "recover_within") {
    const auto x = number_of(n);
    if (!x || !(*x > 0.0) || !(*x < 1.0)) series_fail(file, key, n, "must be a fraction in (0, 1)");
    d.recover_within = *x;
  } else if (name == "event") {
    const auto* arr = n.as_array();
    const auto a = arr && arr->size() == 2 ? number_of(*arr->get(0)) : std::nullopt;
    const auto b = arr && arr->size() == 2 ? number_of(*arr->get(1)) : std::nullopt;
    if (!a || !b || !(*a >= 0.0) || !(*b > *a) || !std::isfinite(*b))
      series_fail(file, key, n, "must be [start, end], finite times with 0 <= start < end (in the sweep's unit)");
    d.event = std::make_pair(*a, *b);
    d.event_line = line_of(n);
  } else {
    return false;
  }
  return true;
}

void resolve_load_profile(const std::string& file, const std::string& sweep, double attempt_duration, SeriesDraft& d) {
  if (d.load_profile.empty()) return;
  const std::string key = "sweep." + sweep + ".load_profile";
  try {
    montecarlo::LoadProfile p;
    const std::string& text = d.load_profile;
    const bool is_file = text.find(':') == std::string::npos || (text.size() >= 4 && text.ends_with(".csv"));
    if (is_file) {
      if (!inside_folder(text))
        throw SpecError(
            key, fmt::format("must name a file inside the spec's folder: relative, without '..' (got \"{}\")", text),
            file, d.profile_line);
      const std::string path = spec_relative_file(file, text);
      if (path.empty())
        throw SpecError(key, "must name a file inside the spec's folder (its link leads out of it)", file,
                        d.profile_line);
      // As --load-profile reads it: a regular file of at most max_profile_bytes, never a FIFO or device.
      const InputFile f = read_input_file(path, montecarlo::max_profile_bytes);
      if (!f.refusal.empty())
        throw SpecError(key,
                        fmt::format("file {} {} (a CSV file of time,rate rows, at most {} MiB)", path, f.refusal,
                                    montecarlo::max_profile_bytes >> 20),
                        file, d.profile_line);
      p = montecarlo::parse_profile_csv(f.text, path);
    } else {
      p = montecarlo::LoadProfile::parse(text);
    }
    if (!p.needs_mean()) p.check();
    d.profile = p.scaled(attempt_duration > 0.0 ? attempt_duration : 1.0);
  } catch (const SpecError&) {
    throw;
  } catch (const InputError& e) {
    throw SpecError(key, std::string(e.what()).substr(e.field().size() + 1), file, d.profile_line);
  }
}

void set_load_profile(montecarlo::Scenario& s, const montecarlo::LoadProfile& p) {
  if (!p.set()) return;
  if (!p.needs_mean() && s.traffic.rate > 0.0)
    throw InputError("rate",
                     "must not be given with a load_profile, which replaces it (a sine without its mean "
                     "takes rate as its mean)");
  s.traffic.load_profile = p.needs_mean() ? p.with_mean(s.traffic.rate) : p;
  if (p.needs_mean()) s.traffic.rate = 0.0;
}

SeriesSettings series_settings(const std::string& file, const std::string& sweep, std::int64_t sweep_line,
                               double attempt_duration, const SeriesDraft& d, const std::vector<SweepPoint>& points) {
  const std::string key = "sweep." + sweep;
  const double D = attempt_duration > 0.0 ? attempt_duration : 1.0;
  const std::int64_t bin_line = d.bin_line ? d.bin_line : sweep_line;
  const std::int64_t line = d.event_line ? d.event_line : sweep_line;
  if (d.policies.empty())
    throw SpecError(key + ".policies", "are required: one [[sweep.NAME.policies]] table per client policy", file,
                    sweep_line);
  if (!d.bin) throw SpecError(key + ".bin", "is required: the series' bin width (in the sweep's unit)", file, bin_line);
  SeriesSettings s;
  s.bin = *d.bin / D;
  s.recover_within = d.recover_within.value_or(0.1);
  s.recover_over = d.recover_over ? *d.recover_over / D : 5.0 * s.bin;
  const montecarlo::Scenario& first = points.front().scenario;
  if (d.event) {
    s.event_start = d.event->first / D;
    s.event_end = d.event->second / D;
  } else {
    s.event_start = first.failures.outage_start;
    s.event_end = first.failures.outage_end;
    if (!(s.event_end > s.event_start))
      throw SpecError(key + ".event",
                      "is required without an outage: [start, end] of the load spike or incident the tables measure "
                      "around",
                      file, line);
  }
  for (const auto& p : points) {
    const double h = montecarlo::effective_horizon(p.scenario);
    if (!(s.event_start > p.scenario.measurement.warmup) || !(s.event_end < h))
      throw SpecError(key + ".event",
                      fmt::format("must lie inside (warmup, horizon) of every point, so there is a before and an "
                                  "after (got [{}, {}] with warmup {} and horizon {}, in the sweep's unit)",
                                  s.event_start * D, s.event_end * D, p.scenario.measurement.warmup * D, h * D),
                      file, line);
    try {
      if (montecarlo::series_bins(s.bin, h) > max_series_record_bins)
        throw InputError("series", fmt::format("makes more than {} bins over the horizon", max_series_record_bins));
    } catch (const InputError& e) {
      throw SpecError(key + ".bin", std::string(e.what()).substr(e.field().size() + 1), file, bin_line);
    }
  }
  return s;
}

}  // namespace retrylab::papers
