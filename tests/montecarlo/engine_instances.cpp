// TraceObserver's event loops (engine_instances.hpp), one copy for every montecarlo test program.
#include "tests/montecarlo/engine_instances.hpp"

namespace retrylab::montecarlo::detail {
RETRYLAB_TEST_ENGINE(, testing::TraceObserver)
}  // namespace retrylab::montecarlo::detail
