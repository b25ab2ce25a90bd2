// The verdict rule of papers/published/verdict.hpp on planted cases, each placed on either side of
// the rule's boundary so that a harsher rule (no allowance for the paper's own sampling error) or a
// laxer one (a wider allowance) fails a test; its calibration by simulation with fixed seeds; and the
// fits of papers/published/fits.hpp on exact curves. Deterministic: the simulated checks use fixed
// seeds, so their false-failure rate is 0; the bands they check are 4 binomial sd wide around the
// rates the rule is meant to have (5% per seed and statement), so a correct rule passes them for
// all but about 1 seed in 15,000 should the seeds be changed.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "papers/published/fits.hpp"
#include "papers/published/verdict.hpp"

namespace test_verdict {

namespace {

using namespace retrylab::papers::published;
namespace published = retrylab::papers::published;

Sample mean(double value, double lo, double hi, std::int64_t runs) {
  Sample s;
  s.kind = Sample::Kind::mean;
  s.value = value, s.lo = lo, s.hi = hi, s.runs = runs;
  return s;
}

Sample fraction(std::int64_t k, std::int64_t n) {
  Sample s;
  s.kind = Sample::Kind::fraction;
  s.count = k, s.runs = n, s.value = static_cast<double>(k) / static_cast<double>(n);
  return s;
}

Claim equal(double v, double h, std::int64_t paper_runs) { return {Compare::equal, v, h, published::nan, paper_runs}; }

TEST(Verdict, AMeanAllowsForThePapersRunsAndNoMore) {
  // 100 [98, 102] from 20 runs; the paper's 20 runs widen the interval by sqrt(2): [97.17, 102.83].
  const Sample s = mean(100, 98, 102, 20);
  EXPECT_EQ(judge(equal(100.4, 0.5, 20), s), Verdict::holds);       // rounds to the printed value
  EXPECT_EQ(judge(equal(101, 0.5, 20), s), Verdict::within_noise);  // inside the reproduction's own interval
  EXPECT_EQ(judge(equal(103, 0.5, 20), s), Verdict::within_noise);  // [102.5, 103.5] reaches 102.83: only
                                                                    // the paper's error allows it (harsher fails)
  EXPECT_EQ(judge(equal(104, 0.5, 20), s), Verdict::differs);       // [103.5, 104.5] does not (laxer fails)
  // The paper's many runs leave only the reproduction's error: 103 differs then.
  EXPECT_EQ(judge(equal(103, 0.5, 2000), s), Verdict::differs);
  // Not stated: taken as the reproduction's own runs (sqrt(2), as above).
  EXPECT_EQ(judge(equal(103, 0.5, 0), s), Verdict::within_noise);
  // A fit (runs = 0) is compared with its own interval only.
  EXPECT_EQ(judge(equal(102.4, 0.3, 0), mean(100, 98, 102, 0)), Verdict::differs);
  EXPECT_EQ(judge(equal(102.2, 0.3, 0), mean(100, 98, 102, 0)), Verdict::within_noise);
}

TEST(Verdict, ABoundHoldsOnlyWithTheWholeIntervalOnItsSide) {
  const Claim below{Compare::below, 1.0, 0.0, published::nan, 20};
  EXPECT_EQ(judge(below, mean(0.9, 0.85, 0.95, 20)), Verdict::holds);
  EXPECT_EQ(judge(below, mean(0.97, 0.93, 1.01, 20)), Verdict::within_noise);
  // 1.04 [1.02, 1.06]: widened by sqrt(2) its lower end is 1.0117 > 1 (differs); 1.03 [1.01, 1.05]
  // widens to 1.0017, still above; 1.025 [1.006, 1.044] widens to 0.9981 < 1.
  EXPECT_EQ(judge(below, mean(1.04, 1.02, 1.06, 20)), Verdict::differs);
  EXPECT_EQ(judge(below, mean(1.03, 1.01, 1.05, 20)), Verdict::differs);
  EXPECT_EQ(judge(below, mean(1.025, 1.006, 1.044, 20)), Verdict::within_noise);
  const Claim at_least{Compare::at_least, 10.0, 0.0, published::nan, 0};
  EXPECT_EQ(judge(at_least, mean(10, 10, 10, 40)), Verdict::holds);
  Sample grid;
  grid.kind = Sample::Kind::exact;
  grid.value = 9.99;
  EXPECT_EQ(judge(at_least, grid), Verdict::differs);  // a grid value has no noise to allow for
}

TEST(Verdict, FishersExactTestMatchesItsTextbookValue) {
  // Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70 = 0.4857.
  EXPECT_NEAR(fisher_two_sided(3, 4, 1, 4), 34.0 / 70.0, 1e-12);
  // [[0, 20], [10, 10]]: p = 2·C(20,0)·C(20,10)/C(40,10) summed over the tables no more likely.
  EXPECT_LT(fisher_two_sided(0, 20, 10, 20), 0.001);
  EXPECT_DOUBLE_EQ(fisher_two_sided(5, 20, 5, 20), 1.0);
}

TEST(Verdict, AFractionOfRunsIsComparedWithTheCountsThePaperCouldHavePrinted) {
  const Claim sixty = equal(0.6, 0.025, 20);  // "12 of 20 runs"
  EXPECT_EQ(judge(sixty, fraction(12, 20)), Verdict::holds);
  // 6 of 20 against 12 of 20: Fisher p = 0.111 (within noise); 4 of 20: p = 0.023 (differs).
  EXPECT_GT(fisher_two_sided(6, 20, 12, 20), alpha);
  EXPECT_LT(fisher_two_sided(4, 20, 12, 20), alpha);
  EXPECT_EQ(judge(sixty, fraction(6, 20)), Verdict::within_noise);
  EXPECT_EQ(judge(sixty, fraction(4, 20)), Verdict::differs);
  // "58%" of 40 runs is 23: 29 of 40 is within noise (p = 0.24), 36 of 40 is not (p = 0.002).
  EXPECT_EQ(judge(equal(0.58, 0.005, 40), fraction(29, 40)), Verdict::within_noise);
  EXPECT_EQ(judge(equal(0.58, 0.005, 40), fraction(36, 40)), Verdict::differs);
  // "failed every time" (0 of 40): 3 of 40 is within noise (p = 0.24), 7 of 40 is not (p = 0.012).
  EXPECT_EQ(judge(equal(0.0, 0.0, 40), fraction(3, 40)), Verdict::within_noise);
  EXPECT_EQ(judge(equal(0.0, 0.0, 40), fraction(7, 40)), Verdict::differs);
}

Sample levels(std::vector<Level> ls, Rule rule) {
  Sample s;
  s.kind = Sample::Kind::threshold;
  s.rule = rule;
  s.levels = std::move(ls);
  s.value = threshold_of(s.levels, rule);
  return s;
}

TEST(Verdict, AThresholdIsTestedAtEveryLevelThePublishedOneConstrains) {
  // Most runs collapse first at 0.2 (12 of 20); at 0.15, 7 of 20. "Collapsed at 0.15" needs at least
  // half the paper's 20 runs at 0.15 (7 against 10: p = 0.53) and fewer than half below: within noise.
  const Sample s = levels({{0.1, 0, 20}, {0.15, 7, 20}, {0.2, 12, 20}}, Rule::first_half);
  EXPECT_DOUBLE_EQ(s.value, 0.2);
  EXPECT_EQ(judge(equal(0.2, 0.001, 20), s), Verdict::holds);
  EXPECT_EQ(judge(equal(0.15, 0.001, 20), s), Verdict::within_noise);
  // With 1 of 20 at 0.15 the paper's majority there is rejected (p = 0.003 < 0.05 / 2).
  EXPECT_EQ(judge(equal(0.15, 0.001, 20), levels({{0.1, 0, 20}, {0.15, 1, 20}, {0.2, 12, 20}}, Rule::first_half)),
            Verdict::differs);
  // Bonferroni: 3 of 20 at 0.15 against at least 10 is p = 0.041, below 0.05 but not below 0.05 / 2
  // (two levels constrained): within noise. Without the correction (harsher) it would differ.
  // Only the threshold's level and its neighbour count: with ten more levels below (all 0 of 20),
  // a Bonferroni over every level (laxer: alpha / 12) would let 2 of 20 at 0.15 pass (p = 0.014,
  // above 0.05 / 12 = 0.0042); over the two it differs.
  EXPECT_GT(fisher_two_sided(3, 20, 10, 20), alpha / 2);
  EXPECT_LT(fisher_two_sided(3, 20, 10, 20), alpha);
  EXPECT_EQ(judge(equal(0.15, 0.001, 20), levels({{0.1, 0, 20}, {0.15, 3, 20}, {0.2, 12, 20}}, Rule::first_half)),
            Verdict::within_noise);
  std::vector<Level> many;
  for (int i = 0; i < 11; ++i) many.push_back({0.01 * i, 0, 20});
  many.push_back({0.15, 2, 20});
  many.push_back({0.2, 12, 20});
  EXPECT_LT(fisher_two_sided(2, 20, 10, 20), alpha / 2);
  EXPECT_GT(fisher_two_sided(2, 20, 10, 20), alpha / 12);
  EXPECT_EQ(judge(equal(0.15, 0.001, 20), levels(many, Rule::first_half)), Verdict::differs);
  // The smallest cap at which every run drains: 39 of 40 at 1,000 is compatible with the paper's 40
  // of 40 there (p = 1); 30 of 40 is not.
  const Sample caps = levels({{500, 0, 40}, {1000, 39, 40}, {2000, 40, 40}}, Rule::first_all);
  EXPECT_DOUBLE_EQ(caps.value, 2000);
  EXPECT_EQ(judge(equal(1000, 0.5, 40), caps), Verdict::within_noise);
  EXPECT_EQ(judge(equal(1000, 0.5, 40), levels({{500, 0, 40}, {1000, 30, 40}, {2000, 40, 40}}, Rule::first_all)),
            Verdict::differs);
}

TEST(Verdict, TwoSeedsDifferOnlyWhenBothDo) {
  EXPECT_EQ(combine(Verdict::holds, Verdict::holds), Verdict::holds);
  EXPECT_EQ(combine(Verdict::differs, Verdict::differs), Verdict::differs);
  EXPECT_EQ(combine(Verdict::differs, Verdict::holds), Verdict::within_noise);
  EXPECT_EQ(combine(Verdict::holds, Verdict::within_noise), Verdict::within_noise);
  EXPECT_EQ(combine(Verdict::within_noise, Verdict::differs), Verdict::within_noise);
}

// The rule's false "differs" rate when the published value is a true estimate: the paper's mean of
// np runs and the reproduction's of n runs, both of the same normal law, 4,000 trials with a fixed
// seed. The rule says differs exactly when |mean − published| / (s·sqrt(2/n)) exceeds the t quantile
// of n − 1 dof, which for a true published value has probability 5% (a t statistic): the band
// [3.6%, 6.4%] is 4 binomial sd. Without the paper's error (harsher) the rate is 15.5%; with the
// interval widened by 2 instead of sqrt(2) (laxer) 0.8%.
TEST(Verdict, AMeanSaysDiffersInFivePercentOfTrueStatements) {
  std::mt19937_64 rng(20261201);
  std::normal_distribution<double> z(0.0, 1.0);
  const int trials = 4000;
  const int n = 20, np = 20;
  const double sd = 3.0, mu = 50.0, t = 2.093024054408263;  // t quantile 0.975, 19 dof (the interval's)
  int differs = 0;
  for (int i = 0; i < trials; ++i) {
    double sum = 0, sum2 = 0;
    for (int r = 0; r < n; ++r) {
      const double x = mu + sd * z(rng);
      sum += x, sum2 += x * x;
    }
    const double m = sum / n, s = std::sqrt((sum2 - n * m * m) / (n - 1)), h = t * s / std::sqrt(double(n));
    const double published = mu + sd / std::sqrt(double(np)) * z(rng);
    differs += judge(equal(published, 0.0, np), mean(m, m - h, m + h, n)) == Verdict::differs ? 1 : 0;
  }
  const double rate = differs / double(trials);
  EXPECT_GT(rate, 0.036) << rate;
  EXPECT_LT(rate, 0.064) << rate;
}

// Fractions of runs: Fisher's test is conservative, so the rate of false "differs" is at most 5%;
// for p = 0.5 and 20 runs a side it is 2.04% exactly (summed over both binomial laws). Checked in
// [1.1%, 3.0%], 4 binomial sd: a rule that never says differs (laxer), or one at alpha = 0.1
// (harsher: 4.3%), fails.
TEST(Verdict, AFractionSaysDiffersInAtMostFivePercentOfTrueStatements) {
  std::mt19937_64 rng(7);
  std::binomial_distribution<std::int64_t> runs(20, 0.5);
  const int trials = 4000;
  int differs = 0;
  for (int i = 0; i < trials; ++i) {
    const std::int64_t ours = runs(rng), theirs = runs(rng);
    differs +=
        judge(equal(static_cast<double>(theirs) / 20.0, 0.025, 20), fraction(ours, 20)) == Verdict::differs ? 1 : 0;
  }
  const double rate = differs / double(trials);
  EXPECT_LT(rate, 0.030) << rate;
  EXPECT_GT(rate, 0.011) << rate;
}

TEST(Fits, ExactCurvesGiveTheirExponentsAndQuadraticShares) {
  std::vector<FitPoint> square, line, affine;
  for (double n : {10.0, 20.0, 40.0, 80.0, 160.0, 320.0}) {
    square.push_back({n, 3 * n * n, 1e-6 * n * n});
    line.push_back({n, 7 * n, 1e-6 * n});
    affine.push_back({n, 500 + 7 * n, 1e-6 * n});
  }
  EXPECT_NEAR(power_exponent(square).mean, 2.0, 1e-9);
  EXPECT_NEAR(quadratic_share(square).mean, 1.0, 1e-9);
  EXPECT_NEAR(power_exponent(line).mean, 1.0, 1e-9);
  EXPECT_NEAR(quadratic_share(line).mean, 0.0, 1e-9);
  // Affine: no quadratic term, but a power law through the origin reads it as N^0.8 or so.
  EXPECT_NEAR(quadratic_share(affine).mean, 0.0, 1e-9);
  EXPECT_LT(power_exponent(affine).mean, 0.9);
  const auto local = local_exponents(affine);
  ASSERT_EQ(local.size(), 5u);
  EXPECT_LT(local.front().exponent.mean, local.back().exponent.mean);  // it moves toward 1 with N
  EXPECT_NEAR(local.back().exponent.mean, std::log(2740.0 / 1620.0) / std::log(2.0), 1e-9);
}

// Which fits separate which laws: over N = 10 to 6,400 a power law N^1.63 puts most of its fitted
// a + bN + cN² in the N² term at the largest N, as a true a + bN + cN² does, so the quadratic share
// cannot tell them apart; the trend of the local exponent can (flat for the power law, rising
// toward 2 for the quadratic). R² says a straight line is straight; the share says which way a
// gentle curve bends.
TEST(Fits, TheExponentTrendSeparatesAPowerLawFromNSquaredWhereTheQuadraticShareCannot) {
  std::vector<FitPoint> power, quadratic, line, concave;
  for (double n : {10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0, 1280.0, 2560.0, 5120.0}) {
    const double p = std::pow(n, 1.63), q = 40 * n + n * n;
    power.push_back({n, p, 1e-4 * p});
    quadratic.push_back({n, q, 1e-4 * q});
    line.push_back({n, 300 + 2 * n, 1e-3 * (300 + 2 * n)});
    const double c = 500 + 2 * n - 2e-5 * n * n;  // bends down by 5% of y at the largest N
    concave.push_back({n, c, 1e-3 * c});
  }
  EXPECT_GT(quadratic_share(power).mean, 0.5);  // "mostly N²" by the share, though it is N^1.63
  EXPECT_GT(quadratic_share(quadratic).mean, 0.5);
  const retrylab::papers::Estimate flat = exponent_trend(power), rising = exponent_trend(quadratic);
  EXPECT_NEAR(flat.mean, 0.0, 1e-6);                                // a power law's local exponent does not move
  EXPECT_GT(rising.lo, 0.01);                                       // a + bN + cN²'s climbs toward 2 ...
  EXPECT_LT(local_exponents(quadratic).back().exponent.mean, 2.0);  // ... from below
  EXPECT_NEAR(affine_r2(line), 1.0, 1e-9);
  EXPECT_GT(affine_r2(concave), 0.99);              // a gentle bend looks straight to R² ...
  EXPECT_LT(quadratic_share(concave).mean, -0.01);  // ... the share sees it bend down
  EXPECT_LT(affine_r2(quadratic), 0.99);
}

}  // namespace

}  // namespace test_verdict
