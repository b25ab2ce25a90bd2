// One hedge without contention (analytic/hedge.hpp): the mean is the integral of the survival
// function (Simpson's rule, independently of the closed form's algebra), the survival is continuous at
// the delay, the quantile inverts it on both sides of the delay, and the limits: d = 0 is the minimum
// of two exponentials (mean x/2), a delay far beyond the service is no hedge (mean x).
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/error.hpp"
#include "analytic/hedge.hpp"

namespace hedge_test {

using retrylab::HedgedOnce;
using retrylab::InputError;

namespace {

double simpson_mean(const HedgedOnce& h) {
  const double end = 60.0 * h.service + h.delay;  // the survival is below e^(−60) past it
  const int n = 200000;
  const double step = end / n;
  double sum = retrylab::hedge_survival(h, 0.0) + retrylab::hedge_survival(h, end);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4.0 : 2.0) * retrylab::hedge_survival(h, i * step);
  return sum * step / 3.0;
}

std::string field_of(const HedgedOnce& h, double q = 0.5) {
  try {
    (void)retrylab::hedge_quantile(h, q);
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

}  // namespace

TEST(HedgeClosedForm, MeanIsTheIntegralOfTheSurvival) {
  // The survival has a kink at d: Simpson's error there is O(step²), far below 1e-6.
  for (const HedgedOnce h : {HedgedOnce{0.5, 1.0}, HedgedOnce{2.0, 1.0}, HedgedOnce{0.3, 2.5}, HedgedOnce{0.0, 1.0}})
    EXPECT_NEAR(retrylab::hedge_mean_latency(h), simpson_mean(h), 1e-6) << h.delay << " " << h.service;
}

TEST(HedgeClosedForm, SurvivalIsContinuousAtTheDelayAndQuantileInvertsIt) {
  const HedgedOnce h{0.7, 1.3};
  const double at = std::exp(-0.7 / 1.3);
  EXPECT_DOUBLE_EQ(retrylab::hedge_survival(h, 0.7), at);
  EXPECT_NEAR(retrylab::hedge_survival(h, std::nextafter(0.7, 0.0)), at, 1e-12);
  for (double q : {0.0, 0.1, 0.3, 1.0 - at - 1e-9, 1.0 - at + 1e-9, 0.7, 0.99, 0.999999}) {
    const double t = retrylab::hedge_quantile(h, q);
    EXPECT_NEAR(retrylab::hedge_survival(h, t), 1.0 - q, 1e-12) << q;
  }
  EXPECT_EQ(retrylab::hedge_survival(h, -1.0), 1.0);
}

TEST(HedgeClosedForm, LimitsAreTheMinimumOfTwoAndNoHedge) {
  EXPECT_DOUBLE_EQ(retrylab::hedge_mean_latency({0.0, 3.0}), 1.5);  // min of two Exp of mean 3
  EXPECT_NEAR(retrylab::hedge_mean_latency({50.0, 1.0}), 1.0, 1e-20);
  EXPECT_LT(retrylab::hedge_mean_latency({1.0, 1.0}), 1.0);  // any finite delay helps without contention
}

TEST(HedgeClosedForm, RangesNameTheirField) {
  EXPECT_EQ(field_of({-1.0, 1.0}), "delay");
  EXPECT_EQ(field_of({INFINITY, 1.0}), "delay");
  EXPECT_EQ(field_of({NAN, 1.0}), "delay");
  EXPECT_EQ(field_of({1.0, 0.0}), "service");
  EXPECT_EQ(field_of({1.0, INFINITY}), "service");
  EXPECT_EQ(field_of({1.0, 1.0}, 1.0), "quantile");
  EXPECT_EQ(field_of({1.0, 1.0}, -0.1), "quantile");
  EXPECT_EQ(field_of({1.0, 1.0}, NAN), "quantile");
  EXPECT_EQ(field_of({1.0, 1.0}), "(accepted)");
}

}  // namespace hedge_test
