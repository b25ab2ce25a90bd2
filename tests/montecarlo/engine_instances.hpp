#pragma once
// The event loops the montecarlo tests share, compiled once in engine_instances.cpp instead of in each
// test file that runs the engine: run_engine for one (observer, faults) pair instantiates every model,
// tier and build, about a minute of compiler time at -O3. A test file includes this header, so its
// calls with the pairs below link to that one copy; an observer of a test's own is compiled in its file.
// The loops without an observer (NullObserver) are the library's own copy (montecarlo/run_engine.hpp).
// Same code, same numbers: only where the instantiation lives changes.
#include <cstdint>

#include "montecarlo/faults.hpp"
#include "montecarlo/run_engine.hpp"
#include "tests/montecarlo/trace.hpp"

// SPEC is `extern` (here) or empty (the definitions, engine_instances.cpp).
#define RETRYLAB_TEST_ENGINE(SPEC, OBSERVER)                                                                   \
  SPEC template RunResult run_engine<OBSERVER, NoFaults>(const Scenario&, std::uint64_t, std::uint64_t,        \
                                                         const EngineOptions&, OBSERVER&, EngineScratch*,      \
                                                         const NoFaults&);                                     \
  SPEC template RunResult run_engine_build<LeanParts, OBSERVER, NoFaults>(const Scenario&, std::uint64_t,      \
                                                                          std::uint64_t, const EngineOptions&, \
                                                                          OBSERVER&, EngineScratch*, const NoFaults&);

namespace retrylab::montecarlo::detail {
RETRYLAB_TEST_ENGINE(extern, testing::TraceObserver)
}  // namespace retrylab::montecarlo::detail
