// The expansion of every sweep kind's grid (papers/spec_draft.hpp): a study spec's sweep, as the
// parser (papers/spec.cpp) drafted it, into its points, each checked as the engine checks a scenario,
// and the checks on the points of what the sweep's report reads.
#include <fmt/format.h>
#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/amplification.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/scenario.hpp"
#include "papers/spec_draft.hpp"

namespace retrylab::papers::spec_detail {

namespace {

montecarlo::Scenario make_scenario(const std::vector<double>& v) {
  montecarlo::Scenario s;
  // The text fields (the load profile) are not grid axes: the sweep's own key sets them after.
  for (std::size_t f = 0; f < n_fields(); ++f)
    if (fields_table()[f].kind != montecarlo::FieldKind::text) fields_table()[f].set(s, v[f]);
  return s;
}

// make_scenario's inverse, for the defaults of fields a sweep does not give.
std::vector<double> encode(const montecarlo::Scenario& s) {
  std::vector<double> v;
  for (const auto& f : fields_table()) v.push_back(f.kind == montecarlo::FieldKind::text ? 0.0 : f.get(s));
  return v;
}

// A grid block's points (the product of its axes' lengths), added to `total` and refused above
// max_sweep_points before any point is made.
template <typename Axes>
void check_block_size(const Where& w, const GridBlock& b, const Axes& axes, double& total) {
  double n = 1;
  for (const Axis* a : axes)
    if (a) n *= static_cast<double>(a->values.size());
  total += n;
  if (total > static_cast<double>(max_sweep_points))
    throw SpecError(
        b.key,
        fmt::format("makes the sweep {:.3g} points, above the limit {} (shorten its arrays)", total, max_sweep_points),
        w.file, b.line);
}

// Sets field `name` of the layered scenario in p.
void set_ext(std::string_view name, double v, SweepPoint& p) {
  auto as_int = [v] { return static_cast<std::int64_t>(v); };
  auto& l = p.layered;
  if (name == "layers")
    l.layers = static_cast<int>(as_int());
  else if (name == "attempts")
    l.attempts = static_cast<int>(as_int());
  else if (name == "failure")
    l.failure = v;
  else if (name == "outage_fraction")
    l.outage_fraction = v;
  else if (name == "requests")
    l.requests = as_int();
}

}  // namespace

std::vector<SweepPoint> expand(const Where& w, const Draft& d) {
  const std::vector<double> default_values = encode(montecarlo::Scenario{});
  const int nf = static_cast<int>(n_fields());
  std::vector<GridBlock> blocks = d.grids;
  if (blocks.empty()) blocks.push_back(GridBlock{{}, "sweep." + d.name, d.line});
  std::vector<SweepPoint> points;
  double total = 0;  // points so far, counted before any is made
  for (const auto& b : blocks) {
    std::vector<const Axis*> axes(n_fields(), nullptr);
    std::vector<Axis> fallback(n_fields());
    for (int f = 0; f < nf; ++f) {
      const std::string fname(fields_table()[f].name);
      if (auto it = b.fields.find(fname); it != b.fields.end())
        axes[f] = &it->second;
      else if (auto jt = d.fields.find(fname); jt != d.fields.end())
        axes[f] = &jt->second;
      else {
        fallback[f] = Axis{{default_values[f]}, b.line, b.key + "." + fname};
        axes[f] = &fallback[f];
      }
    }
    check_block_size(w, b, axes, total);
    std::vector<std::size_t> idx(n_fields(), 0);
    std::vector<double> v(n_fields());
    const double D = d.attempt_duration > 0.0 ? d.attempt_duration : 1.0;
    while (true) {
      for (int f = 0; f < nf; ++f) {
        v[f] = axes[f]->values[idx[f]];
        if (axes[f] == &fallback[f] || D == 1.0) continue;  // defaults are in attempt-durations already
        const montecarlo::FieldUnit u = fields_table()[f].unit;
        if (u == montecarlo::FieldUnit::time) v[f] /= D;
        if (u == montecarlo::FieldUnit::per_time) v[f] *= D;
      }
      montecarlo::Scenario s = make_scenario(v);
      if (d.unit == "ms" || d.unit == "s") s.client.attempt_ms = d.unit == "s" ? 1000.0 * D : D;
      try {
        set_load_profile(s, d.series.profile);
        if (d.kind == SweepKind::sleep) {
          check_backoff(s.backoff);
        } else {
          montecarlo::check_scenario(s);
        }
      } catch (const SpecError&) {
        throw;
      } catch (const InputError& e) {
        // Name the key the bad value came from, when it is one field, else the grid block.
        const std::string& field = e.field();
        std::string key = b.key;
        std::int64_t line = b.line;
        for (int f = 0; f < nf; ++f)
          if (fields_table()[f].name == field) {
            key = axes[f]->key.empty() ? b.key + "." + field : axes[f]->key;
            line = axes[f]->line;
          }
        throw SpecError(key, std::string(e.what()).substr(field.size() + 1), w.file, line);
      }
      if (d.kind == SweepKind::sleep) {
        for (int k = 1; k <= d.retry_max; ++k) points.push_back(SweepPoint{s, k});
      } else {
        points.push_back(SweepPoint{s, 0});
      }
      int f = nf - 1;
      while (f >= 0 && ++idx[f] == axes[f]->values.size()) idx[f--] = 0;
      if (f < 0) break;
    }
  }
  return points;
}

// Grid expansion for the amplification kind: fields not given keep LayeredScenario's defaults; every
// point passes check_layered.
std::vector<SweepPoint> expand_ext(const Where& w, const Draft& d) {
  const auto& fields = ext_fields(d.kind);
  std::vector<GridBlock> blocks = d.grids;
  if (blocks.empty()) blocks.push_back(GridBlock{{}, "sweep." + d.name, d.line});
  std::vector<SweepPoint> points;
  double total = 0;  // points so far, counted before any is made
  for (const auto& b : blocks) {
    std::vector<const Axis*> axes(fields.size(), nullptr);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::string fname(fields[f].name);
      if (auto it = b.fields.find(fname); it != b.fields.end())
        axes[f] = &it->second;
      else if (auto jt = d.fields.find(fname); jt != d.fields.end())
        axes[f] = &jt->second;
    }
    auto where = [&](std::string_view field) -> std::pair<std::string, std::int64_t> {
      for (std::size_t f = 0; f < fields.size(); ++f)
        if (fields[f].name == field && axes[f]) return {axes[f]->key, axes[f]->line};
      return {b.key, b.line};
    };
    check_block_size(w, b, axes, total);
    std::vector<std::size_t> idx(fields.size(), 0);
    while (true) {
      SweepPoint p;
      for (std::size_t f = 0; f < fields.size(); ++f)
        if (axes[f]) set_ext(fields[f].name, axes[f]->values[idx[f]], p);
      try {
        montecarlo::check_layered(p.layered);
      } catch (const InputError& e) {
        const std::string& field = e.field();
        auto [key, line] = where(field);
        throw SpecError(key, std::string(e.what()).substr(field.size() + 1), w.file, line);
      }
      points.push_back(std::move(p));
      std::ptrdiff_t f = static_cast<std::ptrdiff_t>(fields.size()) - 1;
      while (f >= 0 && (!axes[static_cast<std::size_t>(f)] ||
                        ++idx[static_cast<std::size_t>(f)] == axes[static_cast<std::size_t>(f)]->values.size())) {
        idx[static_cast<std::size_t>(f)] = 0;
        --f;
      }
      if (f < 0) break;
    }
  }
  return points;
}

// What the sweep's report (papers/report/) reads, checked before any run instead of after them
// all: the summary metrics its tables need (when `metrics` narrows them), per_run max_waiting for
// thresholds below collapse, a sleep figure of at most max_sleep_panels backoffs, and each point
// within the engine's memory and work limits (montecarlo/resources.hpp).
void check_report_needs(const Where& w, const Draft& d, const SweepSpec& s) {
  const std::string key = "sweep." + d.name;
  if (!d.metrics.empty())
    for (const auto& p : s.points)
      for (const char* m : required_metrics(d.kind, p.scenario.model))
        if (std::find(d.metrics.begin(), d.metrics.end(), m) == d.metrics.end())
          throw SpecError(key + ".metrics",
                          fmt::format("must include \"{}\": the {} report needs it (model {})", m, to_string(d.kind),
                                      to_string(p.scenario.model)),
                          w.file, d.line);
  const bool keeps_waiting = std::find(d.per_run.begin(), d.per_run.end(), "max_waiting") != d.per_run.end();
  if (d.kind == SweepKind::steady && !keeps_waiting)
    for (const auto& p : s.points)
      for (auto k : s.thresholds)
        if (k != p.scenario.measurement.collapse)
          throw SpecError(key + ".per_run",
                          fmt::format("must include \"max_waiting\": thresholds other than collapse "
                                      "(got {} with collapse {}) are read from it",
                                      k, p.scenario.measurement.collapse),
                          w.file, d.line);
  if (d.kind == SweepKind::sleep) {
    std::vector<std::string> backoffs;
    for (const auto& p : s.points)
      if (p.scenario.backoff.strategy != Strategy::none)
        backoffs.push_back(canonical(p, d.kind).substr(0, canonical(p, d.kind).rfind(" retry=")));
    std::sort(backoffs.begin(), backoffs.end());
    const auto n = std::unique(backoffs.begin(), backoffs.end()) - backoffs.begin();
    if (n > max_sleep_panels)
      throw SpecError(
          key, fmt::format("has {} backoffs, one figure panel each: at most {} fit its figure", n, max_sleep_panels),
          w.file, d.line);
  }
  if (!is_ext(d.kind) && d.kind != SweepKind::sleep)
    for (const auto& p : s.points) {
      try {
        montecarlo::check_resources(p.scenario, montecarlo::RunPlan{s.runs, s.seed, 0},
                                    montecarlo::default_max_memory());
      } catch (const InputError& e) {
        throw SpecError(key, std::string(e.what()), w.file, d.line);
      }
    }
}

}  // namespace retrylab::papers::spec_detail
