// The event loops of the entry points that watch a run (trace.cpp, series.cpp, run_detail.cpp), for
// their shared observer RunObserver, compiled once here (montecarlo/observed_run.hpp).
#include "montecarlo/observed_run.hpp"

namespace retrylab::montecarlo::detail {
RETRYLAB_OBSERVED_ENGINES()
}  // namespace retrylab::montecarlo::detail
