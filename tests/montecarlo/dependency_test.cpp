// The failing-dependency simulator and layered amplification (montecarlo/dependency.hpp): exact
// cases (total outage, no failure, timeouts whose work completed, budgets at a total outage against
// their bounds, 3^4 = 81), determinism (same seed same bytes, 1 and 2 threads), bad input, and one
// statistical check with a stated false-failure rate. About 1 s.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>

#include "analytic/budget.hpp"
#include "analytic/error.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/dependency.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Strategy;

namespace {

mc::DependencyScenario base_scenario() {
  mc::DependencyScenario s;
  s.rate = 0.05;        // one request every 20 ms
  s.horizon = 10000.0;  // ~500 requests
  s.service_mean = 10.0;
  s.max_attempts = 3;
  s.backoff = {Strategy::full, 10.0, 1000.0, 0.0};
  return s;
}

mc::DependencyRunResult run(const mc::DependencyScenario& s, std::uint64_t run = 0) {
  return mc::simulate_dependency_run(s, 7, run);
}

bool same(const mc::DependencyRunResult& a, const mc::DependencyRunResult& b) {
  // Field by field, NaN equal to NaN (bitwise on doubles).
  auto eq = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.requests == b.requests && a.attempts == b.attempts && a.retries == b.retries && a.successes == b.successes &&
         a.failures == b.failures && eq(a.load_multiplier, b.load_multiplier) &&
         eq(a.retries_per_success, b.retries_per_success) && eq(a.success_fraction, b.success_fraction) &&
         eq(a.latency, b.latency) && eq(a.latency_p99, b.latency_p99) && a.timeouts == b.timeouts &&
         a.effects == b.effects && a.duplicate_effects == b.duplicate_effects && a.hidden_effects == b.hidden_effects &&
         a.retries_blocked == b.retries_blocked && a.rejected_by_breaker == b.rejected_by_breaker &&
         a.rejected_by_throttle == b.rejected_by_throttle && a.rejected_by_capacity == b.rejected_by_capacity &&
         a.breaker_opened == b.breaker_opened && eq(a.recovery_time, b.recovery_time) &&
         a.max_waiting == b.max_waiting && eq(a.end_time, b.end_time);
}

}  // namespace

TEST(Dependency, TotalOutageWithoutControlsMakesExactlyMaxAttemptsPerRequest) {
  mc::DependencyScenario s = base_scenario();
  s.failure = 1.0;
  const auto r = run(s);
  ASSERT_GT(r.requests, 100);
  EXPECT_EQ(r.attempts, 3 * r.requests);
  EXPECT_EQ(r.load_multiplier, 3.0);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.failures, r.requests);
  EXPECT_TRUE(std::isinf(r.retries_per_success));
  EXPECT_TRUE(std::isnan(r.latency));
}

TEST(Dependency, HealthyDependencyServesEveryRequestOnceInOneServiceTime) {
  mc::DependencyScenario s = base_scenario();
  const auto r = run(s);
  EXPECT_EQ(r.attempts, r.requests);
  EXPECT_EQ(r.successes, r.requests);
  EXPECT_EQ(r.success_fraction, 1.0);
  EXPECT_EQ(r.latency, 10.0);
  EXPECT_EQ(r.latency_p99, 10.0);
  EXPECT_EQ(r.retries_per_success, 0.0);
  EXPECT_EQ(r.effects, r.requests);
  EXPECT_EQ(r.duplicate_effects, 0);
}

TEST(Dependency, AwsStandardBudgetAtATotalOutageGrantsItsBoundExactly) {
  // max_retries(aws_standard, 0) = 500/5 = 100 (and 50 when every failure is a timeout: cost 10).
  mc::DependencyScenario s = base_scenario();
  s.failure = 1.0;
  s.max_attempts = 1000;
  s.budget = mc::budget_preset("aws-standard");
  auto r = run(s);
  EXPECT_EQ(static_cast<double>(r.retries), retrylab::max_retries(retrylab::aws_standard(), 0.0));
  EXPECT_EQ(r.attempts, r.requests + 100);
  EXPECT_GT(r.retries_blocked, 0);
  s.timeout = 5.0;  // shorter than the 10 ms service time: every attempt times out
  r = run(s);
  EXPECT_EQ(static_cast<double>(r.retries), retrylab::max_retries(retrylab::aws_standard_timeout(), 0.0));
  EXPECT_EQ(r.timeouts, r.attempts);
}

TEST(Dependency, GrpcAndFinagleBudgetsAtATotalOutageStayWithinTheirBounds) {
  mc::DependencyScenario s = base_scenario();
  s.failure = 1.0;
  s.max_attempts = 1000;
  s.budget = mc::budget_preset("grpc");
  auto r = run(s);
  EXPECT_EQ(r.retries, 4);  // tokens 10 → 9, 8, 7, 6 allow; 5 blocks (gRFC A6)
  EXPECT_LE(static_cast<double>(r.retries), retrylab::max_retries(retrylab::grpc_throttling(), 0.0));

  s.budget = mc::budget_preset("finagle");
  s.horizon = 9000.0;  // within one ttl: retries <= 100 + 0.2·requests
  r = run(s);
  EXPECT_LE(static_cast<double>(r.retries),
            retrylab::finagle_max_retries(retrylab::FinagleBudget{}, static_cast<double>(r.requests)));
  // With up to 1000 attempts and no success the budget is the only limit, so it binds, and its
  // reserve alone grants 100.
  EXPECT_GT(r.retries_blocked, 0);
  EXPECT_GE(static_cast<double>(r.retries), 100.0);
}

TEST(Dependency, TimedOutWorkStillHappensAndOnlyAFixedKeyDeduplicatesIt) {
  mc::DependencyScenario s = base_scenario();
  s.timeout = 5.0;  // every attempt times out at 5 ms and completes at 10 ms, successfully
  for (const auto mode : {mc::Idempotency::none, mc::Idempotency::per_attempt, mc::Idempotency::fixed}) {
    s.idempotency = mode;
    const auto r = run(s);
    EXPECT_EQ(r.successes, 0);
    EXPECT_EQ(r.attempts, 3 * r.requests);
    EXPECT_EQ(r.hidden_effects, r.requests);  // the client saw failure, the effect happened
    if (mode == mc::Idempotency::fixed) {
      EXPECT_EQ(r.effects, r.requests);
      EXPECT_EQ(r.duplicate_effects, 0);
    } else {
      EXPECT_EQ(r.effects, 3 * r.requests);
      EXPECT_EQ(r.duplicate_effects, 2 * r.requests);
    }
  }
}

TEST(Dependency, BreakerRejectsDuringAnOutageAndTheDependencyRecovers) {
  mc::DependencyScenario s = base_scenario();
  s.horizon = 30000.0;
  s.outages = {{5000.0, 15000.0, 1.0}};
  s.breaker = mc::breaker_preset("hystrix");
  const auto r = run(s);
  EXPECT_GE(r.breaker_opened, 1);
  EXPECT_GT(r.rejected_by_breaker, 0);
  EXPECT_LT(r.attempts, 3 * r.requests);
  ASSERT_TRUE(std::isfinite(r.recovery_time));
  EXPECT_GE(r.recovery_time, s.recovery_window);
  s.outages.clear();
  EXPECT_TRUE(std::isnan(run(s).recovery_time));
}

TEST(Dependency, CapacityRejectsAttemptsAboveTheLimit) {
  mc::DependencyScenario s = base_scenario();
  s.rate = 0.5;  // 5 attempts in flight on average at 10 ms each
  s.capacity = 2;
  const auto r = run(s);
  EXPECT_GT(r.rejected_by_capacity, 0);
  EXPECT_LT(r.success_fraction, 1.0);
}

TEST(Dependency, SameSeedSameResultForAnyThreadCount) {
  mc::DependencyScenario s = base_scenario();
  s.failure = 0.3;
  s.service = mc::ServiceDistribution::lognormal;
  s.timeout = 25.0;
  s.outages = {{2000.0, 4000.0, 0.5}};
  s.budget = mc::budget_preset("sre-adaptive");
  s.breaker = mc::breaker_preset("resilience4j");
  s.capacity = 4;
  const mc::RunPlan one{6, 11, 1}, two{6, 11, 2};
  const auto a = mc::simulate_dependency(s, one), b = mc::simulate_dependency(s, two);
  ASSERT_EQ(a.size(), 6u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same(a[i], b[i])) << "run " << i;
    EXPECT_TRUE(same(a[i], mc::simulate_dependency_run(s, 11, i))) << "run " << i;
  }
  EXPECT_FALSE(same(a[0], a[1]));  // runs differ
  const mc::DependencySummary sum = mc::summarize(a);
  EXPECT_EQ(sum.runs, 6);
  EXPECT_EQ(sum.load_multiplier.n, 6);
}

TEST(Dependency, CanonicalNamesEveryFieldAndTheUnit) {
  mc::DependencyScenario s = base_scenario();
  const std::string c = mc::canonical(s);
  EXPECT_NE(c.find("unit=ms"), std::string::npos);
  EXPECT_NE(c.find("budget=none"), std::string::npos);
  EXPECT_NE(c.find("breaker=off"), std::string::npos);
  mc::DependencyScenario t = s;
  t.budget = mc::budget_preset("finagle");
  EXPECT_NE(mc::stable_hash(s), mc::stable_hash(t));
}

TEST(Dependency, BadInputNamesTheField) {
  auto field = [](auto mutate) {
    mc::DependencyScenario s = base_scenario();
    mutate(s);
    try {
      mc::check_dependency(s);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field([](auto& s) { s.rate = 0.0; }), "rate");
  EXPECT_EQ(field([](auto& s) { s.horizon = -1.0; }), "horizon");
  EXPECT_EQ(field([](auto& s) { s.failure = 1.5; }), "failure");
  EXPECT_EQ(field([](auto& s) { s.outages = {{10.0, 5.0, 1.0}}; }), "outage");
  EXPECT_EQ(field([](auto& s) { s.outages = {{0.0, 5.0, 1.0}, {4.0, 8.0, 1.0}}; }), "outage");
  EXPECT_EQ(field([](auto& s) { s.service_mean = 0.0; }), "service_mean");
  EXPECT_EQ(field([](auto& s) { s.capacity = -1; }), "capacity");
  EXPECT_EQ(field([](auto& s) { s.timeout = 0.0; }), "timeout");
  EXPECT_EQ(field([](auto& s) { s.max_attempts = 0; }), "max_attempts");
  EXPECT_EQ(field([](auto& s) { s.backoff.cap = retrylab::unbounded_cap; }), "cap");
  EXPECT_EQ(field([](auto& s) { s.recovery_window = 0.0; }), "recovery_window");
  EXPECT_EQ(field([](auto& s) { s.rate = 1e6; }), "rate");
  EXPECT_THROW(mc::parse_idempotency("maybe"), InputError);
  EXPECT_EQ(mc::parse_idempotency("per-attempt"), mc::Idempotency::per_attempt);
}

// Accounting identities and the budgets' bounds inside the simulator, over random small scenarios
// (fixed rapidcheck seed; replay with RC_PARAMS="seed=...").
RC_GTEST_PROP(Dependency, AccountingAndBudgetBoundsHoldInEveryRun, ()) {
  mc::DependencyScenario s;
  s.rate = *rc::gen::element(0.01, 0.05, 0.2);
  s.horizon = *rc::gen::element(500.0, 2000.0, 5000.0);
  s.failure = *rc::gen::element(0.0, 0.1, 0.5, 1.0);
  if (*rc::gen::arbitrary<bool>()) s.outages = {{s.horizon * 0.2, s.horizon * 0.6, *rc::gen::element(0.5, 1.0)}};
  s.service = *rc::gen::element(mc::ServiceDistribution::deterministic, mc::ServiceDistribution::exponential,
                                mc::ServiceDistribution::lognormal);
  s.service_mean = *rc::gen::element(1.0, 10.0, 30.0);
  s.capacity = *rc::gen::element<std::int64_t>(0, 1, 3);
  s.timeout = *rc::gen::element(5.0, 20.0, retrylab::unbounded_cap);
  s.max_attempts = *rc::gen::element(1, 3, 50);
  s.backoff = {*rc::gen::element(Strategy::none, Strategy::full, Strategy::decorrelated), 5.0, 200.0, 0.0};
  const std::string budget = *rc::gen::element<std::string>("none", "aws-standard", "grpc", "finagle", "sre-adaptive");
  s.budget = mc::budget_preset(budget);
  s.breaker = mc::breaker_preset(*rc::gen::element<std::string>("none", "hystrix", "resilience4j"));
  s.idempotency = *rc::gen::element(mc::Idempotency::none, mc::Idempotency::per_attempt, mc::Idempotency::fixed);
  const auto r = mc::simulate_dependency_run(s, *rc::gen::inRange<std::uint64_t>(0, 1000), 0);

  RC_ASSERT(r.successes + r.failures == r.requests);
  // Every try is either rejected locally or reaches the dependency as an attempt.
  RC_ASSERT(r.attempts == r.requests + r.retries - r.rejected_by_breaker - r.rejected_by_throttle);
  RC_ASSERT(r.effects >= r.successes);  // a success seen by the client is a completed effect
  RC_ASSERT(r.effects <= r.attempts - r.rejected_by_capacity);
  RC_ASSERT(r.hidden_effects <= r.failures);
  RC_ASSERT(r.timeouts <= r.attempts);
  if (s.idempotency == mc::Idempotency::fixed) RC_ASSERT(r.duplicate_effects == 0);
  if (std::isinf(s.timeout)) RC_ASSERT(r.timeouts == 0 && r.hidden_effects == 0 && r.duplicate_effects == 0);
  if (!s.breaker.enabled) RC_ASSERT(r.rejected_by_breaker == 0);
  if (s.capacity == 0) RC_ASSERT(r.rejected_by_capacity == 0);
  if (s.max_attempts == 1) RC_ASSERT(r.retries == 0);
  if (r.requests > 0) RC_ASSERT(r.max_waiting >= 1);
  // Retries are granted retries, so the budget's bound applies to them (analytic/budget.hpp).
  const double retries = static_cast<double>(r.retries), successes = static_cast<double>(r.successes);
  if (budget == "none" || budget == "sre-adaptive") RC_ASSERT(r.retries_blocked == 0);
  if (budget == "grpc") RC_ASSERT(retries <= retrylab::max_retries(retrylab::grpc_throttling(), successes) + 1e-9);
  // botocore gives a successful retry its cost back: kept retries <= (500 + first-attempt successes)/5,
  // so R <= 100 + S.
  if (budget == "aws-standard") RC_ASSERT(retries <= retrylab::max_retries(retrylab::aws_standard(), 0.0) + successes);
  // Finagle: when the whole run lies inside one ttl (10 s), every request and retry is in the window.
  if (budget == "finagle" && r.end_time < 10000.0)
    RC_ASSERT(retries <= retrylab::finagle_max_retries(retrylab::FinagleBudget{}, static_cast<double>(r.requests)));
}
