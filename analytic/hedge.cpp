#include "analytic/hedge.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

void check_hedge(const HedgedOnce& h) {
  if (!(h.delay >= 0.0) || !std::isfinite(h.delay))
    throw InputError("delay", fmt::format("must be a finite number >= 0 (got {})", h.delay));
  if (!(h.service > 0.0) || !std::isfinite(h.service))
    throw InputError("service", fmt::format("must be a finite number > 0 (got {})", h.service));
}

double hedge_mean_latency(const HedgedOnce& h) {
  check_hedge(h);
  return h.service - h.service * std::exp(-h.delay / h.service) / 2.0;
}

double hedge_survival(const HedgedOnce& h, double t) {
  check_hedge(h);
  if (std::isnan(t)) throw InputError("t", "must be a number (got NaN)");
  if (t < 0.0) return 1.0;
  const double mu = 1.0 / h.service;
  return t < h.delay ? std::exp(-mu * t) : std::exp(-mu * (2.0 * t - h.delay));
}

double hedge_quantile(const HedgedOnce& h, double q) {
  check_hedge(h);
  if (!(q >= 0.0) || !(q < 1.0)) throw InputError("quantile", fmt::format("must be in [0, 1) (got {})", q));
  const double mu = 1.0 / h.service;
  const double tail = -std::log1p(-q);  // −ln(1 − q)
  if (tail < mu * h.delay) return tail / mu;
  return (h.delay + tail / mu) / 2.0;
}

}  // namespace retrylab
