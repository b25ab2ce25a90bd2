#pragma once
// Extension sweep kinds: sweeps whose points are not one engine Scenario (paper 2: Brooker's test,
// the failing dependency and its controls, layered amplification). Each kind has its own simulator
// and its own summary JSON; study.cpp hands such points here, so the sweep runner, the results store,
// resume and the MPI split treat them like any other point (a pure function of sweep and index).
// Invariant: run_extension_point(sw, i, …) depends only on (sw, i), never on threads or progress.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "papers/spec.hpp"

namespace retrylab::papers {

// True for the kinds handled here: brooker (simulate_brooker), amplification (simulate_layered),
// budget, idempotency and breaker (simulate_dependency); none of the paper 1 kinds.
bool is_extension_kind(SweepKind kind) noexcept;

// The unit of time of a sweep kind's records (analytic/units.hpp): ms for brooker and the dependency
// kinds, none for amplification (it counts calls), attempt-duration for the engine's kinds.
std::string_view time_unit(SweepKind kind) noexcept;

// The record fields of point `index` of sweep `sw` (an extension kind) beyond the common ones
// (sweep, point, scenario, seed, certificate, retrylab, unit): {"runs": n, "summary": {metric: S | P |
// count}} with S/P as docs/cli.md's JSON (every field of the simulator's summary, by its C++ name).
// Calls run_done() once per finished run (from any thread).
nlohmann::json run_extension_point(const SweepSpec& sw, std::int64_t index, int threads,
                                   const std::function<void()>& run_done);

}  // namespace retrylab::papers
