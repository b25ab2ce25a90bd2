// Statistical checks of the full tier against the closed forms of analytic/rows.hpp
// and analytic/ps.hpp, apart from the exact ones. Fixed seeds; tolerance
// t_(n−1, 1−α/2) · sd/√n from the runs themselves, α = 1e−4 per check: the false-failure rate over
// seeds is about 7e−4 for the seven checks. Steady-state windows: 20,000 time units after a warm-up
// of 1,000 (the queues start empty; at loads <= 0.6 their relaxation time is tens of units).
#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "analytic/aloha.hpp"
#include "analytic/ps.hpp"
#include "analytic/rows.hpp"
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

mc::Scenario steady(Model model, double rate) {
  mc::Scenario s;
  s.model = model;
  s.traffic.rate = rate;
  s.measurement.horizon = 21000;
  s.measurement.warmup = 1000;
  s.client.retries = false;
  return s;
}

mc::Summary run(const mc::Scenario& s, std::uint64_t seed) { return mc::summarize(mc::simulate(s, {20, seed, 0})); }

TEST(ServerSmoke, CollisionOverRowsIsAlohaPerRow) {
  mc::Scenario s = steady(Model::collision, 1.0);
  s.resource.rows = 4;
  expect_agrees(run(s, 21).goodput, retrylab::goodput(retrylab::AlohaRows{1.0, 4}));  // λe^(−2λ/M)
}

TEST(ServerSmoke, FreeOverRowsIsOccPerRow) {
  mc::Scenario s = steady(Model::free, 2.0);
  s.resource.rows = 4;
  expect_agrees(run(s, 22).goodput, retrylab::goodput(retrylab::FreeRows{2.0, 4}));  // λ/(1+λ/M)
}

TEST(ServerSmoke, LockWithExponentialServiceIsMM1) {
  mc::Scenario s = steady(Model::shared, 0.5);
  s.resource.lock = true;
  s.resource.service = mc::ServiceDist::exponential;
  const double m2 = retrylab::service_second_moment_exponential();
  expect_agrees(run(s, 23).sojourn, retrylab::mean_time(retrylab::FifoQueue{0.5, m2}));  // 1/(1−λ)
}

TEST(ServerSmoke, LockWithDeterministicServiceIsMD1) {
  mc::Scenario s = steady(Model::collision, 0.6);
  s.resource.lock = true;
  expect_agrees(run(s, 24).sojourn, retrylab::mean_time(retrylab::FifoQueue{0.6, 1.0}));  // P–K, m2 = 1
}

TEST(ServerSmoke, LockWithLognormalServiceIsMG1) {
  mc::Scenario s = steady(Model::free, 0.5);
  s.resource.lock = true;
  s.resource.service = mc::ServiceDist::lognormal;
  s.resource.service_cv = 1.5;
  const double m2 = retrylab::service_second_moment_lognormal(1.5);
  expect_agrees(run(s, 25).sojourn, retrylab::mean_time(retrylab::FifoQueue{0.5, m2}));
}

TEST(ServerSmoke, LockPerRowIsOneMM1PerRow) {
  mc::Scenario s = steady(Model::free, 1.5);
  s.resource.rows = 3;
  s.resource.lock = true;
  s.resource.service = mc::ServiceDist::exponential;
  // Each row: M/M/1 at λ/M = 0.5.
  expect_agrees(run(s, 26).sojourn, retrylab::mean_time(retrylab::FifoQueue{0.5, 2.0}));
}

TEST(ServerSmoke, PsIsInsensitiveToLognormalService) {
  // M/G/1-PS mean time 1/(1−ρ) for any service distribution of mean 1: checks the lognormal's mean.
  mc::Scenario s = steady(Model::ps, 0.5);
  s.resource.service = mc::ServiceDist::lognormal;
  s.resource.service_cv = 2.0;
  expect_agrees(run(s, 27).sojourn, retrylab::mean_time(retrylab::ProcessorSharing{0.5, 1.0}));
}

}  // namespace
