#include "analytic/sleep.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"

namespace retrylab {

namespace {}

void check_sleep(const Backoff& backoff, int retry) {
  check_backoff(backoff);
  if (retry < 1 || retry > max_sleep_retry)
    throw InputError("retry", fmt::format("must be an integer in [1, {}] (got {})", max_sleep_retry, retry));
  const bool exponential = backoff.strategy == Strategy::nojitter || backoff.strategy == Strategy::full ||
                           backoff.strategy == Strategy::equal || backoff.strategy == Strategy::memoryless;
  if (exponential && !std::isfinite(window_width(backoff, retry)))
    throw InputError("retry", fmt::format("is too large for cap none: base·2^(retry−1) overflows (got {})", retry));
}

SleepDistribution::SleepDistribution(const Backoff& backoff, int retry) : backoff_(backoff), retry_(retry) {
  check_sleep(backoff, retry);
  switch (backoff.strategy) {
    case Strategy::none: lo_ = hi_ = 0.0; break;
    case Strategy::nojitter: lo_ = hi_ = window_width(backoff, retry); break;
    case Strategy::full:
      lo_ = 0.0;
      hi_ = window_width(backoff, retry);
      break;
    case Strategy::equal:
      hi_ = window_width(backoff, retry);
      lo_ = 0.5 * hi_;
      break;
    case Strategy::window:
      lo_ = 0.0;
      hi_ = backoff.window;
      break;
    case Strategy::memoryless:
      exp_mean_ = 0.5 * window_width(backoff, retry);
      lo_ = 0.0;
      hi_ = std::numeric_limits<double>::infinity();
      break;
    case Strategy::decorrelated:
      decorrelated_.emplace(backoff, retry);
      lo_ = decorrelated_->lower();
      hi_ = decorrelated_->upper();
      break;
  }
}

double SleepDistribution::cdf(double t) const {
  if (std::isnan(t)) throw InputError("t", "must be a number (got nan)");
  if (decorrelated_) return decorrelated_->cdf(t);
  if (exp_mean_ > 0.0) return t <= 0.0 ? 0.0 : -std::expm1(-t / exp_mean_);
  if (t < lo_) return 0.0;
  if (t >= hi_) return 1.0;
  return (t - lo_) / (hi_ - lo_);
}

double SleepDistribution::quantile(double q) const {
  if (!(q >= 0.0 && q <= 1.0)) throw InputError("quantile", fmt::format("must be in [0, 1] (got {})", q));
  if (decorrelated_) return decorrelated_->quantile(q);
  if (exp_mean_ > 0.0) return -exp_mean_ * std::log1p(-q);  // q = 1: +inf, the top of the support
  // lo + q·(hi − lo) is monotone in q under rounding (a convex combination is not); the min keeps
  // q = 1 at hi exactly.
  if (lo_ == hi_) return lo_;
  return std::min(hi_, lo_ + q * (hi_ - lo_));
}

double SleepDistribution::mean() const {
  if (decorrelated_) return decorrelated_->mean();
  if (exp_mean_ > 0.0) return exp_mean_;
  return 0.5 * (lo_ + hi_);
}

double SleepDistribution::lower() const { return lo_; }
double SleepDistribution::upper() const { return hi_; }

}  // namespace retrylab
