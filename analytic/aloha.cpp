#include "analytic/aloha.hpp"

#include <fmt/format.h>
#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/lambert_w.hpp>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"

namespace retrylab {

void check_aloha(const PureAloha& m) {
  if (!(m.rate >= 0.0) || !std::isfinite(m.rate))
    throw InputError("rate", fmt::format("must be a finite number >= 0 (got {})", m.rate));
}

double goodput(const PureAloha& m) {
  check_aloha(m);
  return m.rate * std::exp(-2.0 * m.rate);
}

double success_probability(const PureAloha& m) {
  check_aloha(m);
  return std::exp(-2.0 * m.rate);
}

double aloha_argmax() noexcept { return 0.5; }

// 1/(2e) from Boost's correctly rounded e^−1; halving is exact, so −2·S_max is exactly −e^−1, the
// branch point Lambert W accepts.
double aloha_max_goodput() noexcept { return 0.5 * boost::math::constants::exp_minus_one<double>(); }

void check_aloha_goodput(double goodput) {
  if (!(goodput >= 0.0) || !(goodput <= aloha_max_goodput()))
    throw InputError("goodput", fmt::format("must be in [0, 1/(2e)] = [0, {}] (got {})", aloha_max_goodput(), goodput));
}

AlohaInverse aloha_inverse(double goodput) {
  check_aloha_goodput(goodput);
  const double z = -2.0 * goodput;
  const double low = -0.5 * boost::math::lambert_w0(z);
  const double high = goodput == 0.0 ? std::numeric_limits<double>::infinity() : -0.5 * boost::math::lambert_wm1(z);
  return {low, high};
}

}  // namespace retrylab
