// A handful of statistical smoke checks of the engine against closed forms (the full validation is
// validation/'s job). Fixed seeds; tolerance t_(n−1, 1−α/2) · sd/√n from the runs themselves with
// α = 1e−4 per check (the false-failure rate over seeds: about 3e−4 for the three checks), never a
// bare percentage. Steady-state windows: 20,000 time units after a warm-up of 1,000.
#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "analytic/aloha.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

namespace {

constexpr double alpha = 1e-4;

void expect_agrees(const retrylab::MeanSummary& m, double expected) {
  ASSERT_GE(m.n, 2);
  const boost::math::students_t t(static_cast<double>(m.n - 1));
  const double tol = boost::math::quantile(t, 1 - alpha / 2) * m.sd / std::sqrt(static_cast<double>(m.n));
  EXPECT_NEAR(m.mean, expected, tol) << "n=" << m.n << " sd=" << m.sd;
}

mc::Scenario steady(Model model, double rate, bool retries) {
  mc::Scenario s;
  s.model = model;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.rate = rate;
  s.measurement.horizon = 21000;
  s.measurement.warmup = 1000;
  s.client.retries = retries;
  return s;
}

TEST(Smoke, CollisionRetriesOffIsPureAloha) {
  const auto s = mc::summarize(mc::simulate(steady(Model::collision, 0.5, false), {20, 11, 0}));
  expect_agrees(s.goodput, retrylab::goodput(retrylab::PureAloha{0.5}));  // λe^−2λ at its peak
}

TEST(Smoke, FreeRetriesOffIsOcc) {
  const auto s = mc::summarize(mc::simulate(steady(Model::free, 1.0, false), {20, 12, 0}));
  expect_agrees(s.goodput, retrylab::goodput(retrylab::OccFree{1.0}));  // λ/(1+λ)
}

TEST(Smoke, PsMeanTimeInSystem) {
  const auto s = mc::summarize(mc::simulate(steady(Model::ps, 0.5, true), {20, 13, 0}));
  expect_agrees(s.sojourn, retrylab::mean_time(retrylab::ProcessorSharing{0.5, 1.0}));  // 1/(1−ρ)
}

}  // namespace
