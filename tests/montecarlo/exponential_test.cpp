// The exponential ziggurat (montecarlo/exponential.hpp): its layer table, and the distribution it
// draws, on fixed seeds. Each statistical check is two-sided at α = 1e-4; the four checks of a
// seed together fail by chance with probability below 4e-4, and the seeds are fixed, so a failure
// is a change in the draws, never chance on the day.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "montecarlo/exponential.hpp"

namespace mc = retrylab::montecarlo;

namespace {

constexpr double z_1e4 = 3.8906;   // two-sided normal quantile at α = 1e-4
constexpr double ks_1e4 = 2.2252;  // Kolmogorov's asymptotic critical value at α = 1e-4: √(ln(2/α)/2)

std::vector<double> draws(std::uint64_t key, std::int64_t n, std::uint64_t* used = nullptr) {
  mc::Stream s(key, mc::StreamId::arrivals, 0);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (double& x : out) x = mc::standard_exponential_ziggurat(s);
  if (used) *used = s.draws();
  return out;
}

// The layers are built from R and V so that every layer but the top has area V by construction;
// the top one, [0, x_255] × [f(x_255), 1], has area V only when R and V are the right pair. A digit
// wrong in either moves it by far more than the tolerance.
TEST(ExponentialZiggurat, TopLayerHasTheAreaOfEveryOther) {
  const auto& z = mc::detail::exp_ziggurat_table;
  const double top = z.x[255] * (1.0 - std::exp(-z.x[255]));
  EXPECT_NEAR(top / mc::detail::ExpZiggurat::v, 1.0, 1e-11);
  EXPECT_EQ(z.x[1], mc::detail::ExpZiggurat::r);
  EXPECT_EQ(z.x[256], 0.0);
  for (int i = 0; i < 256; ++i) EXPECT_LT(z.x[i + 1], z.x[i]) << i;
}

// n = 400,000 draws: Kolmogorov–Smirnov against 1 − e^(−x); the mean (sd 1/√n) and second moment
// E[x²] = 2 (sd √(20/n), as E[x⁴] = 24); the count beyond R, Binomial(n, e^(−R)) with mean 181.7.
// Accepting every wedge point, or dropping R from the tail, fails these (checked).
TEST(ExponentialZiggurat, DrawsAreExponential) {
  const std::int64_t n = 400000;
  const double nn = static_cast<double>(n);
  for (std::uint64_t key : {3u, 17u}) {
    SCOPED_TRACE(key);
    std::vector<double> xs = draws(key, n);
    double m1 = 0.0, m2 = 0.0;
    std::int64_t beyond = 0;
    for (double x : xs) {
      ASSERT_GT(x, 0.0);
      ASSERT_TRUE(std::isfinite(x));
      m1 += x;
      m2 += x * x;
      beyond += x > mc::detail::ExpZiggurat::r;
    }
    m1 /= nn;
    m2 /= nn;
    EXPECT_NEAR(m1, 1.0, z_1e4 / std::sqrt(nn));
    EXPECT_NEAR(m2, 2.0, z_1e4 * std::sqrt(20.0 / nn));
    const double p = std::exp(-mc::detail::ExpZiggurat::r);
    EXPECT_NEAR(static_cast<double>(beyond), nn * p, z_1e4 * std::sqrt(nn * p * (1.0 - p)));
    std::sort(xs.begin(), xs.end());
    double d = 0.0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double f = -std::expm1(-xs[i]);
      d = std::max({d, f - static_cast<double>(i) / nn, static_cast<double>(i + 1) / nn - f});
    }
    EXPECT_LT(std::sqrt(nn) * d, ks_1e4);
  }
}

// One 64-bit draw per try, and 97.8% of first tries are accepted: a variate costs a little over one
// draw. (The rare path's extra uniform and retries add about 0.03 draws.)
TEST(ExponentialZiggurat, AboutOneDrawPerVariate) {
  std::uint64_t used = 0;
  const std::int64_t n = 100000;
  draws(5, n, &used);
  EXPECT_GE(used, static_cast<std::uint64_t>(n));
  EXPECT_LT(static_cast<double>(used), 1.05 * static_cast<double>(n));
}

TEST(ExponentialZiggurat, SameStreamSameDraws) {
  EXPECT_EQ(draws(11, 1000), draws(11, 1000));
  EXPECT_NE(draws(11, 1000), draws(12, 1000));
}

}  // namespace
