#pragma once
// The series kind's points (papers/spec_series.hpp): one client policy's scenario run `runs` times
// with its time series (montecarlo::simulate_series), summarised per run around the sweep's event
// window [event_start, event_end) and then over the runs. Per run, in the sweep's unit:
//   goodput_before, goodput_during, goodput_after: requests answered (each once) per unit of time
//     over the whole bins inside [warmup, event_start), [event_start, event_end) and [event_end,
//     horizon); backlog_before, backlog_after: clients waiting (bin means) over the same bins;
//   recovery_time (recovery_time() below): undefined (left out of n) when the run did not recover,
//     and `recovered` counts the runs that did;
//   peak_backlog (most clients waiting at once), backlog_end and server_queue_end (the last bin's
//   mean), peak_server_queue (the largest bin mean of attempts at the server, abandoned or not),
//   queue_decay_time and backlog_decay_time (the e-folding times of the server's queue and of the
//     clients waiting after the event: their excess over the level before, from its largest bin
//     after the event, where above twice that level; undefined when it does not drain, or is back
//     within 5 bins),
//   latency_p50, latency_p99, latency_p999 (the run's, P²: montecarlo/series.hpp),
//   attempts_per_request, lost (requests given up), lost_fraction (lost / requests), requests.
// The record keeps the series' bins of series_record_quantities as {"mean", "lo", "hi"} arrays, the
// 95% interval of papers/intervals.hpp (a count's Poisson or log-scale one: never below 0).
// Invariant: the record is a pure function of (sweep, index): runs are reduced in run-index order.
#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "montecarlo/series.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

inline constexpr std::array<montecarlo::SeriesQuantity, 10> series_record_quantities = {
    montecarlo::SeriesQuantity::offered,      montecarlo::SeriesQuantity::attempts,
    montecarlo::SeriesQuantity::successes,    montecarlo::SeriesQuantity::lost,
    montecarlo::SeriesQuantity::backlog,      montecarlo::SeriesQuantity::in_flight,
    montecarlo::SeriesQuantity::server_queue, montecarlo::SeriesQuantity::latency_p50,
    montecarlo::SeriesQuantity::latency_p99,  montecarlo::SeriesQuantity::latency_p999};

// Recovery after the event (docs/models.md §5, "Recovery after a trigger"), of one run's bins (times
// in attempt-durations): the time from event_end to the start of the first bin k, from the first
// bin starting at or after event_end, such that for k and every later bin j whose window [j, j + m)
// (m = recover_over / bin bins) fits before the horizon, both
//   goodput averaged over the window >= (1 − recover_within)·goodput_before, and
//   backlog averaged over the window <= (1 + recover_within)·backlog_before + 1 client
// (back within the tolerance, and staying there to the end of the run). NaN (not recovered) when no
// such k has a window left, when a window holds an undefined bin (the run stopped), or when a
// level before is undefined. successes: requests answered per bin; backlog: clients waiting (bin mean).
double recovery_time(const std::vector<double>& successes, const std::vector<double>& backlog, const SeriesSettings& s,
                     double goodput_before, double backlog_before);

// The e-folding time (attempt-durations) of a level's excess over its level before, after the event:
// −1/slope of the least-squares line of ln(level − before) against time over the bins from the
// level's largest bin at or after event_end to the horizon where the level is above twice its level
// before (at least 5 such bins); NaN when fewer, or when the slope is not negative (it does not drain).
double decay_time(const std::vector<double>& level, const SeriesSettings& s, double before);

// {"runs", "policy", "bin", "t", "summary": {metric: S | P}, "series": {quantity: {"mean", "lo", "hi"}}}.
nlohmann::json run_series_point(const SweepSpec& sw, std::int64_t index, int threads,
                                const std::function<void()>& run_done);

}  // namespace retrylab::papers
