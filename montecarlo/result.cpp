#include "montecarlo/result.hpp"

#include <cmath>

namespace retrylab::montecarlo {

std::string_view to_string(StopReason r) noexcept {
  constexpr std::string_view names[] = {"finished", "drained", "collapsed", "horizon"};
  return names[static_cast<int>(r)];
}

// summarize() loops over the metric registry: montecarlo/metrics.cpp.

}  // namespace retrylab::montecarlo
