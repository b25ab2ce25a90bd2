#pragma once
// The Faults policy (montecarlo/faults.hpp) of the library's entry points, the sources that run the
// event loop (simulate.cpp, and observed_run.cpp for trace.cpp, series.cpp, run_detail.cpp):
// NoFaults; the planted-fault library compiles the same sources with
// RETRYLAB_ENGINE_FAULTS=PlantedFaults (montecarlo/CMakeLists.txt), so the real library never
// instantiates the engine with a planted fault.
#include "montecarlo/faults.hpp"

#ifndef RETRYLAB_ENGINE_FAULTS
#define RETRYLAB_ENGINE_FAULTS NoFaults
#endif

namespace retrylab::montecarlo::detail {

using EntryFaults = RETRYLAB_ENGINE_FAULTS;

// The policy for this process: the fault RETRYLAB_FAULT names in the planted-fault library (an
// unknown name throws InputError), none in the real one (which never reads the variable).
template <class F = EntryFaults>
F entry_faults() {
  if constexpr (F::planted) {
    return F(fault_from_env());
  } else {
    return F{};
  }
}

}  // namespace retrylab::montecarlo::detail
