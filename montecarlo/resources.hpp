#pragma once
// Up-front resource limits of a simulation (runs of one scenario): refused before any allocation,
// with one line stating the estimate and the limit, rather than dying of std::bad_alloc or running
// for ever. The estimates are deliberately simple and on the low side:
// - memory: every run result is kept (sizeof(RunResult) plus per_run_summary_bytes for the summary),
//   and each worker thread holds one run whose clients waiting at once can reach
//   min(collapse, burst + expected arrivals) at bytes_per_waiting_client each;
// - work: the clients simulated in all runs, runs x (burst + rate x horizon), at most max_clients_simulated.
#include <cstdint>

#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

inline constexpr double bytes_per_waiting_client = 128.0;  // client, its attempt, its wake-up, a heap slot
inline constexpr double per_run_summary_bytes = 256.0;     // each metric's per-run value in the summary
inline constexpr double max_clients_simulated = 1e11;      // hours on one core at about 10^7 clients/s

struct ResourceEstimate {
  double bytes = 0;    // peak memory of simulate() and its summary
  double clients = 0;  // clients simulated over all runs
};

ResourceEstimate estimate_resources(const Scenario& s, const RunPlan& plan);

// Half the machine's physical memory (sysconf), the default of --max-memory.
double default_max_memory();

// Throws InputError naming "max-memory" (memory) or "horizon"/"runs" (work) when an estimate
// exceeds its limit; `max_memory` in bytes.
void check_resources(const Scenario& s, const RunPlan& plan, double max_memory);

}  // namespace retrylab::montecarlo
