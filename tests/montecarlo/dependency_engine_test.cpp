// The failing dependency of paper 2 on the engine's `none` model, as papers/backoff-alone/study.toml
// writes it (attempt-durations of the 10 ms mean service; a request every 20 ms for 10 s, at most 3
// attempts, full jitter base 10 ms cap 1 s, settle): exact cases (total outage, no failure, the
// budgets at a total outage against their bounds, the dependency's capacity as a concurrency limit,
// a breaker during an outage), determinism, and the accounting identities and budget bounds over
// random scenarios (fixed rapidcheck seed). About 1 s.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <span>
#include <string>

#include "analytic/budget.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

namespace {

int preset_index(const std::string& name, std::span<const std::string_view> names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

mc::Scenario dependency() {
  mc::Scenario s;
  s.model = Model::none;
  s.traffic.rate = 0.5;          // 0.05 per ms
  s.measurement.horizon = 1000;  // 10 s: ~500 requests
  s.measurement.collapse = 1'000'000'000;
  s.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  s.client.max_attempts = 3;
  s.measurement.settle = true;
  s.client.attempt_ms = 10.0;
  return s;
}

mc::RunResult run(const mc::Scenario& s, std::uint64_t index = 0) { return mc::simulate_run(s, 7, index); }

double retries(const mc::RunResult& r) {
  return static_cast<double>(r.attempts) + r.metric("breaker_rejected") + r.metric("throttled") -
         static_cast<double>(r.clients_arrived);
}

}  // namespace

TEST(DependencyEngine, TotalOutageWithoutControlsMakesExactlyMaxAttemptsPerRequest) {
  mc::Scenario s = dependency();
  s.failures.failure_prob = 1.0;
  const auto r = run(s);
  ASSERT_GT(r.clients_arrived, 100);
  EXPECT_EQ(r.attempts, 3 * r.clients_arrived);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, r.clients_arrived);
  EXPECT_TRUE(std::isnan(r.latency));
  EXPECT_EQ(r.stop, mc::StopReason::finished);  // settle: every request resolved
}

TEST(DependencyEngine, HealthyDependencyServesEveryRequestOnceInOneServiceTime) {
  const auto r = run(dependency());
  EXPECT_EQ(r.attempts, r.clients_arrived);
  EXPECT_EQ(r.successes, r.clients_arrived);
  // One service time (10 ms). A latency is the difference of two clock readings, (t + 1) − t, so it
  // is 1 to within half a unit in the last place of t + 1 (t < 2,048: 2^−42), not always exactly 1.
  EXPECT_NEAR(r.latency, 1.0, 0x1p-42);
  EXPECT_NEAR(r.metric("latency_p99"), 1.0, 0x1p-42);
  EXPECT_EQ(r.metric("effects"), r.successes);
  EXPECT_EQ(r.metric("duplicate_effects"), 0);
}

TEST(DependencyEngine, AwsStandardBudgetAtATotalOutageGrantsItsBoundExactly) {
  // max_retries(aws_standard, 0) = 500/5 = 100 (and 50 when every failure is a timeout: cost 10).
  mc::Scenario s = dependency();
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 1000;
  s.client.budget.preset = preset_index("aws-standard", mc::budget_preset_names);
  auto r = run(s);
  EXPECT_EQ(retries(r), retrylab::max_retries(retrylab::aws_standard(), 0.0));
  EXPECT_GT(r.metric("retries_denied"), 0);
  s.client.timeout = 0.5;  // shorter than the 10 ms service: every attempt times out
  r = run(s);
  EXPECT_EQ(retries(r), retrylab::max_retries(retrylab::aws_standard_timeout(), 0.0));
  EXPECT_EQ(r.metric("timed_out"), r.attempts);
}

TEST(DependencyEngine, GrpcAndFinagleBudgetsAtATotalOutageStayWithinTheirBounds) {
  mc::Scenario s = dependency();
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 1000;
  s.client.budget.preset = preset_index("grpc", mc::budget_preset_names);
  auto r = run(s);
  EXPECT_EQ(retries(r), 4.0);  // tokens 10 → 9, 8, 7, 6 allow; 5 blocks (gRFC A6)
  s.client.budget.preset = preset_index("finagle", mc::budget_preset_names);
  s.measurement.horizon = 900;  // within one ttl: retries <= 100 + 0.2·requests
  r = run(s);
  EXPECT_LE(retries(r),
            retrylab::finagle_max_retries(retrylab::FinagleBudget{}, static_cast<double>(r.clients_arrived)));
  EXPECT_GT(r.metric("retries_denied"), 0);
  EXPECT_GE(retries(r), 100.0);  // the budget binds, and its reserve alone grants 100
}

TEST(DependencyEngine, BreakerRejectsDuringAnOutageAndTheDependencyRecovers) {
  mc::Scenario s = dependency();
  s.measurement.horizon = 3000;
  s.failures.outage_start = 500;
  s.failures.outage_end = 1500;
  s.measurement.recovery_window = 100;
  s.client.breaker.preset = preset_index("hystrix", mc::breaker_preset_names);
  const auto r = run(s);
  EXPECT_GE(r.metric("breaker_opened"), 1);
  EXPECT_GT(r.metric("breaker_rejected"), 0);
  EXPECT_LT(r.attempts, 3 * r.clients_arrived);
  ASSERT_TRUE(std::isfinite(r.metric("recovery_time")));
  EXPECT_GE(r.metric("recovery_time"), s.measurement.recovery_window);
}

TEST(DependencyEngine, CapacityIsAConcurrencyLimitThatRejectsAtOnce) {
  mc::Scenario s = dependency();
  s.traffic.rate = 5.0;  // 5 attempts in flight on average
  s.admission.limit = 2;
  const auto r = run(s);
  EXPECT_GT(r.metric("rejected"), 0);
  EXPECT_GT(r.lost, 0);
  EXPECT_EQ(r.metric("served") + r.metric("rejected"), r.attempts);
}

// Accounting identities and the budgets' bounds over random small scenarios (fixed rapidcheck seed;
// replay with RC_PARAMS="seed=...").
RC_GTEST_PROP(DependencyEngine, AccountingAndBudgetBoundsHoldInEveryRun, ()) {
  mc::Scenario s = dependency();
  s.traffic.rate = *rc::gen::element(0.1, 0.5, 2.0);
  s.measurement.horizon = *rc::gen::element(50.0, 200.0, 500.0);
  s.failures.failure_prob = *rc::gen::element(0.0, 0.1, 0.5, 1.0);
  if (*rc::gen::arbitrary<bool>()) {
    s.failures.outage_start = s.measurement.horizon * 0.2;
    s.failures.outage_end = s.measurement.horizon * 0.6;
    s.failures.outage_fraction = *rc::gen::element(0.5, 1.0);
  }
  s.resource.service = *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential);
  s.admission.limit = *rc::gen::element<std::int64_t>(0, 1, 3);
  s.client.timeout = *rc::gen::element(0.5, 2.0, retrylab::unbounded_cap);
  s.client.max_attempts = *rc::gen::element(1, 3, 50);
  s.backoff = {*rc::gen::element(Strategy::full, Strategy::decorrelated), 0.5, 20.0, 0.0};
  const std::string budget = *rc::gen::element<std::string>("none", "aws-standard", "grpc", "finagle", "sre-adaptive");
  s.client.budget.preset = preset_index(budget, mc::budget_preset_names);
  s.client.breaker.preset =
      preset_index(*rc::gen::element<std::string>("none", "hystrix", "resilience4j"), mc::breaker_preset_names);
  s.client.idempotency = *rc::gen::element(mc::Idempotency::none, mc::Idempotency::per_attempt, mc::Idempotency::fixed);
  const auto r = mc::simulate_run(s, *rc::gen::inRange<std::uint64_t>(0, 1000), 0);

  RC_ASSERT(r.stop == mc::StopReason::finished);
  RC_ASSERT(r.successes + r.lost == r.clients_arrived);  // settle: every request resolves
  RC_ASSERT(r.metric("served") + r.metric("rejected") == r.attempts);
  RC_ASSERT(r.metric("effects") >= r.successes);  // a success seen by the client is a completed effect
  RC_ASSERT(r.metric("effects") <= r.metric("served"));
  RC_ASSERT(r.metric("hidden_effects") <= r.lost);
  RC_ASSERT(r.metric("timed_out") <= r.attempts);
  if (s.client.idempotency == mc::Idempotency::fixed) RC_ASSERT(r.metric("duplicate_effects") == 0);
  if (std::isinf(s.client.timeout))
    RC_ASSERT(r.metric("timed_out") == 0 && r.metric("hidden_effects") == 0 && r.metric("duplicate_effects") == 0);
  if (s.client.breaker.preset == 0) RC_ASSERT(r.metric("breaker_rejected") == 0);
  if (s.admission.limit == 0) RC_ASSERT(r.metric("rejected") == 0);
  if (s.client.max_attempts == 1) RC_ASSERT(retries(r) == 0.0);
  const double successes = static_cast<double>(r.successes);
  if (budget == "none" || budget == "sre-adaptive") RC_ASSERT(r.metric("retries_denied") == 0);
  if (budget == "grpc") RC_ASSERT(retries(r) <= retrylab::max_retries(retrylab::grpc_throttling(), successes) + 1e-9);
  // botocore gives a successful retry its cost back: kept retries <= (500 + first-attempt successes)/5,
  // so R <= 100 + S.
  if (budget == "aws-standard")
    RC_ASSERT(retries(r) <= retrylab::max_retries(retrylab::aws_standard(), 0.0) + successes);
}

TEST(DependencyEngine, SameBytesForAnyThreadCount) {
  mc::Scenario s = dependency();
  s.failures.failure_prob = 0.3;
  s.resource.service = mc::ServiceDist::lognormal;
  s.resource.service_cv = 1.3;
  s.client.timeout = 2.5;
  s.failures.outage_start = 200;
  s.failures.outage_end = 400;
  s.failures.outage_fraction = 0.5;
  s.client.budget.preset = preset_index("sre-adaptive", mc::budget_preset_names);
  s.client.breaker.preset = preset_index("resilience4j", mc::breaker_preset_names);
  s.admission.limit = 4;
  const auto a = mc::simulate(s, {6, 11, 1}), b = mc::simulate(s, {6, 11, 2});
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].attempts, b[i].attempts) << i;
    EXPECT_EQ(a[i].successes, b[i].successes) << i;
    EXPECT_EQ(std::memcmp(&a[i].latency, &b[i].latency, sizeof(double)), 0) << i;
  }
  EXPECT_NE(a[0].attempts, a[1].attempts);  // runs differ
}
