#pragma once
// Up-front resource limits of a simulation (runs of one scenario): refused before any allocation,
// with one line stating the estimate and the limit, rather than dying of std::bad_alloc or running
// for ever. The estimates are deliberately simple:
// - memory: every run result is kept (sizeof(RunResult) plus per_run_summary_bytes for the summary),
//   and each worker thread holds one run whose clients waiting at once can reach
//   min(collapse, burst + expected arrivals) at bytes_per_waiting_client each; on the full tier
//   (server options, or RunPlan::server_engine) that run also keeps the latency of every request
//   that succeeds, for its exact percentiles (bytes_per_latency each, burst + expected arrivals);
//   on a shared or ps server without a concurrency limit, with a client timeout, every attempt the
//   run makes (clients x attempts per client) may still be on the server, timed out but sharing
//   it, at bytes_per_server_attempt each;
//   with a time series of B bins, 2·threads runs' bins in flight (series_quantities doubles each)
//   and bytes_per_series_bin for the summary and the output document. A run stays within
//   the estimate plus memory_margin_bytes (stacks, allocator, the program itself) (tested:
//   tests/cli/memory_estimate_test.cpp, peak RSS of the child against it);
// - work: the attempts made in all runs, runs x (burst + rate x horizon) x attempts per client (a
//   load profile: its integral over [0, horizon), i.e. its mean rate over the horizon), at
//   most max_attempts_simulated. Attempts per client (expected_attempts_per_client) is what injected
//   failures alone cause: 1/(1 − failure_prob), plus the retries through an outage window, each
//   bounded by max_attempts and by the attempt cycles (one attempt, then the mean sleep of its retry
//   index) that fit before the deadline or the horizon. A load profile's arrivals are candidates
//   drawn at its maximum rate and thinned: those thinned out (max rate x horizon − ∫λ per run) are
//   bounded by the same limit. On a shared or ps server without a concurrency limit a client timeout
//   may end every attempt (its time there grows with the attempts sharing it): attempts per client
//   are then also the timeout cycles that fit in the client's lifetime, at most max_attempts.
//   Contention is left out (it adds O(log N)
//   attempts per client under a capped exponential backoff, and a run stops at its collapse
//   threshold), so the estimate is low, never high, for a scenario without failures.
#include <cstdint>

#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

// A client, its attempt, its wake-up, a heap slot: about 175 measured, vectors that grow by doubling
// allow for more.
inline constexpr double bytes_per_waiting_client = 256.0;
inline constexpr double bytes_per_latency = 16.0;  // a double, in a vector that grows by doubling
// An attempt still on a shared server after its client timed out (measured about 65, a vector that
// grows by doubling allows for more).
inline constexpr double bytes_per_server_attempt = 128.0;
inline constexpr double bytes_per_series_bin = 3072.0;  // summaries of every quantity, and the JSON document
inline constexpr double memory_margin_bytes = 64.0 * (1 << 20);
inline constexpr double max_threads_estimated = 4096;   // detail::max_worker_threads: no more are started
inline constexpr double per_run_summary_bytes = 256.0;  // each metric's per-run value in the summary
inline constexpr double max_attempts_simulated = 1e11;  // hours on one core at about 10^7 attempts/s

struct ResourceEstimate {
  double bytes = 0;                // peak memory of simulate() and its summary
  double clients = 0;              // clients simulated over all runs
  double attempts_per_client = 1;  // expected_attempts_per_client(s)
  double attempts = 0;             // clients x attempts_per_client
  double thinned = 0;              // a load profile's candidate arrivals thinned out, over all runs
};

// >= 1; exactly 1 with retries off. Finite for every scenario check_scenario accepts.
double expected_attempts_per_client(const Scenario& s);

// series_bins: the bins of a time series (simulate_series), 0 without one.
ResourceEstimate estimate_resources(const Scenario& s, const RunPlan& plan, std::int64_t series_bins = 0);

// Half the machine's physical memory (sysconf), the default of --max-memory.
double default_max_memory();

// Throws InputError naming "max-memory" (memory) or "horizon"/"runs" (work) when an estimate
// exceeds its limit; `max_memory` in bytes. Work: the message states the estimate's factors.
void check_resources(const Scenario& s, const RunPlan& plan, double max_memory, std::int64_t series_bins = 0);

}  // namespace retrylab::montecarlo
