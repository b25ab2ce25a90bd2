#pragma once
// The event loops the montecarlo tests share, compiled once in montecarlo_test_engines instead of in
// each test file that runs the engine: run_engine for one (observer, faults) pair instantiates every
// model, tier and build, about a minute of compiler time at -O3 (several under the sanitizers). The
// tests observe a run with one of two observers: trace.hpp's TraceObserver (client side; a run with
// it may take the one-event shortcut) and server_trace.hpp's ServerTrace (server view too; never the
// shortcut). A test file includes this header and links montecarlo_test_engines, so its calls with
// them link to that one copy: engine_instances.cpp defines TraceObserver's, server_trace_instances.cpp
// ServerTrace's. The loops without an observer (NullObserver) are the library's own copy
// (montecarlo/run_engine.hpp). Same code, same numbers: only where the instantiation lives changes.
#include <cstddef>
#include <cstdint>

#include "montecarlo/faults.hpp"
#include "montecarlo/run_engine.hpp"
#include "tests/montecarlo/server_trace.hpp"
#include "tests/montecarlo/trace.hpp"

// SPEC is `extern` (here) or empty (the definitions). Every entry point a test calls with OBSERVER:
// run_engine (the build the scenario takes) and each build by name.
#define RETRYLAB_TEST_ENGINE(SPEC, OBSERVER)                                                                           \
  SPEC template RunResult run_engine<OBSERVER, NoFaults>(const Scenario&, std::uint64_t, std::uint64_t,                \
                                                         const EngineOptions&, OBSERVER&, EngineScratch*,              \
                                                         const NoFaults&);                                             \
  SPEC template RunResult run_engine_chosen<OBSERVER, NoFaults>(bool, bool, const Scenario&, std::uint64_t,            \
                                                                std::uint64_t, const EngineOptions&, OBSERVER&,        \
                                                                EngineScratch*, const NoFaults&);                      \
  SPEC template RunResult run_engine_build<PlainParts, OBSERVER, NoFaults>(                                            \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, OBSERVER&, EngineScratch*,                  \
      const NoFaults&);                                                                                                \
  SPEC template RunResult run_engine_build<LeanParts, OBSERVER, NoFaults>(const Scenario&, std::uint64_t,              \
                                                                          std::uint64_t, const EngineOptions&,         \
                                                                          OBSERVER&, EngineScratch*, const NoFaults&); \
  SPEC template RunResult run_engine_build<FullParts, OBSERVER, NoFaults>(const Scenario&, std::uint64_t,              \
                                                                          std::uint64_t, const EngineOptions&,         \
                                                                          OBSERVER&, EngineScratch*, const NoFaults&);

namespace retrylab::montecarlo::detail {
RETRYLAB_TEST_ENGINE(extern, testing::TraceObserver)
RETRYLAB_TEST_ENGINE(extern, testing::ServerTrace)
}  // namespace retrylab::montecarlo::detail

namespace retrylab::montecarlo::testing {

// One run of s on the `none` model's full build, whatever s.model says (the engine of that model,
// type and all, as a test that names Engine<Model::none, FullParts, …> builds it), observed by
// `trace`; with the engine's client slots still in use at the end (0 once every request has ended).
struct NoneRun {
  RunResult result;
  std::size_t client_slots_in_use = 0;
};
NoneRun run_none_full(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                      const detail::EngineOptions& options, ServerTrace& trace);

}  // namespace retrylab::montecarlo::testing
