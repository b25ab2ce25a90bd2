// The client-side controls (retry budget, circuit breaker), request deadlines and injected failures
// (failure_prob, outage window) in the event loop with a contended resource: exact hand-worked
// cases, the budget's bound whatever else is on, and the input rules between these fields.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "analytic/error.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// One client on ps, nojitter base 1 cap 1000: attempts [0,1), [2,3), [5,6), [10,11), [19,20),
// [36,37), [69,70) (each sleep w_k = 2^(k-1) after the k-th failure).
mc::Scenario one_client() {
  mc::Scenario s;
  s.model = Model::ps;
  s.backoff = {Strategy::nojitter, 1.0, 1000.0, 0.0};
  s.traffic.clients = 1;
  return s;
}

TEST(EngineControls, TotalOutageFailsEveryAttemptInsideIt) {
  mc::Scenario s = one_client();
  s.failures.outage_start = 0.0;
  s.failures.outage_end = 50.0;  // attempts ending at 1, 3, 6, 11, 20, 37 fail; the one ending at 70 succeeds
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 7);
  EXPECT_EQ(r.metric("injected"), 6);
  EXPECT_EQ(r.successes, 1);
  EXPECT_DOUBLE_EQ(r.makespan, 70.0);
}

TEST(EngineControls, DeadlineEndsTheRequestWhenTheNextAttemptWouldStartLate) {
  mc::Scenario s = one_client();
  s.failures.failure_prob = 1.0;
  s.client.deadline = 30.0;  // after the failure at 20 the next attempt would start at 36 > 30
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 5);
  EXPECT_EQ(r.lost, 1);
  EXPECT_EQ(r.metric("deadline_lost"), 1);
  EXPECT_EQ(r.successes, 0);
  EXPECT_TRUE(r.drained);  // the burst client has left
  EXPECT_DOUBLE_EQ(r.drain_time, 20.0);
}

TEST(EngineControls, AwsStandardBudgetGrantsExactlyCapacityOverCostRetries) {
  // 200 clients, every attempt fails: the bucket (500 tokens, 5 per retry, refunds only on success)
  // grants exactly 100 retries; every client is then refused once and lost.
  mc::Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = 200;
  s.failures.failure_prob = 1.0;
  s.client.budget.preset = 1;  // aws-standard
  const mc::RunResult r = mc::simulate_run(s, 7, 0);
  EXPECT_EQ(r.attempts, 300);
  EXPECT_EQ(r.metric("retries_denied"), 200);
  EXPECT_EQ(r.lost, 200);
}

TEST(EngineControls, GenericTokenBucketGrantsCapacityMinusThresholdOverCost) {
  // The same outage with a bucket of 60 tokens, 4 per retry, retries only while >= 20 stay:
  // (60 − 20) / 4 = 10 retries, then every client is refused once and lost.
  mc::Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = 200;
  s.failures.failure_prob = 1.0;
  s.client.budget.preset = 5;  // token-bucket
  s.client.budget.capacity = 60.0;
  s.client.budget.cost = 4.0;
  s.client.budget.threshold = 20.0;
  const mc::RunResult r = mc::simulate_run(s, 7, 0);
  EXPECT_EQ(r.attempts, 210);
  EXPECT_EQ(r.metric("retries_denied"), 200);
  EXPECT_EQ(r.lost, 200);
  // The bucket's fields apply only to the token-bucket budget; its own rules name the field.
  s.client.budget.preset = 1;
  try {
    mc::check_scenario(s);
    FAIL() << "bucket_* with aws-standard was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "budget");
  }
  s.client.budget.preset = 5;
  s.client.budget.threshold = 60.0;
  try {
    mc::check_scenario(s);
    FAIL() << "a threshold at the capacity was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "bucket_threshold");
  }
}

TEST(EngineControls, BreakerRejectsCallsLocallyDuringAnOutage) {
  mc::Scenario s;
  s.model = Model::shared;
  s.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  s.traffic.rate = 0.2;
  s.measurement.horizon = 3000.0;
  s.client.max_attempts = 3;
  s.failures.outage_start = 500.0;
  s.failures.outage_end = 1500.0;
  const mc::RunResult plain = mc::simulate_run(s, 3, 0);
  EXPECT_EQ(plain.metric("breaker_rejected"), 0);
  s.client.breaker.preset = 1;  // hystrix: 10 s window, opens at >= 50% of >= 20 calls, 5 s open
  s.client.attempt_ms = 10.0;   // one attempt-duration = 10 ms
  const mc::RunResult guarded = mc::simulate_run(s, 3, 0);
  EXPECT_GT(guarded.metric("breaker_rejected"), 0);
  EXPECT_LT(guarded.attempts, plain.attempts);  // rejected calls are never sent
}

TEST(EngineControls, InputRules) {
  mc::Scenario s = one_client();
  s.client.budget.preset = 3;  // finagle keeps time: needs attempt_ms
  EXPECT_THROW(mc::check_scenario(s), InputError);
  s.client.attempt_ms = 20.0;
  EXPECT_NO_THROW(mc::check_scenario(s));
  mc::Scenario t = one_client();
  t.failures.outage_start = 10.0;
  EXPECT_THROW(mc::check_scenario(t), InputError);  // an outage start without an end
  t.failures.outage_end = 5.0;
  EXPECT_THROW(mc::check_scenario(t), InputError);  // end before start
  mc::Scenario u = one_client();
  u.backoff.strategy = Strategy::none;
  u.client.breaker.preset = 1;
  u.client.attempt_ms = 1.0;
  EXPECT_THROW(mc::check_scenario(u), InputError);  // would retry at one instant forever
  u.client.deadline = 6.0;
  EXPECT_THROW(mc::check_scenario(u), InputError);  // so would it with a deadline: the clock stands still
  u.client.max_attempts = 5;
  EXPECT_NO_THROW(mc::check_scenario(u));
}

// Whatever else is on (limit, timeout, retry limit, injected failures, breaker), a token-bucket
// budget without successes on a retry never grants more than capacity / cost retries, and the
// counts add up: every retry the budget refused lost its request.
RC_GTEST_PROP(EngineControls, BudgetBoundHoldsWithAnyMechanisms, ()) {
  mc::Scenario s;
  s.model = *rc::gen::element(Model::collision, Model::free, Model::shared, Model::ps);
  s.backoff = {*rc::gen::element(Strategy::full, Strategy::equal, Strategy::decorrelated), 1.0, 50.0, 0.0};
  s.traffic.clients = *rc::gen::inRange(1, 120);
  s.failures.failure_prob = 1.0;  // no success: no refund
  s.client.budget.preset = 1;     // aws-standard
  if (*rc::gen::arbitrary<bool>()) s.admission.limit = *rc::gen::inRange(1, 4);
  if (*rc::gen::arbitrary<bool>()) s.client.timeout = 0.5 + *rc::gen::inRange(0, 20) / 4.0;
  if (*rc::gen::arbitrary<bool>()) s.client.max_attempts = *rc::gen::inRange(2, 6);
  if (*rc::gen::arbitrary<bool>()) {
    s.client.breaker.preset = 1;
    s.client.attempt_ms = 5.0;
    if (s.client.max_attempts == 0) s.client.max_attempts = 8;
  }
  const mc::RunResult r = mc::simulate_run(s, 11, 0);
  RC_ASSERT(r.successes == 0);
  const std::int64_t sent_retries = r.attempts - s.traffic.clients;
  RC_ASSERT(sent_retries <= 100);
  RC_ASSERT(r.lost == s.traffic.clients);
  RC_ASSERT(r.metric("retries_denied") <= r.lost);
}

}  // namespace
