#include "analytic/stats.hpp"

#include <fmt/format.h>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"

namespace retrylab {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

void check_level(double level) {
  if (!(level > 0.0 && level < 1.0)) throw InputError("level", fmt::format("must be in (0, 1) (got {})", level));
}
}  // namespace

void MeanAccumulator::add(double x) noexcept {
  ++n_;
  const double d = x - mean_;
  mean_ += d / static_cast<double>(n_);
  m2_ += d * (x - mean_);
}

double MeanAccumulator::mean() const noexcept { return n_ > 0 ? mean_ : nan; }

double MeanAccumulator::variance() const noexcept { return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : nan; }

MeanSummary MeanAccumulator::summary(double level) const {
  const double sd = std::sqrt(variance());
  return {mean(), sd, n_, student_t_interval(mean(), sd, n_, level)};
}

MeanSummary summarize_mean(std::span<const double> xs, double level) {
  MeanAccumulator acc;
  for (double x : xs) acc.add(x);
  return acc.summary(level);
}

Interval student_t_interval(double mean, double sd, std::int64_t n, double level) {
  check_level(level);
  if (n < 2 || !std::isfinite(sd)) return {nan, nan};
  if (sd == 0.0) return {mean, mean};
  const boost::math::students_t t(static_cast<double>(n - 1));
  const double q = boost::math::quantile(t, 0.5 + level / 2.0);
  const double half = q * sd / std::sqrt(static_cast<double>(n));
  return {mean - half, mean + half};
}

Interval wilson_interval(std::int64_t count, std::int64_t n, double level) {
  check_level(level);
  if (n <= 0) return {nan, nan};
  if (count < 0 || count > n) throw InputError("count", fmt::format("must be in [0, n] (got {} of {})", count, n));
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + level / 2.0);
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(count) / nn;
  const double z2 = z * z;
  const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  // At count 0 (n) the lower (upper) end is exactly 0 (1): centre and half are then equal, and only
  // rounding would leave a residue such as 1e-19.
  return {count == 0 ? 0.0 : std::max(0.0, centre - half), count == n ? 1.0 : std::min(1.0, centre + half)};
}

Interval clopper_pearson_interval(std::int64_t count, std::int64_t n, double level) {
  check_level(level);
  if (n <= 0) return {nan, nan};
  if (count < 0 || count > n) throw InputError("count", fmt::format("must be in [0, n] (got {} of {})", count, n));
  const double alpha = 1.0 - level;
  const double k = static_cast<double>(count);
  const double nn = static_cast<double>(n);
  const double lo =
      count == 0 ? 0.0 : boost::math::quantile(boost::math::beta_distribution<>(k, nn - k + 1), alpha / 2);
  const double hi =
      count == n ? 1.0 : boost::math::quantile(boost::math::beta_distribution<>(k + 1, nn - k), 1 - alpha / 2);
  return {lo, hi};
}

ProportionSummary summarize_proportion(std::int64_t count, std::int64_t n, double level) {
  return {count, n > 0 ? static_cast<double>(count) / static_cast<double>(n) : nan, n,
          wilson_interval(count, n, level)};
}

}  // namespace retrylab
