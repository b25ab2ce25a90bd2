#include "analytic/ps.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

void check_ps(const ProcessorSharing& m) {
  if (!(m.load >= 0.0) || !(m.load < 1.0)) throw InputError("load", fmt::format("must be in [0, 1) (got {})", m.load));
  if (!(m.service > 0.0) || !std::isfinite(m.service))
    throw InputError("service", fmt::format("must be a finite number > 0 (got {})", m.service));
}

double mean_time(const ProcessorSharing& m) {
  check_ps(m);
  return m.service / (1.0 - m.load);
}

double mean_number(const ProcessorSharing& m) {
  check_ps(m);
  return m.load / (1.0 - m.load);
}

}  // namespace retrylab
