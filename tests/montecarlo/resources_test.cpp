// The work estimate of montecarlo/resources.hpp held against the engine: on the uncontended `none`
// model, where injected failures alone make the retries, the expected attempts per client is the
// engine's measured mean (a geometric law, a horizon-bound loop, an outage), and it is finite and
// cheap for every scenario, so a run that would make too many attempts is refused before it starts.
// Statistical cases use fixed seeds; each tolerance is at least 5 standard errors of the measured
// mean (false-failure rate below 1e-6 per case).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "analytic/error.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;

namespace {

mc::Scenario failing(double p, Strategy strategy) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {strategy, 1.0, 100.0, 0.0};
  s.failures.failure_prob = p;
  s.measurement.collapse = 1'000'000;  // a burst above the collapse threshold would collapse at once
  return s;
}

double measured_attempts_per_client(const mc::Scenario& s, std::int64_t runs) {
  mc::check_scenario(s);
  const auto rs = mc::simulate(s, mc::RunPlan{runs, 11, 1});
  double attempts = 0, clients = 0;
  for (const auto& r : rs) {
    attempts += static_cast<double>(r.attempts);
    clients += static_cast<double>(r.clients_arrived);
  }
  return attempts / clients;
}

TEST(WorkEstimate, RetriesOffIsOneAttempt) {
  mc::Scenario s = failing(0.9, Strategy::full);
  s.client.retries = false;
  s.traffic.clients = 10;
  EXPECT_EQ(mc::expected_attempts_per_client(s), 1.0);
}

TEST(WorkEstimate, InjectedFailuresAloneAreGeometric) {
  // Attempts per client ~ Geometric(1 − p): mean 1/(1 − p) = 10, sd √p/(1 − p) ≈ 9.5; 20,000
  // clients: standard error 0.067, tolerance 0.4 (6 se).
  mc::Scenario s = failing(0.9, Strategy::full);
  s.traffic.clients = 4000;
  EXPECT_DOUBLE_EQ(mc::expected_attempts_per_client(s), 10.0);
  EXPECT_NEAR(measured_attempts_per_client(s, 5), 10.0, 0.4);
}

TEST(WorkEstimate, AttemptLimitBoundsIt) {
  mc::Scenario s = failing(0.9, Strategy::full);
  s.traffic.clients = 100;
  s.client.max_attempts = 3;
  EXPECT_DOUBLE_EQ(mc::expected_attempts_per_client(s), 3.0);  // the mean is 2.71; the bound is the limit
  EXPECT_LE(measured_attempts_per_client(s, 5), 3.0);
}

TEST(WorkEstimate, EveryAttemptFailingIsBoundedByTheHorizon) {
  // No sleep, every attempt one attempt-duration: one client makes an attempt per unit of time.
  mc::Scenario s = failing(1.0, Strategy::none);
  s.traffic.clients = 1;
  s.measurement.horizon = 1000;
  const double measured = measured_attempts_per_client(s, 1);
  EXPECT_GE(mc::expected_attempts_per_client(s), measured);
  EXPECT_LE(mc::expected_attempts_per_client(s), measured + 2.0);
  // Full jitter, cap 100: the cycles follow the mean sleeps 0.5, 1, 2, ..., 50 then stay at 51. Over
  // 200 clients the mean count's relative standard error is under 0.5%; tolerance 4%.
  s.backoff.strategy = Strategy::full;
  s.measurement.horizon = 20000;
  s.traffic.clients = 200;
  EXPECT_NEAR(mc::expected_attempts_per_client(s) / measured_attempts_per_client(s, 1), 1.0, 0.04);
  // A deadline ends each client's attempts sooner than the horizon.
  s.client.deadline = 2000;
  EXPECT_NEAR(mc::expected_attempts_per_client(s) / measured_attempts_per_client(s, 1), 1.0, 0.08);
}

TEST(WorkEstimate, AnOutageAddsTheRetriesThroughIt) {
  mc::Scenario s = failing(0.0, Strategy::none);
  s.traffic.clients = 1;
  s.measurement.horizon = 5000;
  s.failures.outage_start = 0;
  s.failures.outage_end = 1000;
  const double measured = measured_attempts_per_client(s, 1);
  EXPECT_NEAR(measured, 1001.0, 1.0);  // one attempt per unit through the outage, then one success
  EXPECT_GE(mc::expected_attempts_per_client(s), measured);
  EXPECT_LE(mc::expected_attempts_per_client(s), measured + 2.0);
}

TEST(WorkEstimate, ARunOfTooManyAttemptsIsRefusedBeforeItStarts) {
  // Ten clients: 20 runs x 10 clients is nothing by the client count; every attempt failing for
  // 1e12 attempt-durations is 2e14 attempts.
  mc::Scenario s = failing(1.0, Strategy::none);
  s.traffic.clients = 10;
  s.measurement.horizon = 1e12;
  try {
    mc::check_resources(s, mc::RunPlan{20, 1, 1}, 1e12);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "horizon");  // what lets the retries go on
    EXPECT_NE(std::string(e.what()).find("attempts"), std::string::npos) << e.what();
  }
  s.client.max_attempts = 5;  // bounded retries: 1,000 attempts
  EXPECT_NO_THROW(mc::check_resources(s, mc::RunPlan{20, 1, 1}, 1e12));
}

// Timed-out attempts stay on a shared server and share it: 20 clients retrying at once every 5
// attempt-durations kept every attempt there, growing to 2.6 GB over the default horizon under a
// 50 MB limit, while the estimate counted one attempt per client. Now each attempt may time out, and
// each stays on the server: the run is refused up front; the measured attempts over a short horizon
// are within the estimate (all time out: 20 sharing clients make an attempt last 20 > 5).
TEST(WorkEstimate, TimedOutAttemptsOnASharedServerAreCounted) {
  mc::Scenario s;
  s.model = Model::shared;
  s.backoff = {Strategy::none, 1.0, 1000.0, 0.0};
  s.traffic.clients = 20;
  s.client.timeout = 5;
  s.measurement.horizon = 1e7;  // a pure burst's default
  EXPECT_GE(mc::expected_attempts_per_client(s), 1e6);
  try {
    mc::check_resources(s, mc::RunPlan{1, 1, 1}, 0.05 * (1 << 30));
    ADD_FAILURE() << "accepted under 50 MB";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "max_memory") << e.what();
  }
  s.measurement.horizon = 400;
  const double measured = measured_attempts_per_client(s, 1);
  EXPECT_GE(measured, 70.0);  // 400 / 5 cycles, less the last unfinished ones
  EXPECT_GE(mc::expected_attempts_per_client(s), measured);
  // A concurrency limit, or a model whose attempts do not share the server, is estimated as before.
  s.admission.limit = 10;
  EXPECT_EQ(mc::expected_attempts_per_client(s), 1.0);
  s.admission.limit = 0;
  s.model = Model::none;
  EXPECT_EQ(mc::expected_attempts_per_client(s), 1.0);
}

TEST(WorkEstimate, IsFiniteForExtremeBackoffs) {
  for (double multiplier : {1.0001, 1.5, 2.0, 100.0})
    for (double cap : {1.0, 1e6, std::numeric_limits<double>::infinity()})
      for (Strategy st : {Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::decorrelated,
                          Strategy::memoryless, Strategy::window, Strategy::none}) {
        mc::Scenario s = failing(1.0, st);
        s.backoff = {st, 1.0, cap, st == Strategy::window ? 10.0 : 0.0, multiplier};
        s.traffic.clients = 1;
        s.measurement.horizon = 1e300;
        const double a = mc::expected_attempts_per_client(s);
        EXPECT_GE(a, 1.0);
        EXPECT_FALSE(std::isnan(a));
      }
}

}  // namespace
