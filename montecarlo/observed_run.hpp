#pragma once
// One run for the entry points that watch it with an observer of their own (internal): a trace
// (trace.cpp), a series (series.cpp) and a run's detail (run_detail.cpp).
#include <cstdint>

#include "montecarlo/run_engine.hpp"

namespace retrylab::montecarlo::detail {

// One run on the plain tier or on the full build, never the lean one: each of those files then
// compiles the event loop for two builds, not three (a third less compiler time). A scenario the
// lean build takes gives the same result on the full build bit for bit (tests/montecarlo/lean_test.cpp)
// and the same trace (the fingerprints, tests/montecarlo/fingerprint.py, hold the traces).
template <class Observer, class Faults = NoFaults>
RunResult run_engine_plain_or_full(bool full, const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                                   const EngineOptions& options, Observer& observer, EngineScratch* scratch,
                                   const Faults& faults = {}) {
  if (!full) return run_engine_build<PlainParts>(s, seed, run_index, options, observer, scratch, faults);
  return run_engine_build<FullParts>(s, seed, run_index, options, observer, scratch, faults);
}

}  // namespace retrylab::montecarlo::detail
