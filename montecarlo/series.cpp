#include "montecarlo/series.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/observed_run.hpp"
#include "montecarlo/parallel_runs.hpp"

namespace retrylab::montecarlo {

std::span<const SeriesQuantityDef> series_quantity_defs() { return detail::series_table<detail::FullParts>::defs; }

namespace {
// The names of SeriesQuantity are the registry's slots.
constexpr bool names_are_slots() {
  constexpr std::string_view names[] = {
      "offered", "attempts", "successes", "failures",    "rejected",    "retries_denied", "refused",     "breaker_open",
      "lost",    "backlog",  "in_flight", "latency_p50", "latency_p99", "latency_p999",   "server_queue"};
  const auto& defs = detail::series_table<detail::FullParts>::defs;
  if (std::size(names) != defs.size()) return false;
  for (std::size_t i = 0; i < defs.size(); ++i)
    if (defs[i].key != names[i]) return false;
  return true;
}
static_assert(series_quantities == static_cast<int>(detail::series_table<detail::FullParts>::count) &&
                  names_are_slots(),
              "SeriesQuantity names the series registry's slots in order");
}  // namespace

std::int64_t series_bins(double bin, double end) {
  if (!(bin > 0.0) || !std::isfinite(bin))
    throw InputError("series", fmt::format("must be a bin width, a finite number > 0 (got {})", bin));
  const double n = std::ceil(end / bin);
  if (!(n <= static_cast<double>(max_series_bins)))
    throw InputError("series", fmt::format("makes {:.0f} bins over the horizon {}; at most {} (a bin >= {})", n, end,
                                           max_series_bins, end / static_cast<double>(max_series_bins)));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
}

SimulatedSeries simulate_series(const Scenario& s, const RunPlan& plan, double bin,
                                const std::function<void(std::int64_t, std::int64_t)>& progress,
                                const std::function<void(std::uint64_t, const RunSeries&)>& each_run) {
  check_scenario(s);
  check_run_plan(plan);
  const std::int64_t bins = series_bins(bin, effective_horizon(s));
  const auto faults = detail::entry_faults();
  detail::EngineOptions options;
  options.full_tier = plan.server_engine;
  options.scenario_hash = stable_hash(s);
  options.pulse = plan.pulse;
  const bool full = detail::full_tier(s, options);

  SimulatedSeries out;
  const std::span<const SeriesQuantityDef> defs = series_quantity_defs();
  detail::SeriesReducer reducer(defs, bin, bins);
  out.runs = detail::run_in_order_reduce<RunResult, RunSeries, detail::EngineScratch>(
      plan,
      [&](std::uint64_t i, detail::EngineScratch& scratch, RunSeries& series) {
        detail::SeriesObserver watch(defs, bin, bins, s.measurement.warmup, full, series);
        detail::RunObserver observer(nullptr, &watch, nullptr);
        const RunResult r =
            detail::run_engine_plain_or_full(full, s, plan.seed, i, options, observer, &scratch, faults);
        watch.finish(r);
        return r;
      },
      [&](std::uint64_t i, const RunSeries& series) {
        if (each_run) each_run(i, series);
        reducer.add(series);
      },
      progress);
  out.series = reducer.result();
  return out;
}

}  // namespace retrylab::montecarlo
