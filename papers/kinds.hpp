#pragma once
// Paper 2's sweep kinds, whose records keep a summary of their own instead of the engine's metrics
// list: brooker (Brooker's OCC test), budget, idempotency and breaker (the failing dependency) run
// engine scenarios (montecarlo::simulate_detailed) and summarise them in their tables' terms, in
// ms; amplification runs the layered test (montecarlo/amplification.hpp). study.cpp hands such
// points here, so the sweep runner, the results store, resume and the MPI split treat them like
// any other point (a pure function of sweep and index).
// Invariant: run_extension_point(sw, i, …) depends only on (sw, i), never on threads or progress.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "montecarlo/run_detail.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

// True for the kinds handled here: brooker, amplification, budget, idempotency, breaker and series
// (papers/series_kind.hpp); none of the paper 1 kinds.
bool is_extension_kind(SweepKind kind) noexcept;

// The unit of time of a sweep's records (analytic/units.hpp): the sweep's unit when it is written in
// ms or s, none for amplification (it counts calls), else attempt-duration.
std::string_view time_unit(const SweepSpec& sw) noexcept;

// The record fields of point `index` of sweep `sw` (an extension kind) beyond the common ones
// (sweep, point, scenario, seed, certificate, retrylab, unit): {"runs": n, "summary": {metric: S | P |
// count}} with S/P as docs/cli.md's JSON. Calls run_done() once per finished run (from any thread).
nlohmann::json run_extension_point(const SweepSpec& sw, std::int64_t index, int threads,
                                   const std::function<void()>& run_done);

// The summaries of runs of Brooker's test and of the failing dependency, every time multiplied by
// `attempt_duration` (into the sweep's unit). Brooker: attempts (write attempts per run), reads (=
// attempts), calls (reads + writes = 2·attempts), attempts_per_client, max_attempts (most by one
// client), makespan, latency. Dependency: requests, attempts, retries (tries after the first, local
// rejections included), load_multiplier (attempts per request), retries_per_success,
// success_fraction, latency, latency_p99, timeouts, duplicate_effects, hidden_effects,
// retries_blocked (by the budget), rejected_by_breaker, rejected_by_throttle, rejected_by_capacity
// (the limit), breaker_opened, recovery_time, max_waiting, recovered (runs); with `warning`, the
// budget's early warning too (warning_time, failure_time, warning_lead, warning_ratio:
// montecarlo/run_detail.hpp).
// A run's non-finite value is left out of its metric's n.
nlohmann::json brooker_summary(const std::vector<montecarlo::RunDetail>& runs, double attempt_duration);
nlohmann::json dependency_summary(const std::vector<montecarlo::RunDetail>& runs, double attempt_duration,
                                  bool warning);

}  // namespace retrylab::papers
