#pragma once
// One run on the build and model a scenario takes (internal; montecarlo/engine.hpp is the core,
// montecarlo/builds.hpp the builds). The plain tier unless a field the original loop lacks is set
// (has_server_features) or the full tier is asked for; then the lean build when every component
// the scenario turns on is in it (and EngineOptions::lean), else the full build.
#include <stdexcept>

#include "montecarlo/engine.hpp"

namespace retrylab::montecarlo::detail {

// One run on build P (the plain build needs !has_server_features(s)). A full-tier build given a
// scenario that turns on a component it lacks refuses it (std::logic_error) rather than running it
// without the component.
template <class P, class Observer, class Faults = NoFaults>
RunResult run_engine_build(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
                           Observer& observer, EngineScratch* scratch = nullptr, const Faults& faults = {}) {
  if constexpr (!P::empty) {
    if (!P::hosts(s, static_cast<FullParts*>(nullptr)))
      throw std::logic_error("the scenario turns on a component this build of the event loop lacks");
  }
  switch (s.model) {
    case Model::collision:
      return Engine<Model::collision, P, Observer, Faults>(s, seed, run_index, options, observer, scratch, faults)
          .run();
    case Model::free:
      return Engine<Model::free, P, Observer, Faults>(s, seed, run_index, options, observer, scratch, faults).run();
    case Model::shared:
      return Engine<Model::shared, P, Observer, Faults>(s, seed, run_index, options, observer, scratch, faults).run();
    case Model::ps:
      return Engine<Model::ps, P, Observer, Faults>(s, seed, run_index, options, observer, scratch, faults).run();
    case Model::none:
      if constexpr (!P::empty)
        return Engine<Model::none, P, Observer, Faults>(s, seed, run_index, options, observer, scratch, faults).run();
      break;  // has_server_features: never on the plain tier
  }
  return {};
}

// Whether a run of s takes the full tier, and then whether its lean build.
inline bool full_tier(const Scenario& s, const EngineOptions& options) {
  return options.full_tier || has_server_features(s);
}
inline bool lean_build(const Scenario& s, const EngineOptions& options) {
  return full_tier(s, options) && options.lean && lean_applies(s);
}

// One run on the tier and build given.
template <class Observer, class Faults = NoFaults>
RunResult run_engine_chosen(bool full, bool lean, const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                            const EngineOptions& options, Observer& observer, EngineScratch* scratch,
                            const Faults& faults = {}) {
  if (!full) return run_engine_build<PlainParts>(s, seed, run_index, options, observer, scratch, faults);
  return lean ? run_engine_build<LeanParts>(s, seed, run_index, options, observer, scratch, faults)
              : run_engine_build<FullParts>(s, seed, run_index, options, observer, scratch, faults);
}

// One run on the tier and build the scenario and options choose; storage lent when scratch is given.
template <class Observer, class Faults = NoFaults>
RunResult run_engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
                     Observer& observer, EngineScratch* scratch = nullptr, const Faults& faults = {}) {
  return run_engine_chosen(full_tier(s, options), lean_build(s, options), s, seed, run_index, options, observer,
                           scratch, faults);
}

// The event loops without an observer are compiled once, in the library (simulate.cpp defines
// them): every other file that runs the engine with NullObserver (advise, the tests, the benchmarks)
// links to that copy instead of compiling the whole loop again (each is about a minute of compiler
// time, several under the sanitizers). Same code, same numbers.
#define RETRYLAB_NULL_OBSERVER_ENGINES(SPEC, FAULTS)                                                                  \
  SPEC template RunResult run_engine<NullObserver, FAULTS>(const Scenario&, std::uint64_t, std::uint64_t,             \
                                                           const EngineOptions&, NullObserver&, EngineScratch*,       \
                                                           const FAULTS&);                                            \
  SPEC template RunResult run_engine_chosen<NullObserver, FAULTS>(bool, bool, const Scenario&, std::uint64_t,         \
                                                                  std::uint64_t, const EngineOptions&, NullObserver&, \
                                                                  EngineScratch*, const FAULTS&);                     \
  SPEC template RunResult run_engine_build<PlainParts, NullObserver, FAULTS>(                                         \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, NullObserver&, EngineScratch*,             \
      const FAULTS&);                                                                                                 \
  SPEC template RunResult run_engine_build<LeanParts, NullObserver, FAULTS>(                                          \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, NullObserver&, EngineScratch*,             \
      const FAULTS&);                                                                                                 \
  SPEC template RunResult run_engine_build<FullParts, NullObserver, FAULTS>(                                          \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, NullObserver&, EngineScratch*,             \
      const FAULTS&);

RETRYLAB_NULL_OBSERVER_ENGINES(extern, NoFaults)

}  // namespace retrylab::montecarlo::detail
