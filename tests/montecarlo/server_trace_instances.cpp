// ServerTrace's event loops (engine_instances.hpp), one copy for every montecarlo test program; in a
// file of its own so that the two observers' loops compile side by side on two cores.
#include "tests/montecarlo/engine_instances.hpp"

namespace retrylab::montecarlo::detail {
RETRYLAB_TEST_ENGINE(, testing::ServerTrace)
}  // namespace retrylab::montecarlo::detail

namespace retrylab::montecarlo::testing {

NoneRun run_none_full(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                      const detail::EngineOptions& options, ServerTrace& trace) {
  detail::Engine<Model::none, detail::FullParts, ServerTrace> engine(s, seed, run_index, options, trace);
  NoneRun out;
  out.result = engine.run();
  out.client_slots_in_use = engine.client_slots_in_use();
  return out;
}

}  // namespace retrylab::montecarlo::testing
