#include "validation/trace/power.hpp"

#include <fmt/format.h>
#include <boost/math/distributions/poisson.hpp>
#include <cmath>
#include <limits>

#include "validation/statistics.hpp"

namespace retrylab::validation::trace {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double lower_tail(double c, double mu) { return boost::math::cdf(boost::math::poisson(mu), c); }
double upper_tail(double c, double mu) {  // P(X >= c)
  return c <= 0 ? 1.0 : boost::math::cdf(boost::math::complement(boost::math::poisson(mu), c - 1));
}

// The smallest x in [lo, hi] with ok(x), for ok monotone (false then true), to a relative 1e-4.
template <class F>
double bisect(double lo, double hi, F ok) {
  for (int i = 0; i < 200 && hi - lo > 1e-4 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The relative rate change a Poisson count test of mean mu at level alpha detects with
// probability >= power, upwards and downwards (NaN downwards when no count is low enough).
// The test rejects a count c with P(X >= c) < alpha/2 or P(X <= c) < alpha/2 (poisson_two_sided_p).
std::pair<double, double> count_power(double mu, double alpha, double power) {
  const double a = alpha / 2;
  // hi: the smallest rejected count above mu (integer bisection between a kept and a rejected one)
  double kept = std::floor(mu), hi = std::ceil(mu) + 1;
  while (upper_tail(hi, mu) >= a) kept = hi, hi += 1 + std::ceil(std::sqrt(mu));
  while (hi - kept > 1) {
    const double mid = std::floor(0.5 * (kept + hi));
    (upper_tail(mid, mu) < a ? hi : kept) = mid;
  }
  const double up = bisect(0.0, 100.0, [&](double d) { return upper_tail(hi, mu * (1 + d)) >= power; });
  if (lower_tail(0, mu) >= a) return {up, nan};
  // lo: the largest rejected count below mu
  double lo = 0;
  kept = std::floor(mu);
  while (kept - lo > 1) {
    const double mid = std::floor(0.5 * (kept + lo));
    (lower_tail(mid, mu) < a ? lo : kept) = mid;
  }
  const double down = bisect(0.0, 1.0, [&](double d) { return lower_tail(lo, mu * (1 - d)) >= power; });
  return {up, down};
}

// What a deviation of size d means for this kind of check.
std::string what(const PowerBasis& b, double d, double power) {
  switch (b.kind) {
    case PowerBasis::Kind::ks:
      return fmt::format("a law whose CDF is off by >= {:.3g} (sup distance) is caught with probability >= {}", d,
                         power);
    case PowerBasis::Kind::mean:
      return fmt::format("a mean off by >= {:.3g}% of the closed form is caught with probability >= {}", 100 * d,
                         power);
    case PowerBasis::Kind::count:
      return fmt::format("a rate off by >= {:.3g}% is caught with probability >= {}", 100 * d, power);
    case PowerBasis::Kind::correlation:
      return fmt::format("a correlation >= {:.3g} between successive sleeps is caught with probability >= {}", d,
                         power);
    case PowerBasis::Kind::none: return "";
  }
  return "";
}

}  // namespace

double poisson_two_sided_p(std::int64_t count, double mu) {
  if (!(mu > 0)) return count == 0 ? 1.0 : 0.0;
  const double c = static_cast<double>(count);
  return std::min(1.0, 2.0 * std::min(lower_tail(c, mu), upper_tail(c, mu)));
}

double detectable(const PowerBasis& b, double alpha, double power) {
  switch (b.kind) {
    case PowerBasis::Kind::ks: {
      if (b.n < 1) return nan;
      const double n = static_cast<double>(b.n);
      return ks_critical(b.n, alpha) + std::sqrt(std::log(2.0 / (1.0 - power)) / (2.0 * n));
    }
    case PowerBasis::Kind::mean: {
      if (b.n < 2 || !(std::fabs(b.expect) > 0)) return nan;
      const double df = static_cast<double>(b.n - 1);
      return (t_two_sided(alpha, df) + t_two_sided(2.0 * (1.0 - power), df)) * b.se / std::fabs(b.expect);
    }
    case PowerBasis::Kind::count: {
      if (!(b.expect > 0)) return nan;
      const auto [up, down] = count_power(b.expect, alpha, power);
      return std::isnan(down) ? up : std::max(up, down);
    }
    case PowerBasis::Kind::correlation:
      if (b.n < 1) return nan;
      return (z_two_sided(alpha) + z_two_sided(2.0 * (1.0 - power))) / std::sqrt(static_cast<double>(b.n));
    case PowerBasis::Kind::none: return nan;
  }
  return nan;
}

std::string power_text(const PowerBasis& b, double d, double alpha, double power) {
  if (std::isnan(d)) return "";
  const std::string at = b.kind == PowerBasis::Kind::count
                             ? fmt::format(" ({:.6g} expected, alpha = {:.2g})", b.expect, alpha)
                             : fmt::format(" (n = {}, alpha = {:.2g})", b.n, alpha);
  return what(b, d, power) + at;
}

}  // namespace retrylab::validation::trace
