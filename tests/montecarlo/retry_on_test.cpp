// Failure kinds and the status-code policy (components/retry_on.hpp, injection.hpp, limit.hpp):
// exact cases by hand on a dependency that fails every attempt (model none, failure_prob 1) or a
// one-slot limit, so only the kinds decide which requests retry; each case states its count. Then
// the capped amplification under overload (rejections answered as throttled, a client that retries
// only retryable failures) and the refusals of fields that cannot apply.
#include <gtest/gtest.h>

#include <string>

#include "analytic/error.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using mc::FailureKind;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::refused_field;

namespace {

constexpr int all = 0, retryable = 1, throttled = 2, retryable_throttled = 3;

mc::Scenario failing_burst(std::int64_t clients, FailureKind kind) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = clients;
  s.failures.failure_prob = 1.0;
  s.failures.failure_kind = kind;
  s.client.max_attempts = 3;
  return s;
}

mc::RunResult run(const mc::Scenario& s) {
  mc::check_scenario(s);
  return mc::simulate_run(s, 5, 0);
}

}  // namespace

TEST(RetryOn, AFatalFailureEndsItsRequestAtOnce) {
  mc::Scenario s = failing_burst(8, FailureKind::fatal);
  s.client.retry_on = retryable;
  const mc::RunResult r = run(s);
  EXPECT_EQ(r.attempts, 8);  // one each: none is retried
  EXPECT_EQ(r.lost, 8);
  EXPECT_EQ(r.metric("not_retried"), 8);
}

TEST(RetryOn, AListedKindIsRetriedUpToTheLimit) {
  mc::Scenario s = failing_burst(8, FailureKind::throttled);
  s.client.retry_on = retryable_throttled;
  const mc::RunResult r = run(s);
  EXPECT_EQ(r.attempts, 8 * 3);  // max_attempts ends each request
  EXPECT_EQ(r.lost, 8);
  EXPECT_EQ(r.metric("not_retried"), 0);
  s.client.retry_on = retryable;  // throttled no longer listed
  const mc::RunResult q = run(s);
  EXPECT_EQ(q.attempts, 8);
  EXPECT_EQ(q.metric("not_retried"), 8);
  s.client.retry_on = throttled;
  EXPECT_EQ(run(s).attempts, 8 * 3);
}

TEST(RetryOn, AllIsTheDefaultAndRetriesEveryKind) {
  // retry_on all (the default, as before kinds existed): even a fatal failure is retried, until
  // max_attempts ends the request. (That the defaults keep every earlier result's bytes is the
  // engine fingerprints' test.)
  mc::Scenario s = failing_burst(8, FailureKind::fatal);
  EXPECT_EQ(s.client.retry_on, all);
  const mc::RunResult r = run(s);
  EXPECT_EQ(r.attempts, 8 * 3);
  EXPECT_EQ(r.lost, 8);
  EXPECT_EQ(r.metric("not_retried"), 0);
}

TEST(RetryOn, TheOutageHasItsOwnKind) {
  // Every attempt of the burst ends at 1, inside the outage [0, 5) whose failures are fatal: each
  // request ends there. The same outage with retryable failures retries until max_attempts.
  mc::Scenario s = failing_burst(6, FailureKind::retryable);
  s.failures.failure_prob = 0.0;
  s.failures.outage_end = 5.0;
  s.failures.outage_kind = FailureKind::fatal;
  s.client.retry_on = retryable;
  const mc::RunResult r = run(s);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.metric("not_retried"), 6);
  s.failures.outage_kind = FailureKind::retryable;
  EXPECT_EQ(run(s).metric("not_retried"), 0);
}

TEST(RetryOn, RejectionsCarryTheirKind) {
  // A burst of 10 on one slot: 9 are rejected at once. As 429s that only retryable failures retry,
  // they end there; as 503s they retry and every request is answered in the end.
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = 10;
  s.admission.limit = 1;
  s.admission.reject_kind = FailureKind::throttled;
  s.client.retry_on = retryable;
  const mc::RunResult r = run(s);
  EXPECT_EQ(r.successes, 1);
  EXPECT_EQ(r.lost, 9);
  EXPECT_EQ(r.metric("not_retried"), 9);
  s.admission.reject_kind = FailureKind::retryable;
  const mc::RunResult q = run(s);
  EXPECT_EQ(q.successes, 10);
  EXPECT_EQ(q.metric("not_retried"), 0);
}

TEST(RetryOn, CapsAmplificationUnderOverload) {
  // Twice the capacity offered to a one-slot server that rejects the excess as throttled: a client
  // that retries every failure sends several attempts per request; one that retries only retryable
  // failures sends exactly one (each request's first attempt, answered or rejected).
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.rate = 2.0;
  s.measurement.horizon = 400.0;
  s.admission.limit = 1;
  s.admission.reject_kind = FailureKind::throttled;
  const mc::RunResult every = run(s);
  s.client.retry_on = retryable;
  const mc::RunResult listed = run(s);
  EXPECT_GT(static_cast<double>(every.attempts) / static_cast<double>(every.clients_arrived), 2.0);
  EXPECT_EQ(listed.attempts, listed.clients_arrived);
}

TEST(RetryOn, FieldsThatCannotApplyAreRefused) {
  mc::Scenario s;
  s.traffic.clients = 4;
  s.failures.failure_kind = FailureKind::fatal;  // no failure_prob
  EXPECT_EQ(refused_field(s), "failure_kind");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.failures.outage_kind = FailureKind::throttled;  // no outage
  EXPECT_EQ(refused_field(s), "outage_kind");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.admission.reject_kind = FailureKind::throttled;  // no rejections
  EXPECT_EQ(refused_field(s), "reject_kind");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.client.retries = false;
  s.client.retry_on = retryable;
  EXPECT_EQ(refused_field(s), "retry_on");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.client.hedge.attempts = 2;
  s.client.retry_on = retryable;
  EXPECT_EQ(refused_field(s), "retry_on");
}
