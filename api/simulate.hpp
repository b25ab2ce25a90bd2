#pragma once
// One scenario, many runs, and the documents that report them (docs/cli.md "simulate", docs/python.md):
// the JSON document, the table and the CSV, each from the metric registry (montecarlo/metrics.hpp) in
// the user's unit. `retrylab simulate` prints them; the Python module returns the JSON document and
// the per-run values. Same seed, same bytes, whatever the thread count.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analytic/stats.hpp"
#include "api/scenario.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::api {

// A number as JSON: null when not finite (an undefined metric); the one rule for every document.
nlohmann::ordered_json number(double x);
nlohmann::ordered_json to_json(const MeanSummary& m);
nlohmann::ordered_json to_json(const ProportionSummary& p);

// The opening of every JSON document: {"retrylab": version, "unit": unit of time}.
nlohmann::ordered_json provenance(std::string_view unit);

struct Simulation {
  ResolvedScenario scenario;
  montecarlo::RunPlan plan;
  std::vector<montecarlo::RunResult> runs;  // in run-index order
  montecarlo::Summary summary;
  std::optional<montecarlo::Series> series;  // when asked for (api/series.hpp prints it)
  std::vector<std::string> warnings;         // the sanity warnings (api/sanity.hpp); JSON "warnings"
};

// Runs the scenario (plan.pulse, when set, is told of the runs' progress; done(i, n) after each).
// series_bin (attempt-durations): also record the time series in bins of that width (the runs are
// the same, bit for bit).
Simulation simulate(const ResolvedScenario& s, const montecarlo::RunPlan& plan,
                    const std::function<void(std::int64_t, std::int64_t)>& done = {},
                    std::optional<double> series_bin = {});

// The scenario as an object: the fields canonical() prints (the base ones always, any other when not
// at its default) in the user's unit, then runs and seed.
nlohmann::ordered_json scenario_json(const ResolvedScenario& s, const montecarlo::RunPlan& plan);
// The scenario's fields as name=value (or, as_flags, "--name value"), times and rates in its unit.
std::string fields_in_unit(const ResolvedScenario& s, bool as_flags);

// `retrylab simulate --json`, the table and the CSV (the JSON lists the warnings, when there are any,
// under "warnings"; the table and CSV leave them to stderr). With a series: the JSON adds "series", the table
// adds a row per bin, and the CSV is the series' (a row per bin) instead of the summary's.
nlohmann::ordered_json simulate_json(const Simulation& sim);
std::string simulate_table(const Simulation& sim);
std::string simulate_csv(const Simulation& sim);

// When the collapse rule stopped runs: one line saying how many, when (in the unit) and what the
// rule's count means there (its clients as a time of arrivals at the load), for stderr (the CLI) or
// a UserWarning (Python); empty otherwise. The rule's default (3,000 clients) is kept: a count has
// no unit, and every earlier result keeps its bytes; this line reads it in the user's unit and
// names the collapse field as `how` spells it.
std::vector<std::string> stop_notes(const Simulation& sim, Spelling how = Spelling::flag);

}  // namespace retrylab::api
