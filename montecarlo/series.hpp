#pragma once
// Time series (docs/models.md §5, "Over time"): what happens bin by bin during the runs, as the mean
// over runs and a 95% interval per bin of each quantity below. An observer of the event loop (the
// engine's Observer type: it sees every arrival, attempt, outcome, refusal, give-up and success and
// changes no result) counts them per run in bins [k·bin, (k+1)·bin) of the run's clock, from 0 to
// the horizon; the runs are reduced bin by bin in run-index order, so the bytes never depend on the
// thread count.
// Invariants: memory is bins × quantities per run in flight (at most 2 × threads runs wait to be
// reduced) and the latencies of one bin's answered requests, never attempts; at most max_series_bins
// bins. A request is counted once in `successes`, when it is answered (its first successful attempt;
// a hedge's late reply is not a success again), so successes <= offered summed up to any bin. A run's bins after its
// stop are undefined (left out of n), except for a run that finished (nothing is left to happen: zeros). Summed over
// its bins, a run's counts equal its totals (offered = clients_arrived, attempts, successes, lost, ...).
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "analytic/stats.hpp"
#include "montecarlo/metric.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

inline constexpr std::int64_t max_series_bins = 1'000'000;

// The quantities of the standard builds' series, in output order (the series registry: the core's
// and every component's quantities by rank, builds.hpp's series_table over FullParts): each name is
// its slot. A component adds a quantity in its `series` array (SeriesQuantityDef, metric.hpp), not
// here; a name here is only for code that reads one (a test, a study's record).
enum class SeriesQuantity : int {
  offered,         // clients (requests) arriving in the bin
  attempts,        // attempts sent
  successes,       // requests answered, once each (goodput: successes per bin; a hedge's late reply is not one)
  failures,        // attempts that failed (a conflict, an injected failure, a rejection, a timeout)
  rejected,        // attempts the server's limit rejected (the limit's)
  retries_denied,  // retries a budget refused (the budget's)
  refused,         // calls refused locally (unsent): a breaker, adaptive throttling
  breaker_open,    // the share of the bin the (shared) breaker was open (the breaker's)
  lost,            // requests given up
  backlog,         // clients waiting (time-average over the bin)
  in_flight,       // attempts in flight (time-average over the bin)
  latency_p50,     // nearest-rank percentiles of (success − arrival) of the requests answered in the bin
  latency_p99,
  latency_p999,
  server_queue,  // attempts at the server, queued or in service, their client waiting or not (time-average)
};
inline constexpr int series_quantities = 15;

// The series registry (every quantity of the standard builds, in output order by rank).
std::span<const SeriesQuantityDef> series_quantity_defs();

// One run's series: values[q][k] for quantity q (its slot) in bin k (NaN: undefined for this run),
// and the run's request latency percentiles p50, p99, p99.9 (of the requests answered in [warmup,
// end of the series), P² estimates: montecarlo/p_square.hpp; NaN when none was answered).
struct RunSeries {
  std::vector<std::vector<double>> values;
  std::array<double, 3> latency{};
};
inline constexpr std::array<double, 3> run_latency_percentiles = {0.50, 0.99, 0.999};

// Every run's series reduced in run-index order: per quantity, per bin. quantities: what each slot
// is (the registry of the build that made it), so every output of a series loops over it.
struct Series {
  double bin = 0.0;  // attempt-durations
  std::int64_t bins = 0;
  std::vector<SeriesQuantityDef> quantities;
  std::vector<std::vector<MeanSummary>> values;
};

// The number of bins of width `bin` over [0, end): ceil(end / bin). InputError("series") when bin is
// not a finite number > 0, or the count exceeds max_series_bins (naming the largest bin that would do).
std::int64_t series_bins(double bin, double end);

// Runs s as simulate() does (the same results, bit for bit) while recording its series. each_run,
// when given, sees every run's own series once, in run-index order, from one thread at a time.
struct SimulatedSeries {
  std::vector<RunResult> runs;
  Series series;
};
SimulatedSeries simulate_series(const Scenario& s, const RunPlan& plan, double bin,
                                const std::function<void(std::int64_t, std::int64_t)>& progress = {},
                                const std::function<void(std::uint64_t, const RunSeries&)>& each_run = {});

}  // namespace retrylab::montecarlo
