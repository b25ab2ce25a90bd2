#pragma once
// RunResult: the metrics of one run (docs/models.md §5), and Summary: the same over many runs, reduced
// in run-index order. A metric undefined for a run (no succeeded client, no drain) is NaN there and
// is left out of its summary's n.
#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "analytic/stats.hpp"

namespace retrylab::montecarlo {

enum class StopReason { finished, drained, collapsed, horizon };

// Slots for the components' metrics in a result: at least the registry's count (a static_assert in
// montecarlo/builds.hpp says so).
inline constexpr std::size_t max_component_metrics = 48;

struct RunResult {
  StopReason stop = StopReason::horizon;
  double stop_time = 0.0;
  std::int64_t clients_arrived = 0;  // clients that arrived before the stop
  std::int64_t attempts = 0;         // attempts started by those clients
  std::int64_t successes = 0;
  double attempts_per_client = 0.0;  // attempts / clients_arrived
  double makespan = 0.0;             // end of the last successful attempt; NaN unless stop == finished
  double latency = 0.0;              // mean (success end − arrival) over succeeded clients; NaN if none
  double goodput = 0.0;              // successes ending in [warmup, stop) per time unit
  double attempt_rate = 0.0;         // attempts starting in [warmup, stop) per time unit
  double sojourn = 0.0;              // mean (end − start) of attempts ending in the window; NaN if none
  bool collapsed = false;
  bool drained = false;          // every burst client succeeded before the stop (runs with a burst)
  double drain_time = 0.0;       // when the last burst client succeeded; NaN unless drained
  double drain_time_p99 = 0.0;   // when ceil(0.99·N) burst clients had succeeded; NaN if never
  std::int64_t unfinished = 0;   // clients waiting when the run stopped
  std::int64_t max_waiting = 0;  // peak number of clients waiting at once
  // For the validation gate (Little's law, work conservation); not part of the docs/cli.md contract.
  double mean_waiting = 0.0;       // time-average number of clients waiting over the window
  double mean_time_waiting = 0.0;  // mean (success end − arrival) over clients arriving in the window who succeeded
  double arrival_rate = 0.0;       // clients arriving in the window per time unit
  double busy_time = 0.0;          // time the resource had >= 1 attempt in flight (window)
  double work_done = 0.0;          // service delivered (window): attempts' service received
  // Added by the engine (additive): the burst size N of the scenario, so summaries know whether
  // `drained` is defined (n = runs with a burst).
  std::int64_t burst_clients = 0;
  // Requests that ended lost: their client gave up (a retry limit, a deadline, a budget's refusal)
  // and left (whole run). lost_fraction = lost / (successes + lost): of the requests that ended,
  // the share lost; NaN if none ended.
  std::int64_t lost = 0;
  double lost_fraction = 0.0;
  // The components' metrics (montecarlo/metrics.hpp: the registry), by slot: each component
  // declares its metrics and writes them into its slots when the run ends; a build without the
  // component gives them their declared value for a run without it. Read them by key:
  // metric("rejected") (or with a Metric from the registry).
  std::array<double, max_component_metrics> extra;
  double metric(std::string_view key) const;
  RunResult() { extra.fill(std::numeric_limits<double>::quiet_NaN()); }
};
// Notes on the window (engine): events processed at the stop instant count as inside it (the
// finishing success of a burst is counted in goodput); events at or after the horizon are never
// processed. In `collision`/`free` every attempt in flight receives service at rate 1 (work_done =
// ∫ attempts in flight dt); in `shared`/`ps` at rate 1/n (work_done = busy_time, work conservation).

struct Summary {
  std::int64_t runs = 0;
  // The core's metrics (the tally's: montecarlo/engine_parts.hpp registers them).
  MeanSummary attempts_per_client, makespan, latency, goodput, attempt_rate, sojourn, drain_time, drain_time_p99,
      unfinished, max_waiting, mean_waiting, mean_time_waiting, arrival_rate, busy_time, work_done, lost, lost_fraction;
  ProportionSummary collapsed, drained;
  // How the runs stopped, indexed by StopReason (finished, drained, collapsed, horizon).
  std::int64_t stops[4] = {0, 0, 0, 0};
  // The components' metrics, by slot (a mean or a proportion, as the metric reduces).
  std::array<MeanSummary, max_component_metrics> extra{};
  std::array<ProportionSummary, max_component_metrics> extra_proportion{};
  // Any metric of the registry by key (std::logic_error for a key it does not hold, or a
  // proportion asked as a mean and the reverse).
  const MeanSummary& mean(std::string_view key) const;
  MeanSummary& mean(std::string_view key);
  const ProportionSummary& proportion(std::string_view key) const;
};

std::string_view to_string(StopReason r) noexcept;

// Reduces results in the order given (run-index order), so the summary is a pure function of them:
// every metric of the registry (montecarlo/metrics.cpp), each as it reduces.
Summary summarize(const std::vector<RunResult>& results);

}  // namespace retrylab::montecarlo
