// Client-side controls (montecarlo/controls.hpp): each budget's bound as a rapidcheck property over
// random event sequences (interleavings of requests, successes, failures, timeouts and times), the
// breakers' state rules as properties, and exact cases worked by hand from the presets' sources
// (botocore standard.py, gRFC A6, Finagle RetryBudget, Hystrix and resilience4j defaults, SRE book
// ch. 21). Fixed rapidcheck seed (RC_PARAMS in tests/montecarlo/CMakeLists.txt); the seed printed on
// failure replays the case. About 1 s.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <deque>
#include <limits>
#include <vector>

#include "analytic/budget.hpp"
#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::TokenBucket;

namespace {

// One client-side event of a random sequence.
enum class Op { request, success, failure, timeout };

struct Step {
  Op op;
  double dt;  // ms since the previous step (>= 0)
};

rc::Gen<std::vector<Step>> gen_steps(int max_len, double max_dt) {
  return rc::gen::exec([max_len, max_dt] {
    const auto n = static_cast<std::size_t>(*rc::gen::inRange(0, max_len + 1));
    return *rc::gen::container<std::vector<Step>>(n, rc::gen::exec([max_dt] {
                                                    Step s;
                                                    s.op = *rc::gen::element(Op::request, Op::success, Op::failure,
                                                                             Op::timeout);
                                                    // dt on a grid (including 0: simultaneous events) so expiry
                                                    // boundaries are hit exactly.
                                                    s.dt = max_dt * *rc::gen::inRange(0, 11) / 10.0;
                                                    return s;
                                                  }));
  });
}

// Feeds `steps` to a budget as a client would: a failure or timeout is followed by try_retry; a
// success hands back what the last granted retry paid (0 if the last failure was not retried).
struct Tally {
  std::int64_t retries = 0, successes = 0, first_successes = 0, retried_successes = 0;
};

template <typename Budget>
Tally feed(Budget& b, const std::vector<Step>& steps) {
  Tally tally;
  double t = 0.0, paid = 0.0;
  for (const Step& s : steps) {
    t += s.dt;
    switch (s.op) {
      case Op::request:
        b.on_request(t);
        paid = 0.0;
        break;
      case Op::success:
        b.on_success(t, paid);
        ++tally.successes;
        if (paid > 0.0)
          ++tally.retried_successes;
        else
          ++tally.first_successes;
        paid = 0.0;
        break;
      case Op::failure:
      case Op::timeout: {
        const bool timeout = s.op == Op::timeout;
        b.on_failure(t, timeout);
        const mc::RetryGrant g = b.try_retry(t, timeout);
        if (g.allowed) ++tally.retries;
        paid = g.allowed ? g.paid : 0.0;
        break;
      }
    }
  }
  return tally;
}

// Tokens are sums of a few hundred binary fractions at most: exact here (costs, refunds and
// capacities below are dyadic), so the bounds are checked with no tolerance.
rc::Gen<mc::TokenBucketConfig> gen_bucket() {
  return rc::gen::exec([] {
    mc::TokenBucketConfig c;
    c.bucket.capacity = *rc::gen::element(1.0, 8.0, 20.0, 500.0);
    c.bucket.retry_cost = *rc::gen::element(0.5, 1.0, 5.0, 10.0);
    c.timeout_cost = *rc::gen::element(0.5, 1.0, 5.0, 10.0);
    c.bucket.refund = *rc::gen::element(0.0, 0.25, 1.0, 2.0);
    c.bucket.threshold = c.bucket.capacity * *rc::gen::element(0.0, 0.25, 0.5);
    c.charge = *rc::gen::element(mc::Charge::per_retry, mc::Charge::per_failure);
    c.refund_mode = *rc::gen::element(mc::Refund::per_success, mc::Refund::cost_paid);
    return c;
  });
}

}  // namespace

// ----------------------------------------------------------------------------------- token buckets

RC_GTEST_PROP(TokenBucketBudget, RetriesWithinTheTokenBucketBound, ()) {
  const mc::TokenBucketConfig c = *gen_bucket();
  const auto steps = *gen_steps(300, 50.0);
  mc::TokenBucketBudget b(c);
  const Tally tally = feed(b, steps);
  RC_ASSERT(b.tokens() >= 0.0);
  RC_ASSERT(b.tokens() <= c.bucket.capacity);
  // The bound charges every retry the cheapest cost (analytic/budget.hpp, proofs/Budget.v:
  // token_bucket_bound). per_failure: a retry follows a failure that took its cost while the bucket
  // stayed > threshold.
  TokenBucket cheapest = c.bucket;
  cheapest.retry_cost = std::min(c.bucket.retry_cost, c.timeout_cost);
  if (c.refund_mode == mc::Refund::per_success || c.charge == mc::Charge::per_failure) {
    RC_ASSERT(static_cast<double>(tally.retries) <=
              retrylab::max_retries(cheapest, static_cast<double>(tally.successes)));
  } else {
    // botocore: a successful retry gives its cost back, so those retries are free; the kept ones are
    // bounded by the first-attempt refunds.
    RC_ASSERT(static_cast<double>(tally.retries - tally.retried_successes) <=
              retrylab::max_retries(cheapest, static_cast<double>(tally.first_successes)));
  }
}

RC_GTEST_PROP(TokenBucketBudget, GrpcPresetWithinMaxTokensHalfPlusRatioTimesSuccesses, ()) {
  const auto steps = *gen_steps(400, 10.0);
  mc::TokenBucketBudget b(mc::grpc_budget());
  const Tally tally = feed(b, steps);
  // R <= 5 + 0.1·S; 0.1 is not dyadic, so the sums of refunds carry rounding of at most
  // S·ulp(10)/2 ≈ S·9e-16: 1e-12 covers any S <= 400.
  RC_ASSERT(static_cast<double>(tally.retries) <=
            retrylab::max_retries(retrylab::grpc_throttling(), static_cast<double>(tally.successes)) + 1e-12);
}

TEST(TokenBucketBudget, AwsStandardTotalOutageGrants100RetriesOr50AfterTimeouts) {
  // botocore: 500 tokens, 5 per retry (10 after a timeout), acquire fails when cost > available.
  for (const bool timeout : {false, true}) {
    mc::TokenBucketBudget b(mc::aws_standard_budget());
    int granted = 0;
    for (int i = 0; i < 1000; ++i) {
      b.on_failure(i, timeout);
      if (b.try_retry(i, timeout).allowed) ++granted;
    }
    EXPECT_EQ(granted, timeout ? 50 : 100);
    EXPECT_EQ(b.tokens(), 0.0);
    EXPECT_EQ(retrylab::max_retries(timeout ? retrylab::aws_standard_timeout() : retrylab::aws_standard(), 0.0),
              granted);
  }
}

TEST(TokenBucketBudget, AwsStandardGivesBackTheCostPaidBySuccessfulRetryAndOneOtherwise) {
  mc::TokenBucketBudget b(mc::aws_standard_budget());
  const mc::RetryGrant g = b.try_retry(0.0, true);  // after a timeout: 10
  ASSERT_TRUE(g.allowed);
  EXPECT_EQ(g.paid, 10.0);
  EXPECT_EQ(b.tokens(), 490.0);
  b.on_success(1.0, g.paid);
  EXPECT_EQ(b.tokens(), 500.0);
  b.try_retry(2.0, false);
  EXPECT_EQ(b.tokens(), 495.0);
  b.on_success(3.0, 0.0);  // a first-attempt success: NO_RETRY_INCREMENT
  EXPECT_EQ(b.tokens(), 496.0);
}

TEST(TokenBucketBudget, GrpcTotalOutageAllowsFourRetries) {
  // gRFC A6: tokens 10, each failure −1, retries only while tokens > 5: allowed at 9, 8, 7, 6.
  mc::TokenBucketBudget b(mc::grpc_budget());
  int granted = 0;
  for (int i = 0; i < 100; ++i) {
    b.on_failure(i, false);
    if (b.try_retry(i, false).allowed) ++granted;
  }
  EXPECT_EQ(granted, 4);
  EXPECT_EQ(b.tokens(), 0.0);  // floored at 0
}

// ------------------------------------------------------------------------------------------ finagle

RC_GTEST_PROP(FinagleBudget, RetriesInEveryTtlWindowWithinReservePlusPercentOfRequests, ()) {
  mc::FinagleConfig c;
  c.budget.ttl = *rc::gen::element(1.0, 2.0, 2.5);
  c.budget.min_retries_per_sec = *rc::gen::element(0.0, 1.0, 3.0);
  c.budget.percent_can_retry = *rc::gen::element(0.0, 0.1, 0.2, 0.3, 1.0, 2.0);
  const auto steps = *gen_steps(400, 250.0);
  mc::FinagleBudgetControl b(c);
  const double ttl = c.budget.ttl * 1000.0;
  std::vector<double> requests, retries;
  double t = 0.0;
  for (const Step& s : steps) {
    t += s.dt;
    if (s.op == Op::request) {
      b.on_request(t);
      requests.push_back(t);
    } else if (s.op == Op::failure || s.op == Op::timeout) {
      b.on_failure(t, s.op == Op::timeout);
      if (b.try_retry(t, s.op == Op::timeout).allowed) {
        retries.push_back(t);
        auto in_window = [&](const std::vector<double>& xs) {
          std::int64_t n = 0;
          for (double x : xs) n += (t - x < ttl) ? 1 : 0;
          return n;
        };
        RC_ASSERT(static_cast<double>(in_window(retries)) <=
                  retrylab::finagle_max_retries(c.budget, static_cast<double>(in_window(requests))));
      }
    } else {
      b.on_success(t, 0.0);
    }
  }
}

TEST(FinagleBudget, DefaultReserveIs100RetriesPerTtlPlusOnePer5Requests) {
  // RetryBudget(): ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2: deposit 1000, withdrawal 5000,
  // reserve 10·10·5000.
  mc::FinagleBudgetControl b(mc::FinagleConfig{});
  EXPECT_EQ(b.deposit_amount(), 1000);
  EXPECT_EQ(b.withdrawal_amount(), 5000);
  for (int i = 0; i < 5; ++i) b.on_request(0.0);
  int granted = 0;
  for (int i = 0; i < 1000; ++i) granted += b.try_retry(0.0, false).allowed ? 1 : 0;
  EXPECT_EQ(granted, 101);
  // 9,999 ms later everything still counts; at 10,000 ms it has all expired: the reserve is back.
  EXPECT_FALSE(b.try_retry(9999.0, false).allowed);
  granted = 0;
  for (int i = 0; i < 1000; ++i) granted += b.try_retry(10000.0, false).allowed ? 1 : 0;
  EXPECT_EQ(granted, 100);
  EXPECT_EQ(retrylab::finagle_max_retries(retrylab::FinagleBudget{}, 5.0), 101.0);
}

// ------------------------------------------------------------------------------ adaptive throttling

RC_GTEST_PROP(AdaptiveThrottle, RejectsWithTheSreBookProbability, ()) {
  mc::AdaptiveThrottleConfig c;
  c.k = *rc::gen::element(1.0, 1.5, 2.0);
  c.window = *rc::gen::element(100.0, 1000.0, 120000.0);
  const auto steps = *gen_steps(300, 40.0);
  mc::AdaptiveThrottle th(c);
  std::deque<double> requests, accepts;  // reference counts, kept independently
  double t = 0.0;
  for (const Step& s : steps) {
    t += s.dt;
    while (!requests.empty() && t - requests.front() >= c.window) requests.pop_front();
    while (!accepts.empty() && t - accepts.front() >= c.window) accepts.pop_front();
    if (s.op == Op::request) {
      const double n = static_cast<double>(requests.size()), a = static_cast<double>(accepts.size());
      const double p = std::max(0.0, (n - c.k * a) / (n + 1.0));
      const double u = *rc::gen::element(0.001, 0.25, 0.5, 0.75, 0.999);
      RC_ASSERT(th.admit(t, u) == !(u < p));
      requests.push_back(t);
    } else if (s.op == Op::success) {
      th.on_success(t, 0.0);
      accepts.push_back(t);
    } else {
      th.on_failure(t, s.op == Op::timeout);
      RC_ASSERT(th.try_retry(t, false).allowed);
    }
  }
}

TEST(AdaptiveThrottle, AfterNRejectedRequestsTheProbabilityIsNOverNPlusOne) {
  mc::AdaptiveThrottle th(mc::AdaptiveThrottleConfig{});
  for (int i = 0; i < 9; ++i) th.admit(i, 0.999999);
  EXPECT_DOUBLE_EQ(th.rejection_probability(9.0), 9.0 / 10.0);
  th.on_success(10.0, 0.0);
  EXPECT_DOUBLE_EQ(th.rejection_probability(10.0), (9.0 - 2.0) / 10.0);
  // At 120,009 ms the requests of 0..8 ms have left the 2-minute window, the accept of 10 ms has not:
  // max(0, (0 − 2·1)/(0 + 1)) = 0.
  EXPECT_EQ(th.rejection_probability(9.0 + 120000.0), 0.0);
}

// ----------------------------------------------------------------------------------------- breakers

namespace {
rc::Gen<mc::BreakerConfig> gen_breaker() {
  return rc::gen::exec([] {
    mc::BreakerConfig c = *rc::gen::element(mc::hystrix_breaker(), mc::resilience4j_breaker());
    c.window_kind = *rc::gen::element(mc::BreakerWindow::time, mc::BreakerWindow::count);
    c.window =
        c.window_kind == mc::BreakerWindow::time ? *rc::gen::element(50.0, 200.0) : *rc::gen::element(1.0, 5.0, 20.0);
    c.minimum_calls = *rc::gen::inRange<std::int64_t>(1, 8);
    c.failure_threshold = *rc::gen::element(0.25, 0.5, 1.0);
    c.open_duration = *rc::gen::element(10.0, 100.0);
    c.half_open_calls = *rc::gen::inRange<std::int64_t>(1, 4);
    return c;
  });
}
}  // namespace

RC_GTEST_PROP(CircuitBreaker, NeverAdmitsWhileOpenAndAtMostTheProbesWhenHalfOpen, ()) {
  const mc::BreakerConfig c = *gen_breaker();
  mc::CircuitBreaker br(c);
  const int n = *rc::gen::inRange(1, 400);
  struct Pending {
    double at;
    mc::BreakerTicket ticket;
    bool success;
  };
  std::vector<Pending> pending;  // outcomes to report, in random order of time
  double t = 0.0;
  std::int64_t probes_this_half_open = 0, opened = 0;
  mc::BreakerState last = mc::BreakerState::closed;
  auto observe = [&] {  // counts transitions into open; a new half-open period starts with no probe
    if (br.state() == mc::BreakerState::open && last != mc::BreakerState::open) ++opened;
    if (br.state() == mc::BreakerState::half_open && last != mc::BreakerState::half_open) probes_this_half_open = 0;
    last = br.state();
  };
  for (int i = 0; i < n; ++i) {
    t += *rc::gen::element(0.0, 1.0, 5.0, 20.0);
    // Report outcomes due by t, in order.
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) { return a.at < b.at; });
    while (!pending.empty() && pending.front().at <= t) {
      br.record(pending.front().at, pending.front().ticket, pending.front().success);
      pending.erase(pending.begin());
      observe();
    }
    const mc::BreakerState before = br.state();
    const double opened_at = br.opened_at();
    const mc::BreakerTicket ticket = br.admit(t);
    if (before == mc::BreakerState::open && t - opened_at < c.open_duration) RC_ASSERT(!ticket.admitted());
    if (before == mc::BreakerState::closed) RC_ASSERT(ticket.admission == mc::BreakerAdmission::admitted);
    observe();
    if (ticket.admission == mc::BreakerAdmission::probe) {
      RC_ASSERT(br.state() == mc::BreakerState::half_open);
      ++probes_this_half_open;
      RC_ASSERT(probes_this_half_open <= c.half_open_calls);
    }
    if (ticket.admitted())
      pending.push_back({t + *rc::gen::element(0.0, 3.0, 30.0), ticket, *rc::gen::element(true, false, false)});
  }
  RC_ASSERT(br.times_opened() == opened);
}

RC_GTEST_PROP(CircuitBreaker, OpensOnlyWithEnoughCallsAtTheFailureThreshold, ()) {
  // Closed, count window, every call reported at once: the breaker opens exactly when a reference
  // window of the last `window` outcomes holds >= min(minimum_calls, window) with failures >= threshold.
  mc::BreakerConfig c = *gen_breaker();
  c.window_kind = mc::BreakerWindow::count;
  mc::CircuitBreaker br(c);
  std::deque<bool> window;
  const auto outcomes = *rc::gen::container<std::vector<bool>>(rc::gen::arbitrary<bool>());
  double t = 0.0;
  for (bool success : outcomes) {
    const mc::BreakerTicket ticket = br.admit(t);
    RC_ASSERT(ticket.admission == mc::BreakerAdmission::admitted);
    br.record(t, ticket, success);
    window.push_back(!success);
    if (static_cast<double>(window.size()) > c.window) window.pop_front();
    std::int64_t failures = 0;
    for (bool f : window) failures += f ? 1 : 0;
    const auto size = static_cast<std::int64_t>(window.size());
    const bool should_open = size >= std::min(c.minimum_calls, static_cast<std::int64_t>(c.window)) &&
                             static_cast<double>(failures) >= c.failure_threshold * static_cast<double>(size);
    RC_ASSERT((br.state() == mc::BreakerState::open) == should_open);
    if (should_open) return;
    t += 1.0;
  }
}

TEST(CircuitBreaker, HystrixOpensAtTwentyFailuresSleepsFiveSecondsAndProbesOnce) {
  mc::CircuitBreaker br(mc::breaker_preset("hystrix"));
  for (int i = 0; i < 19; ++i) br.record(i, br.admit(i), false);
  EXPECT_EQ(br.state(), mc::BreakerState::closed);  // 19 < requestVolumeThreshold 20
  br.record(19.0, br.admit(19.0), false);
  ASSERT_EQ(br.state(), mc::BreakerState::open);
  EXPECT_FALSE(br.admit(19.0 + 4999.0).admitted());
  const mc::BreakerTicket probe = br.admit(19.0 + 5000.0);
  EXPECT_EQ(probe.admission, mc::BreakerAdmission::probe);
  EXPECT_FALSE(br.admit(19.0 + 5001.0).admitted());  // one probe only
  br.record(19.0 + 5010.0, probe, true);
  EXPECT_EQ(br.state(), mc::BreakerState::closed);
}

TEST(CircuitBreaker, HystrixFailedProbeReopensForAnotherSleepWindow) {
  mc::CircuitBreaker br(mc::hystrix_breaker());
  for (int i = 0; i < 20; ++i) br.record(i, br.admit(i), i % 2 == 0);  // 10 of 20 fail: 50% >= 50%
  ASSERT_EQ(br.state(), mc::BreakerState::open);
  const mc::BreakerTicket probe = br.admit(6000.0);
  br.record(6001.0, probe, false);
  EXPECT_EQ(br.state(), mc::BreakerState::open);
  EXPECT_EQ(br.opened_at(), 6001.0);
  EXPECT_FALSE(br.admit(11000.0).admitted());
  EXPECT_TRUE(br.admit(11001.0).admitted());
}

TEST(CircuitBreaker, Resilience4jNeedsOneHundredCallsAndJudgesTenProbes) {
  for (const int probe_failures : {4, 5}) {
    mc::CircuitBreaker br(mc::breaker_preset("resilience4j"));
    for (int i = 0; i < 99; ++i) br.record(i, br.admit(i), false);
    EXPECT_EQ(br.state(), mc::BreakerState::closed);  // minimumNumberOfCalls 100
    br.record(99.0, br.admit(99.0), true);            // 99 of 100 failed
    ASSERT_EQ(br.state(), mc::BreakerState::open);
    EXPECT_FALSE(br.admit(99.0 + 59999.0).admitted());
    std::vector<mc::BreakerTicket> probes;
    for (int i = 0; i < 12; ++i) probes.push_back(br.admit(60099.0 + i));
    for (int i = 0; i < 10; ++i) EXPECT_EQ(probes[static_cast<std::size_t>(i)].admission, mc::BreakerAdmission::probe);
    EXPECT_FALSE(probes[10].admitted());
    for (int i = 0; i < 10; ++i) br.record(60200.0 + i, probes[static_cast<std::size_t>(i)], i >= probe_failures);
    // failureRateThreshold 50: 5 of 10 re-opens, 4 of 10 closes.
    EXPECT_EQ(br.state(), probe_failures == 5 ? mc::BreakerState::open : mc::BreakerState::closed);
  }
}

TEST(CircuitBreaker, LateOutcomesFromAnEarlierStateAreIgnored) {
  mc::CircuitBreaker br(mc::hystrix_breaker());
  const mc::BreakerTicket early = br.admit(0.0);
  for (int i = 1; i <= 20; ++i) br.record(i, br.admit(i), false);
  ASSERT_EQ(br.state(), mc::BreakerState::open);
  const mc::BreakerTicket probe = br.admit(5020.0);
  br.record(5021.0, early, true);  // admitted while closed: not the probe
  EXPECT_EQ(br.state(), mc::BreakerState::half_open);
  br.record(5022.0, probe, true);
  EXPECT_EQ(br.state(), mc::BreakerState::closed);
}

// -------------------------------------------------------------------------------------- bad input

TEST(Controls, BadInputNamesTheField) {
  auto field = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field([] { mc::budget_preset("aws"); }), "budget");
  EXPECT_EQ(field([] { mc::breaker_preset("istio"); }), "breaker");
  EXPECT_EQ(field([] {
              mc::TokenBucketConfig c = mc::aws_standard_budget();
              c.timeout_cost = 0.0;
              mc::TokenBucketBudget b(c);
            }),
            "timeout_cost");
  EXPECT_EQ(field([] {
              mc::FinagleConfig c;
              c.budget.ttl = 0.5;
              mc::FinagleBudgetControl b(c);
            }),
            "ttl");
  EXPECT_EQ(field([] {
              mc::AdaptiveThrottleConfig c;
              c.k = 0.5;
              mc::AdaptiveThrottle th(c);
            }),
            "k");
  EXPECT_EQ(field([] {
              mc::BreakerConfig c = mc::hystrix_breaker();
              c.failure_threshold = 0.0;
              mc::CircuitBreaker br(c);
            }),
            "failure_threshold");
  EXPECT_EQ(field([] {
              mc::BreakerConfig c = mc::resilience4j_breaker();
              c.window = 2.5;
              mc::CircuitBreaker br(c);
            }),
            "breaker_window");
  EXPECT_EQ(field([] {
              mc::TokenBucketBudget b(mc::aws_standard_budget());
              b.on_request(5.0);
              b.on_request(4.0);
            }),
            "time");
  EXPECT_EQ(field([] {
              mc::CircuitBreaker br(mc::hystrix_breaker());
              br.admit(std::numeric_limits<double>::quiet_NaN());
            }),
            "time");
}
