// Retries in flight (components/retries_in_flight.hpp, Envoy's max_retries and retry_budget).
// A property over fixed seeds and limits: an observer that counts the retries in flight by itself
// (from the scheduling of a retry, on_sleep, to the end of its attempt, on_end) never sees more
// than the limit, every retry asked is either sent or denied, every retry granted is sent (its
// attempt starts) unless the run stopped during its sleep, and at the end the limit holds exactly
// the places the observer counts (none leaked, none given back twice), also when attempts time out
// or fail with a kind the client does not retry. Then an exact case by hand, the capped
// amplification under overload, and the refusals of fields that cannot apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/support/build_metric.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::test::refused_field;
namespace d = retrylab::montecarlo::detail;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// Counts the retries that reach the after_sleep step with the verb still `retry` (asked); placed
// just before RetriesInFlight, so it sees every retry the limit is asked about. Decides nothing.
class Asked : public d::Component {
 public:
  static bool active(const mc::Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Asked(const mc::Scenario& /*s*/, const Faults& /*faults*/) {}
  template <class E>
  void decide(E& /*e*/, d::Decision& x) {
    if (x.ask == d::Ask::after_sleep && x.verb == d::Verb::retry) ++asked;
  }
  std::int64_t asked = 0;
};

// Its own count of the attempts and the retries in flight (by client serial), and the worst excess
// over the limit it recomputes at each scheduled retry.
struct Watch {
  std::int64_t fixed = 0;
  double percent = 0.0;
  std::unordered_set<std::int64_t> holding, sleeping;
  std::int64_t attempts = 0, retries = 0, most = 0, scheduled = 0, excess = 0, sent = 0;
  void on_arrival(std::int64_t /*client*/, double /*t*/, bool /*burst*/) {}
  void on_start(std::int64_t /*attempt*/, std::int64_t client, double /*t*/) {
    ++attempts;
    if (sleeping.erase(client) > 0) ++sent;  // a granted retry's attempt
  }
  void on_end(std::int64_t /*attempt*/, std::int64_t client, double /*start*/, double /*end*/, bool /*success*/) {
    --attempts;
    if (holding.erase(client) > 0) --retries;
  }
  void on_sleep(std::int64_t client, std::int32_t /*k*/, double /*sleep*/) {
    ++scheduled;
    holding.insert(client);
    sleeping.insert(client);
    ++retries;
    most = std::max(most, retries);
    const auto share = static_cast<std::int64_t>(std::floor(percent / 100.0 * static_cast<double>(attempts)));
    const std::int64_t limit = percent > 0 ? std::max(fixed, share) : fixed;
    excess = std::max(excess, retries - limit);
  }
};

using Parts =
    d::Parts<d::Service, d::Limit, d::Injection, d::Timeout, d::RetryLimit, d::RetryOn, Asked, d::RetriesInFlight>;

struct Outcomes {
  mc::RunResult result;
  std::int64_t asked = 0, held = 0;  // held: the limit's own count of places taken at the stop
  Watch watch;
};

Outcomes run(const mc::Scenario& s, std::uint64_t seed) {
  mc::check_scenario(s);
  Outcomes out;
  out.watch.fixed = s.client.retries_in_flight;
  out.watch.percent = s.client.retries_in_flight_percent;
  d::Engine<Model::none, Parts, Watch> engine(s, seed, 0, d::EngineOptions{}, out.watch);
  out.result = engine.run();
  out.asked = engine.parts().template get<Asked>().asked;
  out.held = engine.parts().template get<d::RetriesInFlight>().in_flight();
  return out;
}

mc::RunResult simulate(const mc::Scenario& s) {
  mc::check_scenario(s);
  return mc::simulate_run(s, 5, 0);
}

}  // namespace

TEST(RetriesInFlight, NeverMoreThanTheLimitAndEveryRetryAskedIsSentOrDenied) {
  // 24 runs: fixed limits 1, 3, 10 and budgets (20% with minimum 1, 50% with minimums 0 and 2, 100%
  // with 3), steady arrivals at 1.5 times a 2-slot server's capacity with injected failures, so
  // retries contend.
  int cases = 0;
  for (const auto& [fixed, percent] : {std::pair<std::int64_t, double>{1, 0.0},
                                       {3, 0.0},
                                       {10, 0.0},
                                       {1, 20.0},
                                       {2, 20.0},
                                       {0, 50.0},
                                       {2, 50.0},
                                       {3, 100.0}}) {
    for (const std::uint64_t seed : {1U, 2U, 3U}) {
      mc::Scenario s;
      s.model = Model::none;
      s.backoff = {Strategy::full, 0.5, 8.0, 0.0};
      s.traffic.rate = 3.0;
      s.measurement.horizon = 150.0;
      s.admission.limit = 2;
      s.failures.failure_prob = 0.3;
      s.client.max_attempts = 6;
      s.client.retries_in_flight = fixed;
      s.client.retries_in_flight_percent = percent;
      const Outcomes r = run(s, seed);
      SCOPED_TRACE(::testing::Message() << "fixed " << fixed << " percent " << percent << " seed " << seed);
      EXPECT_LE(r.watch.excess, 0);
      if (percent <= 0.0) {
        EXPECT_LE(r.watch.most, fixed);
      }
      const auto denied =
          static_cast<std::int64_t>(mc::testing::build_metric<Parts>(r.result, "retries_in_flight_denied"));
      EXPECT_GT(denied, 0);  // the limit was reached
      EXPECT_GT(r.watch.scheduled, 0);
      EXPECT_EQ(denied + r.watch.scheduled, r.asked);  // denied + sent = asked
      EXPECT_EQ(r.watch.scheduled, r.watch.sent + static_cast<std::int64_t>(r.watch.sleeping.size()));
      EXPECT_EQ(r.held, r.watch.retries);  // no place leaked or given back twice
      ++cases;
    }
  }
  EXPECT_EQ(cases, 24);
}

TEST(RetriesInFlight, PlacesComeBackAfterTimeoutsAndKindsNotRetried) {
  // A client timeout shorter than some services (exponential service: the timeout's outcome gives
  // the place back, the late reply does not) and fatal injected failures the client does not retry
  // (retry_on retryable: its request ends before the limit is asked); rejections of a 2-slot limit
  // are retryable. 3 fixed limits x 3 seeds.
  int cases = 0;
  for (const std::int64_t fixed : {1, 3, 10}) {
    for (const std::uint64_t seed : {4U, 5U, 6U}) {
      mc::Scenario s;
      s.model = Model::none;
      s.backoff = {Strategy::full, 0.5, 8.0, 0.0};
      s.traffic.rate = 3.0;
      s.measurement.horizon = 150.0;
      s.resource.service = mc::ServiceDist::exponential;
      s.admission.limit = 2;
      s.failures.failure_prob = 0.2;
      s.failures.failure_kind = mc::FailureKind::fatal;
      s.client.retry_on = 1;  // retryable
      s.client.timeout = 1.5;
      s.client.max_attempts = 6;
      s.client.retries_in_flight = fixed;
      const Outcomes r = run(s, seed);
      SCOPED_TRACE(::testing::Message() << "fixed " << fixed << " seed " << seed);
      EXPECT_GT(mc::testing::build_metric<Parts>(r.result, "timed_out"), 0);
      EXPECT_GT(mc::testing::build_metric<Parts>(r.result, "not_retried"), 0);
      EXPECT_LE(r.watch.excess, 0);
      EXPECT_LE(r.watch.most, fixed);
      const auto denied =
          static_cast<std::int64_t>(mc::testing::build_metric<Parts>(r.result, "retries_in_flight_denied"));
      EXPECT_GT(denied, 0);
      EXPECT_EQ(denied + r.watch.scheduled, r.asked);
      EXPECT_EQ(r.watch.scheduled, r.watch.sent + static_cast<std::int64_t>(r.watch.sleeping.size()));
      EXPECT_EQ(r.held, r.watch.retries);
      ++cases;
    }
  }
  EXPECT_EQ(cases, 9);
}

TEST(RetriesInFlight, ExactBurstWithThreePlaces) {
  // 10 clients at t = 0, every attempt fails after one unit, retries at once (strategy none), at
  // most 3 attempts. At t = 1 the ten failures ask in turn: 3 retries granted, 7 denied (lost). At
  // t = 2 each of the 3 retries fails, gives its place back and takes it again: all 3 granted. At
  // t = 3 they fail at the retry limit. Attempts 10 + 3 + 3 = 16 (30 without the limit).
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::none, 1.0, 10.0, 0.0};
  s.traffic.clients = 10;
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 3;
  EXPECT_EQ(simulate(s).attempts, 30);
  s.client.retries_in_flight = 3;
  const mc::RunResult r = simulate(s);
  EXPECT_EQ(r.attempts, 16);
  EXPECT_EQ(r.metric("retries_in_flight_denied"), 7);
  EXPECT_EQ(r.lost, 10);
  // A budget of 50% with minimum 1. At t = 1 the i-th failure (i = 1..10) asks while 10 − i attempts
  // are in flight: limits 4, 4, 3, 3, 2, 2, 1, 1, 1, 1 against 0, 1, 2, 3, 3, ... retries held, so
  // the first 3 are granted and 7 denied. At t = 2 the 3 retries end in turn with 2, 1, 0 attempts
  // in flight (limits 1, 1, 1) while 2, 1, 0 other retries hold places: 2 denied, the last granted.
  // Attempts 10 + 3 + 1 = 14, denied 7 + 2 = 9.
  s.client.retries_in_flight = 1;
  s.client.retries_in_flight_percent = 50.0;
  const mc::RunResult b = simulate(s);
  EXPECT_EQ(b.attempts, 14);
  EXPECT_EQ(b.metric("retries_in_flight_denied"), 9);
}

TEST(RetriesInFlight, CapsAmplificationUnderOverload) {
  // Twice the capacity offered to a one-slot server that rejects the excess (retryable, 503): a
  // client that retries every failure up to 5 attempts sends about 4 attempts per request (3.98 in
  // this run); with Envoy's default of 3 retries in flight, 1.73 (417 retries denied), while about
  // as many requests are lost (471 and 482: the server is full either way).
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.rate = 2.0;
  s.measurement.horizon = 400.0;
  s.admission.limit = 1;
  s.client.max_attempts = 5;
  const mc::RunResult free = simulate(s);
  s.client.retries_in_flight = 3;
  const mc::RunResult capped = simulate(s);
  const double a_free = static_cast<double>(free.attempts) / static_cast<double>(free.clients_arrived);
  const double a_capped = static_cast<double>(capped.attempts) / static_cast<double>(capped.clients_arrived);
  EXPECT_GT(a_free, 3.0);
  EXPECT_LT(a_capped, a_free / 2);
  EXPECT_LT(a_capped, 2.0);
  EXPECT_GT(capped.metric("retries_in_flight_denied"), 0);
}

TEST(RetriesInFlight, FieldsThatCannotApplyAreRefused) {
  mc::Scenario s;
  s.traffic.clients = 4;
  s.client.retries = false;
  s.client.retries_in_flight = 3;
  EXPECT_EQ(refused_field(s), "retries_in_flight");
  s.client.retries_in_flight = 0;
  s.client.retries_in_flight_percent = 20.0;
  EXPECT_EQ(refused_field(s), "retries_in_flight_percent");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.client.hedge.attempts = 2;
  s.client.hedge.delay = 1.0;
  s.client.retries_in_flight = 3;
  EXPECT_EQ(refused_field(s), "retries_in_flight");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.client.retries_in_flight_percent = 101.0;
  EXPECT_EQ(refused_field(s), "retries_in_flight_percent");
  s.client.retries_in_flight_percent = NAN;
  EXPECT_EQ(refused_field(s), "retries_in_flight_percent");
  s = mc::Scenario{};
  s.traffic.clients = 4;
  s.client.retries_in_flight = -1;
  EXPECT_EQ(refused_field(s), "retries_in_flight");
}
