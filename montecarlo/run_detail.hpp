#pragma once
// Per-run facts a RunResult does not keep, gathered by an engine observer while the run is simulated
// (the run itself, and so its RunResult, is exactly simulate_run's):
//  - most_attempts: the most attempts one client made (Brooker's table);
//  - the course of the outage [outage_start, outage_end), for the retry budget's early warning:
//    warning_time = the first retry the budget refused at or after the outage start, minus it (NaN
//    if it refused none inside the outage); failure_time = the end of the first bin of width `bin`
//    (from the outage start) whose fraction of requests lost, among the requests that ended in it
//    (succeeded or gave up, as their clients saw it), reaches the lost fraction of every request
//    that ended inside the outage (its level over the outage), minus the outage start (NaN if no
//    request ended inside it); warning_lead = failure_time − warning_time (> 0: the budget fired
//    before the clients' failure fraction reached its level) and warning_ratio = warning_time /
//    failure_time (< 1: the same).
// Times in the scenario's unit (attempt-durations). Gathering costs an observer call per attempt,
// so it is done only when asked (DetailOptions).
#include <cstdint>
#include <functional>
#include <vector>

#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

struct DetailOptions {
  bool most_attempts = false;
  bool outage = false;  // needs an outage (outage_end > 0)
  double bin = 1.0;     // > 0, attempt-durations
};

struct RunDetail {
  RunResult result;
  std::int64_t most_attempts = 0;
  double warning_time = 0.0, failure_time = 0.0, warning_lead = 0.0, warning_ratio = 0.0;
};

// plan.runs runs of s (plan.server_engine is ignored), in run-index order; same results and same
// bytes as simulate() for any thread count. Checks s and the options (InputError).
std::vector<RunDetail> simulate_detailed(const Scenario& s, const RunPlan& plan, const DetailOptions& options,
                                         const std::function<void(std::int64_t, std::int64_t)>& progress = {});

}  // namespace retrylab::montecarlo
