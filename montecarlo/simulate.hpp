#pragma once
// The engine's entry points. simulate_run is a pure function of (scenario, seed, run_index);
// simulate runs plan.runs of them on plan.threads threads and returns the results in run-index
// order, so every output is byte-identical for any thread count (docs/models.md §6).
// Both check the scenario (InputError). Internals for tests and tools: montecarlo/engine.hpp
// (detail::run_engine with an Observer and EngineOptions), random.hpp (Philox streams and the
// conversions), sampler.hpp (the sleep sampler shared with draw_sleeps). A scenario with server
// options (Scenario::server: rows, lock, service and delay distributions, concurrency limit,
// Retry-After, AIMD, mixed population) runs the event loop's full tier; one without, its plain tier
// (montecarlo/engine.hpp: one loop, the options' code compiled away in the plain tier).
// The planted-fault build (retrylab_montecarlo_faulty) reads RETRYLAB_FAULT in simulate_run,
// simulate and draw_sleeps (montecarlo/faults.hpp); an unknown name throws InputError.
#include <cstdint>
#include <functional>
#include <vector>

#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

RunResult simulate_run(const Scenario& s, std::uint64_t seed, std::uint64_t run_index);

// progress(done, total) is called from worker threads as runs finish (may be empty).
std::vector<RunResult> simulate(const Scenario& s, const RunPlan& plan,
                                const std::function<void(std::int64_t, std::int64_t)>& progress = {});

}  // namespace retrylab::montecarlo

namespace retrylab::montecarlo {

// n sleeps before retry k (k >= 1), drawn by the engine's own sampler (the very code the event loop
// uses), from the stream keyed by (seed, backoff, k). For decorrelated jitter each of the n draws is
// an independent chain s_0 = b, s_1, …, s_k. For the validation gate (sleep distributions).
std::vector<double> draw_sleeps(const Backoff& backoff, int k, std::int64_t n, std::uint64_t seed);

}  // namespace retrylab::montecarlo
