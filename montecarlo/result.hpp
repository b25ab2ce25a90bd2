#pragma once
// RunResult: the metrics of one run (docs/models.md §5), and Summary: the same over many runs, reduced
// in run-index order. A metric undefined for a run (no succeeded client, no drain) is NaN there and
// is left out of its summary's n.
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "analytic/stats.hpp"

namespace retrylab::montecarlo {

enum class StopReason { finished, drained, collapsed, horizon };

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
  // Server-side mechanisms (montecarlo/engine.hpp), additive. Runs of the original
  // event loop (no server option set) have no admission control and no queue, so there rejected = 0,
  // reject_fraction = 0 and queue_wait = 0 exactly; mean_limit, latency_p50/p99 stay NaN (not tracked).
  std::int64_t rejected = 0;     // attempts rejected by the concurrency limit (whole run)
  std::int64_t served = 0;       // attempts admitted and served (whole run; full tier only)
  double reject_fraction = 0.0;  // rejected / attempts; NaN if no attempt
  double queue_wait = 0.0;       // mean (service start − arrival at the server) of attempts starting
                                 // service in the window (row lock, limit queue); NaN if none
  double mean_limit = std::numeric_limits<double>::quiet_NaN();   // time-average concurrency limit over
                                                                  // the window (fixed or AIMD); NaN without one
  double latency_p50 = std::numeric_limits<double>::quiet_NaN();  // nearest-rank percentiles of
  double latency_p99 = std::numeric_limits<double>::quiet_NaN();  // (success − arrival); NaN if none
  // Client timeouts and retry limits (full tier), additive. The original event loop has
  // neither: there lost = timed_out = 0 and lost_fraction = 0 when a client succeeded (else NaN).
  std::int64_t lost = 0;       // clients that gave up at their retry limit (whole run)
  double lost_fraction = 0.0;  // lost / (successes + lost): of the requests that ended, the share
                               // lost; NaN if none ended
  std::int64_t timed_out = 0;  // attempts whose client stopped waiting at its timeout (whole run)
  // Client-side controls, deadlines and injected failures (full tier; 0 elsewhere), whole run.
  std::int64_t retries_denied = 0;    // retries the budget refused (each ends its request: lost)
  std::int64_t breaker_rejected = 0;  // calls the breaker rejected locally (unsent)
  std::int64_t throttled = 0;         // calls adaptive throttling rejected locally (unsent)
  std::int64_t injected = 0;          // attempts failed by injection (failure_prob, outage)
  std::int64_t deadline_lost = 0;     // requests given up at their deadline (lost)
  std::int64_t breaker_opened = 0;    // times the circuit breaker opened
  // Effects at the server (ServerOptions::idempotency), whole run: without timeouts every effect is
  // a success its client saw, so effects = successes and the other two are 0 exactly.
  std::int64_t effects = 0;            // successful attempts that took effect (deduplicated by a fixed key)
  std::int64_t duplicate_effects = 0;  // Σ max(0, effects per request − 1)
  std::int64_t hidden_effects = 0;     // requests lost for their client that took effect nevertheless
  double recovery_time =
      std::numeric_limits<double>::quiet_NaN();  // after the outage's end; NaN if not measured or never
  bool measured_recovery = false;                // the scenario measures recovery (recovery_window > 0)
};
// Notes on the window (engine): events processed at the stop instant count as inside it (the
// finishing success of a burst is counted in goodput); events at or after the horizon are never
// processed. In `collision`/`free` every attempt in flight receives service at rate 1 (work_done =
// ∫ attempts in flight dt); in `shared`/`ps` at rate 1/n (work_done = busy_time, work conservation).

struct Summary {
  std::int64_t runs = 0;
  MeanSummary attempts_per_client, makespan, latency, goodput, attempt_rate, sojourn, drain_time, drain_time_p99,
      unfinished, max_waiting, mean_waiting, mean_time_waiting, arrival_rate;
  ProportionSummary collapsed, drained;
  // Added by the engine (additive): busy time and work done (validation), and how the runs stopped,
  // indexed by StopReason (finished, drained, collapsed, horizon).
  MeanSummary busy_time, work_done;
  std::int64_t stops[4] = {0, 0, 0, 0};
  // Added for the server-side mechanisms, additive.
  MeanSummary rejected, reject_fraction, queue_wait, mean_limit, latency_p50, latency_p99;
  MeanSummary lost, lost_fraction, timed_out;  // client timeouts and retry limits, additive
  MeanSummary retries_denied, breaker_rejected, throttled, injected,
      deadline_lost;  // controls, deadlines, injected failures
  MeanSummary breaker_opened, effects, duplicate_effects, hidden_effects, recovery_time;
  ProportionSummary recovered;  // runs whose recovery_time is defined, of the runs measuring it
};

std::string_view to_string(StopReason r) noexcept;

// Reduces results in the order given (run-index order), so the summary is a pure function of them.
Summary summarize(const std::vector<RunResult>& results);

}  // namespace retrylab::montecarlo
