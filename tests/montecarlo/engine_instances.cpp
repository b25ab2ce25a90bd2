// The tests' event loops (engine_instances.hpp), one copy for every montecarlo test program: every
// model, tier and build over the one observer type TestObserver, whichever recorder a run uses.
#include "tests/montecarlo/engine_instances.hpp"

namespace retrylab::montecarlo::detail {
RETRYLAB_TEST_ENGINE(, testing::TestObserver)
}  // namespace retrylab::montecarlo::detail

namespace retrylab::montecarlo::testing {

NoneRun run_none_full(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                      const detail::EngineOptions& options, ServerTrace& trace) {
  TestObserver observer(trace);
  detail::Engine<Model::none, detail::FullParts, TestObserver> engine(s, seed, run_index, options, observer);
  NoneRun out;
  out.result = engine.run();
  out.client_slots_in_use = engine.client_slots_in_use();
  return out;
}

}  // namespace retrylab::montecarlo::testing
