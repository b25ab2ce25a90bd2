#include "analytic/occ.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

void check_occ(const OccFree& m) {
  if (!(m.rate >= 0.0) || !std::isfinite(m.rate))
    throw InputError("rate", fmt::format("must be a finite number >= 0 (got {})", m.rate));
}

double goodput(const OccFree& m) {
  check_occ(m);
  return m.rate / (1.0 + m.rate);
}

double success_probability(const OccFree& m) {
  check_occ(m);
  return 1.0 / (1.0 + m.rate);
}

}  // namespace retrylab
