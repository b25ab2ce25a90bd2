#pragma once
// A failing dependency and the clients that call it (no reference model prescribes it: these are
// our choices). Time in ms. Deterministic per (scenario, seed, run index): Philox streams keyed by
// run_key(seed, stable_hash(scenario)) (montecarlo/random.hpp), one stream per purpose (arrivals,
// service times, failures, sleeps, throttle draws); simulate_dependency returns runs in run-index
// order, so results are byte-identical for any thread count.
//
// The run. Requests arrive as a Poisson process of `rate` per ms on [0, horizon); each wants one
// successful call and makes its first attempt on arrival. Before each attempt the breaker (if any)
// and the budget's admit() (adaptive throttling) may reject it locally: no load, it counts as a failed
// try (rejected_by_breaker, rejected_by_throttle) and the client proceeds as after a failure (Retry
// wraps CircuitBreaker, resilience4j's recommended order); a local rejection is not reported to the
// budget's on_failure (no call was made) but the retry after it still asks try_retry. Otherwise the
// attempt reaches the dependency (an attempt): if `capacity` > 0 and capacity attempts are in flight there, it is
// rejected at once (a failure at its start time, rejected_by_capacity); else it is served for a
// service time S (deterministic = service_mean; exponential with that mean; lognormal with that mean
// and log-sd service_sigma) and fails with probability `failure`, or the outage's failure probability
// if its start lies in an outage window [start, end) (1 = total outage, 0.5 = partial). Failed
// attempts take their service time too (a dying dependency still holds the connection).
// The client waits min(S, timeout): if S > timeout it sees a timeout at start + timeout, but the
// attempt still completes at the dependency at start + S and its effect happens if it succeeded.
// After a failure (or timeout, or local rejection), if attempts so far < max_attempts and the budget's
// try_retry grants it, the client sleeps the backoff's delay for its k-th failure (the engine's
// SleepSampler, montecarlo/sampler.hpp; failures counted from 1) and tries again; else it gives up
// (a failed request; retries_blocked counts the budget's refusals). The run ends when every request
// has resolved and every attempt has completed at the dependency (max_attempts bounds it).
// Idempotency: `none` and `per_attempt` (a fresh key per attempt, which the server cannot match)
// apply every successful completion's effect, so a request can have several effects; `fixed` (one key
// chosen before the first attempt) applies only the first, later ones are deduplicated.
// duplicate_effects = Σ over requests of max(0, effects − 1); a request the client saw fail may still
// have had an effect (hidden_effects).
// Recovery after the first outage [s, e): attempts completing at the dependency (capacity rejections
// at their start) are binned in windows [e + k·w, e + (k+1)·w), w = recovery_window; the baseline is
// the success fraction of attempts completing in [0, s) (1 − failure if none); recovery_time = the
// end of the first window whose success fraction >= 0.95 · baseline, minus e; NaN without an outage
// or if no window after e reaches it (windows with no attempt do not count).
//
// Invariants (check_dependency): rate > 0 finite; horizon > 0 finite; failure in [0, 1]; outages
// sorted, disjoint, 0 <= start < end finite, failure in [0, 1]; service_mean > 0 finite; service_sigma
// in [0, 5]; capacity in [0, 1e9]; timeout > 0 (+inf = none); max_attempts in [1, 10000]; backoff valid
// (analytic/strategy.hpp) with a finite cap; budget and breaker valid (montecarlo/controls.hpp);
// recovery_window > 0 finite; rate·horizon <= 1e8 requests expected.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "analytic/stats.hpp"
#include "analytic/strategy.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/scenario.hpp"  // RunPlan, fnv1a64

namespace retrylab::montecarlo {

enum class ServiceDistribution { deterministic, exponential, lognormal };

std::string_view to_string(ServiceDistribution d) noexcept;
std::string_view to_string(Idempotency i) noexcept;
// "deterministic"|"exponential"|"lognormal"; "none"|"per-attempt"|"fixed". Unknown: InputError (service, idempotency).
ServiceDistribution parse_service_distribution(std::string_view name);
Idempotency parse_idempotency(std::string_view name);

struct Outage {
  double start = 0.0;    // ms
  double end = 0.0;      // ms, exclusive
  double failure = 1.0;  // failure probability of an attempt starting in [start, end)
};

struct DependencyScenario {
  double rate = 0.1;       // requests per ms (Poisson)
  double horizon = 60000;  // ms: arrivals on [0, horizon)
  double failure = 0.0;    // p outside outages
  std::vector<Outage> outages;
  ServiceDistribution service = ServiceDistribution::deterministic;
  double service_mean = 10.0;                                // ms
  double service_sigma = 0.5;                                // lognormal only: sd of log S
  std::int64_t capacity = 0;                                 // attempts in flight at the dependency; 0 = unlimited
  double timeout = std::numeric_limits<double>::infinity();  // τ, ms; +inf = none
  int max_attempts = 3;                                      // first attempt included
  Backoff backoff{Strategy::full, 10.0, 1000.0, 0.0};        // base/cap in ms
  BudgetConfig budget{};
  BreakerConfig breaker{};
  Idempotency idempotency = Idempotency::fixed;
  double recovery_window = 1000.0;  // ms
};

void check_dependency(const DependencyScenario& s);  // InputError naming the field
// Every field, fixed order, shortest round-trip decimals, with "unit=ms"; the input to the RNG key.
std::string canonical(const DependencyScenario& s);
std::uint64_t stable_hash(const DependencyScenario& s);  // fnv1a64(canonical(s))

struct DependencyRunResult {
  std::int64_t requests = 0;              // arrived
  std::int64_t attempts = 0;              // reached the dependency (capacity rejections included)
  std::int64_t retries = 0;               // tries after the first (local rejections included)
  std::int64_t successes = 0;             // requests whose client saw a success
  std::int64_t failures = 0;              // requests that gave up
  double load_multiplier = 0.0;           // attempts / requests
  double retries_per_success = 0.0;       // retries / successes; +inf if no success and retries > 0, NaN if neither
  double success_fraction = 0.0;          // successes / requests
  double latency = 0.0;                   // mean (success seen − arrival) over succeeded requests; NaN if none
  double latency_p99 = 0.0;               // 99th percentile (nearest rank) of the same; NaN if none
  std::int64_t timeouts = 0;              // attempts the client gave up on at τ
  std::int64_t effects = 0;               // effects applied at the dependency
  std::int64_t duplicate_effects = 0;     // Σ max(0, effects per request − 1)
  std::int64_t hidden_effects = 0;        // requests that failed for the client but had an effect
  std::int64_t retries_blocked = 0;       // retries the budget refused
  std::int64_t rejected_by_breaker = 0;   // tries the breaker rejected locally
  std::int64_t rejected_by_throttle = 0;  // tries adaptive throttling rejected locally
  std::int64_t rejected_by_capacity = 0;  // attempts the dependency rejected at once (full)
  std::int64_t breaker_opened = 0;        // times the breaker opened
  double recovery_time = 0.0;             // ms after the first outage's end (see above); NaN if none
  std::int64_t max_waiting = 0;           // peak number of requests in progress at once
  double end_time = 0.0;                  // time of the last event
};

struct DependencySummary {
  std::int64_t runs = 0;
  MeanSummary requests, attempts, retries, load_multiplier, retries_per_success, success_fraction, latency, latency_p99,
      timeouts, duplicate_effects, hidden_effects, retries_blocked, rejected_by_breaker, rejected_by_throttle,
      rejected_by_capacity, breaker_opened, recovery_time, max_waiting;
  // Runs where recovery_time is defined (recovered) out of runs.
  ProportionSummary recovered;
};

DependencyRunResult simulate_dependency_run(const DependencyScenario& s, std::uint64_t seed, std::uint64_t run_index);
// plan.runs runs on plan.threads threads, returned in run-index order. progress(done, total) may be empty.
std::vector<DependencyRunResult> simulate_dependency(
    const DependencyScenario& s, const RunPlan& plan,
    const std::function<void(std::int64_t, std::int64_t)>& progress = {});
// Non-finite values (NaN, inf) are left out of a metric's n.
DependencySummary summarize(const std::vector<DependencyRunResult>& results);

}  // namespace retrylab::montecarlo
