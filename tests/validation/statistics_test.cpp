// Unit tests of validation/statistics: the numbers the gate's verdicts rest on. Every expected value
// names its source; none is taken from this implementation's own output.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "analytic/error.hpp"
#include "validation/statistics.hpp"

namespace statistics_test {

namespace rv = retrylab::validation;

TEST(Statistics, NormalTwoSidedQuantiles) {
  // Standard normal quantiles (Abramowitz & Stegun 1964, Table 26.5; NIST/SEMATECH e-Handbook 1.3.6.7.1):
  // Φ^(−1)(0.975) = 1.959963984540054, Φ^(−1)(0.9995) = 3.290526731491926.
  EXPECT_NEAR(rv::z_two_sided(0.05), 1.959963984540054, 1e-12);
  EXPECT_NEAR(rv::z_two_sided(1e-3), 3.290526731491926, 1e-12);
}

TEST(Statistics, StudentTwoSidedQuantiles) {
  // Student-t critical values (NIST/SEMATECH e-Handbook 1.3.6.7.2, upper 0.025 point):
  // df = 10: 2.228, df = 30: 2.042 (the table's 3 decimals).
  EXPECT_NEAR(rv::t_two_sided(0.05, 10), 2.228, 5e-4);
  EXPECT_NEAR(rv::t_two_sided(0.05, 30), 2.042, 5e-4);
  // The t multiplier exceeds z and tends to it as df grows.
  EXPECT_GT(rv::t_two_sided(1e-5, 31), rv::z_two_sided(1e-5));
  EXPECT_NEAR(rv::t_two_sided(1e-5, 1e7), rv::z_two_sided(1e-5), 1e-5);
}

// P(|T| > t) in closed form where Student's t has one: df = 1 is Cauchy, P(|T| > t) = 1 − (2/π)·atan t;
// df = 2: P(|T| > t) = 1 − t/√(t² + 2). And the p-value inverts the quantile (Boost both ways).
TEST(Statistics, StudentTwoSidedPValues) {
  const double eps = std::numeric_limits<double>::epsilon();
  EXPECT_NEAR(rv::t_two_sided_p(1.0, 1), 0.5, 8 * eps);
  EXPECT_NEAR(rv::t_two_sided_p(3.0, 1), 1.0 - 2.0 / std::numbers::pi * std::atan(3.0), 8 * eps);
  EXPECT_NEAR(rv::t_two_sided_p(2.0, 2), 1.0 - 2.0 / std::sqrt(6.0), 8 * eps);
  EXPECT_EQ(rv::t_two_sided_p(0.0, 5), 1.0);
  EXPECT_EQ(rv::t_two_sided_p(-2.0, 2), rv::t_two_sided_p(2.0, 2));  // two-sided: |t|
  EXPECT_EQ(rv::t_two_sided_p(std::numeric_limits<double>::infinity(), 3), 0.0);
  for (double alpha : {0.05, 1e-3, 1e-8})
    for (double df : {1.0, 4.0, 63.0})
      EXPECT_NEAR(rv::t_two_sided_p(rv::t_two_sided(alpha, df), df) / alpha, 1.0, 1e-9);
  EXPECT_THROW(rv::t_two_sided_p(1.0, 0.5), retrylab::InputError);
  EXPECT_THROW(rv::t_two_sided_p(std::nan(""), 3), retrylab::InputError);
}

TEST(Statistics, BonferroniSplit) {
  EXPECT_DOUBLE_EQ(rv::bonferroni_alpha(1e-3, 29), 1e-3 / 29);
  EXPECT_DOUBLE_EQ(rv::bonferroni_alpha(0.05, 1), 0.05);
  EXPECT_THROW(rv::bonferroni_alpha(1e-3, 0), retrylab::InputError);
  EXPECT_THROW(rv::bonferroni_alpha(0.0, 3), retrylab::InputError);
  EXPECT_THROW(rv::bonferroni_alpha(1.0, 3), retrylab::InputError);
  EXPECT_THROW(rv::z_two_sided(std::nan("")), retrylab::InputError);
}

TEST(Statistics, KolmogorovLimitDistribution) {
  // Smirnov (1948), "Table for estimating the goodness of fit of empirical distributions", Ann. Math.
  // Statist. 19: asymptotic critical values K^(−1)(0.95) = 1.3581, K^(−1)(0.99) = 1.6276,
  // K^(−1)(0.999) = 1.9495 (4 decimals, so 1e-4 in probability is the table's own resolution).
  EXPECT_NEAR(rv::kolmogorov_cdf(1.3581), 0.95, 1e-4);
  EXPECT_NEAR(rv::kolmogorov_cdf(1.6276), 0.99, 1e-4);
  EXPECT_NEAR(rv::kolmogorov_cdf(1.9495), 0.999, 1e-5);
  // Median of the Kolmogorov distribution, 0.8275735551899077 (Distributions.jl, `median(Kolmogorov())`):
  // exercises the small-x (theta) series.
  EXPECT_NEAR(rv::kolmogorov_cdf(0.8275735551899077), 0.5, 1e-12);
  // The two series agree where they meet.
  EXPECT_NEAR(rv::kolmogorov_cdf(1.0) + rv::kolmogorov_sf(1.0), 1.0, 1e-14);
  // ... and the cdf is continuous across x = 1 (its density is below 2 everywhere: 2h·2 for a step 2h).
  EXPECT_NEAR(rv::kolmogorov_cdf(0.999999), rv::kolmogorov_cdf(1.000001), 4e-6);
}

TEST(Statistics, KsExactDistribution) {
  // Marsaglia, Tsang & Wang (2003), J. Stat. Software 8(18), worked example: K(10, 0.274) = 0.6284796154565043.
  EXPECT_NEAR(rv::ks_exact_cdf(10, 0.274), 0.6284796154565043, 1e-13);
  // n = 1: D_1 = max(U, 1 − U), so P(D_1 <= d) = 2d − 1 on [1/2, 1] (derived from the definition).
  for (double d : {0.55, 0.7, 0.9}) EXPECT_NEAR(rv::ks_exact_cdf(1, d), 2 * d - 1, 1e-13);
  // D_n >= 1/(2n) always.
  EXPECT_EQ(rv::ks_exact_cdf(5, 0.09), 0.0);
  // For large n the exact law approaches the limit with Stephens' correction (ks_pvalue's two regimes
  // agree where they hand over).
  const double d = 0.04;
  const double rn = std::sqrt(1000.0);
  EXPECT_NEAR(1.0 - rv::ks_exact_cdf(1000, d), rv::kolmogorov_sf((rn + 0.12 + 0.11 / rn) * d), 2e-3);
}

TEST(Statistics, KsCriticalInvertsPvalue) {
  for (std::int64_t n : {100, 100000}) {
    const double c = rv::ks_critical(n, 1e-4);
    EXPECT_LE(rv::ks_pvalue(n, c), 1e-4);
    EXPECT_GT(rv::ks_pvalue(n, c * 0.999), 1e-4);
  }
}

TEST(Statistics, KsStatisticByHand) {
  // Uniform(0,1), sample {0.1, 0.5, 0.9}: D = max_i max(i/3 − x_(i), x_(i) − (i−1)/3) = 1/3 − 0.1.
  const std::vector<double> x{0.9, 0.1, 0.5};
  auto uniform = [](double t) { return std::clamp(t, 0.0, 1.0); };
  EXPECT_NEAR(rv::ks_statistic(x, uniform), 1.0 / 3.0 - 0.1, 1e-15);
  // A point mass at 2 and a sample that sits on it: F(2−) = 0, F(2) = 1, no gap at all.
  const std::vector<double> atom(50, 2.0);
  auto step = [](double t) { return t >= 2.0 ? 1.0 : 0.0; };
  auto step_left = [](double t) { return t > 2.0 ? 1.0 : 0.0; };
  EXPECT_EQ(rv::ks_statistic(atom, step, step_left), 0.0);
  // Ignoring the atom's left limit would see the whole jump: D = 1.
  EXPECT_EQ(rv::ks_statistic(atom, [](double t) { return t > 2.0 ? 1.0 : 0.0; }), 1.0);
  EXPECT_THROW(rv::ks_statistic(std::vector<double>{}, uniform), retrylab::InputError);
}

TEST(Statistics, KsTestDetectsAShiftAndAcceptsTheTruth) {
  // A deterministic, evenly spread "sample" (i − 1/2)/n has D = 1/(2n): accepted; shifted by 0.05 it
  // has D = 0.05 + 1/(2n): rejected at any reasonable alpha for n = 10^4.
  const std::int64_t n = 10000;
  std::vector<double> even, shifted;
  for (std::int64_t i = 1; i <= n; ++i) {
    const double u = (static_cast<double>(i) - 0.5) / static_cast<double>(n);
    even.push_back(u);
    shifted.push_back(std::min(1.0, u + 0.05));
  }
  auto uniform = [](double t) { return std::clamp(t, 0.0, 1.0); };
  EXPECT_GT(rv::ks_test(even, uniform).pvalue, 0.99);
  EXPECT_LT(rv::ks_test(shifted, uniform).pvalue, 1e-12);
}

}  // namespace statistics_test
