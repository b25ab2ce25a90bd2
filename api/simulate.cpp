#include "api/simulate.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <variant>

#include "analytic/version.hpp"
#include "api/format.hpp"
#include "api/series.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/simulate.hpp"

namespace retrylab::api {

using Json = nlohmann::ordered_json;
using montecarlo::Dim;
using montecarlo::Field;
using montecarlo::Metric;

Json number(double x) { return json_number(x); }

Json to_json(const MeanSummary& m) {
  return {{"mean", number(m.mean)}, {"sd", number(m.sd)}, {"n", m.n}, {"ci95", {number(m.ci95.lo), number(m.ci95.hi)}}};
}

Json to_json(const ProportionSummary& p) {
  return {{"count", p.count},
          {"fraction", number(p.fraction)},
          {"n", p.n},
          {"ci95", {number(p.ci95.lo), number(p.ci95.hi)}}};
}

Json provenance(std::string_view unit) {
  Json j;
  j["retrylab"] = std::string(version);
  j["unit"] = std::string(unit);
  return j;
}

Simulation simulate(const ResolvedScenario& s, const montecarlo::RunPlan& plan,
                    const std::function<void(std::int64_t, std::int64_t)>& done, std::optional<double> series_bin) {
  Simulation sim{s, plan, {}, {}, {}, {}};
  if (series_bin) {
    montecarlo::SimulatedSeries got = montecarlo::simulate_series(s.scenario, plan, *series_bin, done);
    sim.runs = std::move(got.runs);
    sim.series = std::move(got.series);
  } else {
    sim.runs = montecarlo::simulate(s.scenario, plan, done);
  }
  sim.summary = montecarlo::summarize(sim.runs);
  return sim;
}

namespace {

// A field's value as JSON, in the unit: numbers, integers, names, "on"/"off", "none".
Json field_json(const Field& f, double v, const montecarlo::TimeUnit& u) {
  return std::visit([](const auto& x) { return Json(x); }, montecarlo::field_output(f, v, u));
}

// A text field's value in the unit: as typed when the front end kept it, else converted back from
// attempt-durations.
std::string text_in_unit(const Field& f, const ResolvedScenario& s) {
  if (const auto it = s.texts.find(f.name); it != s.texts.end()) return it->second;
  if (s.unit.plain() || !f.text.scale) return f.text.get(s.scenario);
  montecarlo::Scenario in_unit = s.scenario;
  f.text.scale(in_unit, 1.0 / s.unit.attempt_duration);
  return f.text.get(in_unit);
}

std::string scenario_line(const ResolvedScenario& s) {
  return s.unit.plain() ? montecarlo::canonical(s.scenario) : fields_in_unit(s, false);
}

std::string fmt_num(double x) { return table_number(x, Digits::summary); }
using api::csv_number;

// The mean metrics shown for the scenario, each in the unit.
struct Shown {
  const Metric* metric;
  MeanSummary value;
};
std::vector<Shown> shown_means(const Simulation& sim) {
  std::vector<Shown> out;
  for (const Metric* m : montecarlo::shown_metrics(sim.scenario.scenario, sim.plan.server_engine))
    out.push_back({m, montecarlo::in_unit(m->mean(sim.summary), m->dim, sim.scenario.unit)});
  return out;
}

constexpr const char* row_format = "{:<42} {:>12} {:>12} {:>6}  {:<27}\n";

}  // namespace

Json scenario_json(const ResolvedScenario& s, const montecarlo::RunPlan& plan) {
  Json j, extra;
  for (const Field& f : montecarlo::scenario_fields())
    if (montecarlo::field_shown(f, s.scenario))
      (f.presence == montecarlo::Presence::always ? j : extra)[std::string(f.name)] =
          f.kind == montecarlo::FieldKind::text ? Json(text_in_unit(f, s))
                                                : field_json(f, montecarlo::field_value(f, s.scenario), s.unit);
  j["runs"] = plan.runs;
  j["seed"] = plan.seed;
  for (auto& [k, v] : extra.items()) j[k] = v;
  if (plan.server_engine) j["server_engine"] = true;
  return j;
}

std::string fields_in_unit(const ResolvedScenario& s, bool as_flags) {
  std::string out;
  for (const Field& f : montecarlo::scenario_fields()) {
    if (!montecarlo::field_shown(f, s.scenario)) continue;
    std::string value;
    if (f.kind == montecarlo::FieldKind::text) {
      value = text_in_unit(f, s);
    } else {
      double v = montecarlo::field_value(f, s.scenario);
      if (f.kind == montecarlo::FieldKind::number || f.kind == montecarlo::FieldKind::number_or_none)
        v = s.unit.out(montecarlo::dim_of(f), v);
      value = montecarlo::format_field(f, v);
    }
    if (!out.empty()) out += ' ';
    out += as_flags ? fmt::format("{} {}", montecarlo::flag_of(f), value) : fmt::format("{}={}", f.name, value);
  }
  return out;
}

Json simulate_json(const Simulation& sim) {
  const montecarlo::TimeUnit& u = sim.scenario.unit;
  Json j = provenance(u.singular());  // attempt-duration, or ms / s
  if (!u.plain()) j["attempt_duration"] = u.attempt_duration;
  if (sim.scenario.brooker) j["preset"] = "brooker";
  j["scenario"] = scenario_json(sim.scenario, sim.plan);
  j["runs"] = sim.summary.runs;
  Json metrics;
  for (const Shown& m : shown_means(sim)) metrics[std::string(m.metric->key)] = to_json(m.value);
  for (const Metric* p : montecarlo::shown_proportions(sim.scenario.scenario))
    metrics[std::string(p->key)] = to_json(p->proportion(sim.summary));
  j["metrics"] = metrics;
  const auto& stops = sim.summary.stops;
  j["stop"] = {{"finished", stops[0]}, {"drained", stops[1]}, {"collapsed", stops[2]}, {"horizon", stops[3]}};
  if (!sim.warnings.empty()) j["warnings"] = sim.warnings;
  if (sim.series) j["series"] = series_json(*sim.series, u);
  return j;
}

std::string simulate_table(const Simulation& sim) {
  const montecarlo::TimeUnit& u = sim.scenario.unit;
  const montecarlo::Summary& s = sim.summary;
  std::string out;
  if (sim.scenario.brooker)
    out += fmt::format("preset brooker: {} {} {} {} {}\n", fields_in_unit(sim.scenario, true),
                       spelled("unit", Spelling::flag), u.name, spelled("attempt_duration", Spelling::flag),
                       u.attempt_duration);
  out +=
      fmt::format("retrylab simulate: {} runs={} seed={}\n", scenario_line(sim.scenario), sim.plan.runs, sim.plan.seed);
  if (!u.plain())
    out += fmt::format("unit: {} (times in {}, rates per {}; one attempt-duration = {} {})\n", u.name, u.name,
                       u.singular(), u.attempt_duration, u.name);
  out += fmt::format("stops: finished {}, drained {}, collapsed {}, horizon {}\n\n", s.stops[0], s.stops[1], s.stops[2],
                     s.stops[3]);
  out += fmt::format(row_format, "metric", "mean", "sd", "n", "95% interval");
  for (const Shown& m : shown_means(sim)) {
    const MeanSummary& v = m.value;
    const std::string ci =
        std::isfinite(v.ci95.lo) ? fmt::format("[{}, {}]", fmt_num(v.ci95.lo), fmt_num(v.ci95.hi)) : "-";
    out += fmt::format(row_format, montecarlo::metric_label(*m.metric, u), fmt_num(v.mean), fmt_num(v.sd), v.n, ci);
  }
  out += '\n';
  out += fmt::format(row_format, "yes/no metric", "count", "fraction", "n", "95% interval (Wilson)");
  for (const Metric* m : montecarlo::shown_proportions(sim.scenario.scenario)) {
    const ProportionSummary& p = m->proportion(s);
    const std::string ci =
        std::isfinite(p.ci95.lo) ? fmt::format("[{}, {}]", fmt_num(p.ci95.lo), fmt_num(p.ci95.hi)) : "-";
    out += fmt::format(row_format, m->label, p.count, fmt_num(p.fraction), p.n, ci);
  }
  if (sim.series) {
    std::vector<double> collapses;
    for (const montecarlo::RunResult& r : sim.runs)
      if (r.collapsed) collapses.push_back(r.stop_time);
    out += series_table(*sim.series, sim.scenario, collapses);
  }
  return out;
}

std::vector<std::string> stop_notes(const Simulation& sim, Spelling how) {
  std::vector<double> at;
  for (const montecarlo::RunResult& r : sim.runs)
    if (r.collapsed) at.push_back(r.stop_time);
  if (at.empty()) return {};
  const montecarlo::TimeUnit& u = sim.scenario.unit;
  const montecarlo::Scenario& s = sim.scenario.scenario;
  const double first = *std::min_element(at.begin(), at.end());
  double mean = 0.0;
  for (const double t : at) mean += t / static_cast<double>(at.size());
  const auto k = static_cast<double>(s.measurement.collapse);
  const double rate = montecarlo::candidate_rate(s);  // per attempt-duration
  const std::string in_arrivals =
      rate > 0.0
          ? fmt::format(" ({} {} of arrivals at {} per {})", table_number(u.out(Dim::time, k / rate), Digits::dense),
                        u.plural(), table_number(u.out(Dim::per_time, rate), Digits::dense), u.singular())
          : std::string();
  return {
      fmt::format("{} of {} runs collapsed: the collapse rule stopped each when {} clients were waiting at once{}, "
                  "first at t = {} {}, on average at {} {}; a run's series bins after its stop are left out, so "
                  "the means there hold only the runs still going (a larger collapse count, {}, lets them "
                  "go on)",
                  at.size(), sim.runs.size(), s.measurement.collapse, in_arrivals,
                  table_number(u.out(Dim::time, first), Digits::dense), u.plural(),
                  table_number(u.out(Dim::time, mean), Digits::dense), u.plural(), spelled("collapse", how))};
}

std::string simulate_csv(const Simulation& sim) {
  if (sim.series) return series_csv(*sim.series, sim.scenario.unit);  // one row per bin (docs/cli.md)
  std::string out = "metric,mean,sd,n,ci95_lo,ci95_hi,count,fraction\n";
  for (const Shown& m : shown_means(sim)) {
    const MeanSummary& v = m.value;
    out += fmt::format("{},{},{},{},{},{},,\n", m.metric->key, csv_number(v.mean), csv_number(v.sd), v.n,
                       csv_number(v.ci95.lo), csv_number(v.ci95.hi));
  }
  for (const Metric* m : montecarlo::shown_proportions(sim.scenario.scenario)) {
    const ProportionSummary& p = m->proportion(sim.summary);
    out += fmt::format("{},,,{},{},{},{},{}\n", m->key, p.n, csv_number(p.ci95.lo), csv_number(p.ci95.hi), p.count,
                       csv_number(p.fraction));
  }
  return out;
}

}  // namespace retrylab::api
