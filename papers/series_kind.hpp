#pragma once
// The series kind's points (papers/spec_series.hpp): one client policy's scenario run `runs` times
// with its time series (montecarlo::simulate_series), summarised per run around the sweep's event
// window [event_start, event_end) and then over the runs. Per run, in the sweep's unit:
//   goodput_before, goodput_during, goodput_after: successes per unit of time over the whole bins
//     inside [warmup, event_start), [event_start, event_end) and [event_end, horizon);
//   recovery_time: from event_end to the start of the first bin k (from the first bin starting at
//     or after event_end) whose goodput averaged over bins [k, k + recover_over/bin) is at least
//     (1 − recover_within)·goodput_before; undefined (left out of n) when no such bin fits before
//     the horizon, and `recovered` counts the runs where one did;
//   peak_backlog (most clients waiting at once), attempts_per_request, lost (requests given up),
//   lost_fraction (lost / requests), requests.
// The record keeps the series' bins of series_record_quantities as {"mean", "lo", "hi"} arrays, the
// 95% interval of papers/intervals.hpp (a count's Poisson or log-scale one: never below 0).
// Invariant: the record is a pure function of (sweep, index): runs are reduced in run-index order.
#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "montecarlo/series.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

inline constexpr std::array<montecarlo::SeriesQuantity, 5> series_record_quantities = {
    montecarlo::SeriesQuantity::offered, montecarlo::SeriesQuantity::attempts, montecarlo::SeriesQuantity::successes,
    montecarlo::SeriesQuantity::lost, montecarlo::SeriesQuantity::backlog};

// {"runs", "policy", "bin", "t", "summary": {metric: S | P}, "series": {quantity: {"mean", "lo", "hi"}}}.
nlohmann::json run_series_point(const SweepSpec& sw, std::int64_t index, int threads,
                                const std::function<void()>& run_done);

}  // namespace retrylab::papers
