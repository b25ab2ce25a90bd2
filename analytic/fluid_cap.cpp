#include "analytic/fluid_cap.hpp"

#include <fmt/format.h>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <limits>

#include "analytic/aloha.hpp"
#include "analytic/error.hpp"

namespace retrylab {

void check_fluid_cap(const FluidCap& f) {
  if (f.clients < 1 || f.clients > 1'000'000'000)
    throw InputError("clients", fmt::format("must be an integer in [1, 1000000000] (got {})", f.clients));
  if (!(f.rate >= 0.0) || !(f.rate < aloha_max_goodput()))
    throw InputError("rate", fmt::format("must be in [0, 1/(2e)) = [0, {}) (got {})", aloha_max_goodput(), f.rate));
  const Strategy s = f.backoff.strategy;
  if (s == Strategy::none || s == Strategy::window)
    throw InputError("strategy", fmt::format("must be nojitter, full, equal or decorrelated: {} has no cap to "
                                             "tune (got {})",
                                             to_string(s), to_string(s)));
  if (!(f.backoff.base > 0.0) || !std::isfinite(f.backoff.base))
    throw InputError("base", fmt::format("must be a finite number > 0 (got {})", f.backoff.base));
}

double fluid_upper_root(double rate) {
  if (rate == 0.0) return std::numeric_limits<double>::infinity();
  return aloha_inverse(rate).high;  // −W−1(−2λ)/2; aloha_inverse checks the range and names "goodput"
}

double mean_sleep_at_cap(const Backoff& backoff, double cap) {
  const double b = backoff.base, c = cap;
  switch (backoff.strategy) {
    case Strategy::nojitter: return c;
    case Strategy::full: return 0.5 * c;
    case Strategy::equal: return 0.75 * c;
    case Strategy::decorrelated: return (5.0 * c * c - b * b) / (2.0 * (3.0 * c - b));
    case Strategy::none: return 0.0;
    case Strategy::window: return 0.5 * backoff.window;
    case Strategy::memoryless: return 0.5 * c;
  }
  return 0.0;
}

FluidCapEstimate fluid_cap(const FluidCap& f) {
  check_fluid_cap(f);
  const double g_star = fluid_upper_root(f.rate);
  const double b = f.backoff.base;
  const double need = std::isinf(g_star) ? -1.0 : static_cast<double>(f.clients) / (g_star - f.rate) - 1.0;
  if (mean_sleep_at_cap(f.backoff, b) >= need) return {g_star, need, b};
  // m(c) is increasing and at least c/2 for every strategy here, so [b, max(2·need, b)·2] brackets the root.
  const double hi = 2.0 * std::max(2.0 * need, b);
  auto excess = [&](double c) { return mean_sleep_at_cap(f.backoff, c) - need; };
  boost::uintmax_t iterations = 200;
  const auto bracket =
      boost::math::tools::toms748_solve(excess, b, hi, boost::math::tools::eps_tolerance<double>(52), iterations);
  // The upper end of the final bracket: the least cap that satisfies m(c) >= m* to within one ulp.
  return {g_star, need, bracket.second};
}

}  // namespace retrylab
