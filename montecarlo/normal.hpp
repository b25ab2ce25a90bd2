#pragma once
// A standard normal draw from a Stream: Box–Muller, the cosine half, z = sqrt(−2 ln u1)·cos(2π u2)
// with u1, u2 two uniforms in (0, 1) drawn in that order. The one copy every simulator uses
// (lognormal service times), so one stream gives the same z in each.
#include <cmath>
#include <numbers>

#include "montecarlo/random.hpp"

namespace retrylab::montecarlo {

inline double standard_normal(Stream& s) noexcept {
  const double u1 = s.uniform(), u2 = s.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace retrylab::montecarlo
