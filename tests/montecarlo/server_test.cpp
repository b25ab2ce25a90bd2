// The server-side mechanisms and lifted limits (montecarlo/engine.hpp): canonical
// strings (old scenarios keep theirs), input checks, exact hand-worked cases, and rapidcheck
// properties on the full tier's client-side and server-side traces. Expected values in the exact
// cases are worked out by hand in the comment beside each (every number is a sum of binary-exact
// values, so EXPECT_EQ is exact). The seed rapidcheck prints on failure replays a case.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <ostream>
#include <tuple>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// The example in scenario.hpp, written before the server options existed: a scenario without them must
// keep exactly this canonical string (so its RNG key and results).
constexpr const char* documented_canonical =
    "model=free strategy=full base=1 cap=1000 window=0 clients=100 rate=0 horizon=10000000 warmup=0 collapse=3000 "
    "retries=on";

mc::Scenario documented() {
  mc::Scenario s;
  s.model = Model::free;
  s.traffic.clients = 100;
  return s;
}

TEST(ServerScenario, DefaultsKeepTheCanonicalString) {
  const mc::Scenario s = documented();
  EXPECT_EQ(mc::canonical(s), documented_canonical);
  EXPECT_FALSE(mc::has_server_features(s));
}

TEST(ServerScenario, EachOptionIsAppendedOnlyWhenSet) {
  const std::vector<std::pair<std::function<void(mc::Scenario&)>, std::string>> cases = {
      {[](auto& o) { o.resource.rows = 4; }, " rows=4"},
      {[](auto& o) { o.resource.service = mc::ServiceDist::exponential; }, " service=exponential"},
      {[](auto& o) {
         o.resource.service = mc::ServiceDist::lognormal;
         o.resource.service_cv = 1.5;
       },
       " service=lognormal service_cv=1.5"},
      {[](auto& o) { o.resource.delay = 0.25; }, " delay=0.25"},
      {[](auto& o) {
         o.resource.delay = 0.25;
         o.resource.delay_dist = mc::DelayDist::exponential;
       },
       " delay=0.25 delay_dist=exponential"},
      {[](auto& o) { o.resource.lock = true; }, " lock=on"},
      {[](auto& o) { o.admission.limit = 8; }, " limit=8"},
      {[](auto& o) {
         o.admission.limit = 8;
         o.admission.overflow = mc::Overflow::queue;
       },
       " limit=8 overflow=queue"},
      {[](auto& o) {
         o.admission.limit = 8;
         o.admission.reject_cost = 0.1;
         o.admission.retry_after = 5;
         o.admission.retry_after_rule = mc::RetryAfterRule::uniform;
         o.client.ignore_retry_after = 0.1;
       },
       " limit=8 reject_cost=0.1 retry_after=5 retry_after_rule=uniform ignore_retry_after=0.1"},
      {[](auto& o) { o.admission.aimd = true; },
       " aimd=on aimd_initial=20 aimd_min=20 aimd_max=200 aimd_backoff=0.9 aimd_timeout=none"},
      {[](auto& o) { o.client.mix = 0.1; }, " mix=0.1 mix_strategy=none mix_base=1 mix_cap=1000 mix_window=0"},
      {[](auto& o) { o.client.timeout = 2.5; }, " timeout=2.5"},
      {[](auto& o) {
         o.client.timeout = 4;
         o.client.max_attempts = 3;
       },
       " timeout=4 max_attempts=3"},
  };
  for (const auto& [set, suffix] : cases) {
    mc::Scenario s = documented();
    set(s);
    ASSERT_NO_THROW(mc::check_scenario(s)) << suffix;
    EXPECT_TRUE(mc::has_server_features(s)) << suffix;
    EXPECT_EQ(mc::canonical(s), std::string(documented_canonical) + suffix);
    EXPECT_NE(mc::stable_hash(s), mc::stable_hash(documented()));
  }
}

TEST(ServerScenario, BadValuesNameTheirField) {
  const std::vector<std::pair<std::function<void(mc::Scenario&)>, std::string>> cases = {
      {[](auto& s) { s.resource.rows = 0; }, "rows"},
      {[](auto& s) { s.resource.rows = mc::max_rows + 1; }, "rows"},
      {[](auto& s) { s.resource.service_cv = 1.0; }, "service_cv"},  // deterministic
      {[](auto& s) { s.resource.service = mc::ServiceDist::lognormal; }, "service_cv"},
      {[](auto& s) {
         s.resource.service = mc::ServiceDist::lognormal;
         s.resource.service_cv = NAN;
       },
       "service_cv"},
      {[](auto& s) { s.resource.delay = -1; }, "delay"},
      {[](auto& s) { s.resource.delay = INFINITY; }, "delay"},
      {[](auto& s) { s.resource.delay_dist = mc::DelayDist::exponential; }, "delay_dist"},
      {[](auto& s) { s.admission.limit = -1; }, "limit"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.aimd = true;
       },
       "limit"},
      {[](auto& s) { s.admission.overflow = mc::Overflow::queue; }, "overflow"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.reject_cost = 1.5;
       },
       "reject_cost"},
      {[](auto& s) { s.admission.reject_cost = 0.5; }, "reject_cost"},  // no limit: nothing rejected
      {[](auto& s) { s.admission.retry_after = 2; }, "retry_after"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.retry_after = -2;
       },
       "retry_after"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.overflow = mc::Overflow::queue;
         s.admission.retry_after = 2;
       },
       "retry_after"},
      {[](auto& s) { s.admission.retry_after_rule = mc::RetryAfterRule::uniform; }, "retry_after_rule"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.retry_after = 2;
         s.client.ignore_retry_after = 1.5;
       },
       "ignore_retry_after"},
      {[](auto& s) { s.client.ignore_retry_after = 0.5; }, "ignore_retry_after"},
      {[](auto& s) { s.admission.aimd_params.min = 5; }, "aimd"},  // aimd off
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.min = 0;
       },
       "aimd_min"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.max = 10;
       },
       "aimd_max"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.initial = 300;
       },
       "aimd_initial"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.backoff = 1.0;
       },
       "aimd_backoff"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.timeout = 0;
       },
       "aimd_timeout"},
      {[](auto& s) { s.client.mix = -0.1; }, "mix"},
      {[](auto& s) { s.client.mix_backoff.strategy = Strategy::full; }, "mix"},  // mix = 0
      {[](auto& s) {
         s.client.mix = 0.5;
         s.client.mix_backoff.base = 0;
       },
       "mix_base"},
      {[](auto& s) {
         s.client.mix = 0.5;
         s.client.mix_backoff = {Strategy::window, 1, 1000, 0};
       },
       "mix_window"},
      {[](auto& s) {  // strategy none, rejected in no time: would loop at one instant
         s.backoff.strategy = Strategy::none;
         s.admission.limit = 3;
       },
       "reject_cost"},
      {[](auto& s) { s.client.timeout = 0; }, "timeout"},
      {[](auto& s) { s.client.timeout = -1; }, "timeout"},
      {[](auto& s) { s.client.timeout = NAN; }, "timeout"},
      {[](auto& s) { s.client.max_attempts = -1; }, "max_attempts"},
      {[](auto& s) { s.client.max_attempts = mc::max_limit + 1; }, "max_attempts"},
      {[](auto& s) {
         s.client.retries = false;
         s.client.max_attempts = 2;
       },
       "max_attempts"},
      {[](auto& s) {
         s.client.retries = false;
         s.client.timeout = 2;
       },
       "timeout"},
  };
  for (const auto& [set, field] : cases) {
    mc::Scenario s = documented();
    set(s);
    try {
      mc::check_scenario(s);
      ADD_FAILURE() << "no error for " << field;
    } catch (const retrylab::InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

// A burst of `clients` on `model` with the given server options (pure burst: the run finishes).
mc::Scenario burst(Model model, std::int64_t clients, Strategy strategy = Strategy::nojitter) {
  mc::Scenario s;
  s.model = model;
  s.backoff = {strategy, 1.0, 1000.0, 0.0};
  s.traffic.clients = clients;
  return s;
}

TEST(ServerExact, NetworkDelayAddsBothLegs) {
  // One client, ps: sent at 0, reaches the server at 0.25, served [0.25, 1.25), heard at 1.5.
  mc::Scenario s = burst(Model::ps, 1);
  s.resource.delay = 0.25;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.makespan, 1.5);
  EXPECT_EQ(r.latency, 1.5);
  EXPECT_EQ(r.sojourn, 1.5);
  EXPECT_EQ(r.work_done, 1.0);
}

TEST(ServerExact, LockServesABurstOneAtATime) {
  // 5 clients on one row behind a lock: served [0,1), [1,2), …, [4,5); all succeed at once.
  for (const Model m : retrylab::all_models) {
    mc::Scenario s = burst(m, 5);
    s.resource.lock = true;
    const mc::RunResult r = mc::simulate_run(s, 3, 0);
    EXPECT_EQ(r.stop, mc::StopReason::finished) << to_string(m);
    EXPECT_EQ(r.attempts, 5) << to_string(m);
    EXPECT_EQ(r.makespan, 5.0) << to_string(m);
    EXPECT_EQ(r.latency, 3.0) << to_string(m);               // (1+2+3+4+5)/5
    EXPECT_EQ(r.metric("queue_wait"), 2.0) << to_string(m);  // (0+1+2+3+4)/5
  }
}

TEST(ServerExact, LimitRejectsThenBackoffRetries) {
  // collision, 3 clients, limit 1, nojitter b = 1. t=0: c0 admitted [0,1); c1, c2 rejected, sleep
  // w1 = 1. t=1: c0 succeeds; c1 admitted [1,2), c2 rejected, sleeps w2 = 2. t=3: c2 admitted [3,4).
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.metric("rejected"), 3);
  EXPECT_EQ(r.metric("served"), 3);
  EXPECT_EQ(r.metric("reject_fraction"), 0.5);
  EXPECT_EQ(r.makespan, 4.0);
  EXPECT_EQ(r.work_done, 3.0);
  EXPECT_EQ(r.metric("mean_limit"), 1.0);
}

TEST(ServerExact, ARejectionCostsWhatItSays) {
  // As above with reject_cost 0.5: c1, c2 hear "no" at 0.5 and wake at 1.5; c1 admitted [1.5,2.5),
  // c2 rejected [1.5,2), wakes at 2 + w2 = 4, served [4,5). Work: 3 attempts + 3 rejections × 0.5.
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.admission.reject_cost = 0.5;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.metric("rejected"), 3);
  EXPECT_EQ(r.makespan, 5.0);
  EXPECT_EQ(r.work_done, 4.5);
  // On the shared (processor-sharing) server a rejection takes its share: t=0 three jobs, the two
  // rejections (0.5 each) end at V = 0.5, i.e. t = 1.5; c0 then alone, ends at t = 2.
  s.model = Model::shared;
  const mc::RunResult q = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(q.work_done, q.busy_time);
  EXPECT_EQ(q.work_done, static_cast<double>(q.metric("served")) + 0.5 * static_cast<double>(q.metric("rejected")));
}

TEST(ServerExact, RetryAfterHonouredOrIgnored) {
  // limit 1, Retry-After 3: c1, c2 sleep max(1, 3) = 3; t=3: c1 [3,4), c2 rejected, sleeps
  // max(w2 = 2, 3) = 3, served [6,7). Ignored by every client: the run of LimitRejectsThenBackoffRetries.
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.admission.retry_after = 3;
  EXPECT_EQ(mc::simulate_run(s, 1, 0).makespan, 7.0);
  s.client.ignore_retry_after = 1.0;
  EXPECT_EQ(mc::simulate_run(s, 1, 0).makespan, 4.0);
}

TEST(ServerExact, MixedClientsUseTheirOwnBackoff) {
  // The limit case with every client on nojitter b = 2 (mix = 1): c1, c2 rejected at 0 sleep 2;
  // t=2: c1 [2,3), c2 rejected, sleeps w2 = 4; served [6,7).
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.client.mix = 1.0;
  s.client.mix_backoff = {Strategy::nojitter, 2.0, 1000.0, 0.0};
  EXPECT_EQ(mc::simulate_run(s, 1, 0).makespan, 7.0);
}

TEST(ServerExact, QueueOverflowServesInOrder) {
  // limit 1, queue: served [0,1), [1,2), [2,3), no rejection, no conflict.
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.metric("rejected"), 0);
  EXPECT_EQ(r.makespan, 3.0);
  EXPECT_EQ(r.metric("queue_wait"), 1.0);
}

TEST(ServerExact, RetriesOffRejectedClientsLeaveAfterTheWholeBurstArrived) {
  // 4 clients, limit 1, retries off: c0 served [0,1); c1..c3 rejected at 0 and leave. The run
  // finishes at 1 with every client arrived, one success.
  mc::Scenario s = burst(Model::free, 4);
  s.client.retries = false;
  s.admission.limit = 1;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.clients_arrived, 4);
  EXPECT_EQ(r.successes, 1);
  EXPECT_EQ(r.metric("rejected"), 3);
  EXPECT_EQ(r.stop_time, 1.0);
}

TEST(ServerExact, ThreadsNeverChangeAResult) {
  mc::Scenario s;
  s.model = Model::shared;
  s.traffic.rate = 0.8;
  s.traffic.clients = 50;
  s.measurement.horizon = 400;
  s.resource.rows = 3;
  s.resource.service = mc::ServiceDist::lognormal;
  s.resource.service_cv = 1.0;
  s.resource.delay = 0.1;
  s.resource.delay_dist = mc::DelayDist::exponential;
  s.admission.aimd = true;
  s.admission.aimd_params = {4, 2, 10, 0.9, 6.0};
  s.admission.reject_cost = 0.05;
  s.admission.retry_after = 2;
  s.admission.retry_after_rule = mc::RetryAfterRule::uniform;
  s.client.ignore_retry_after = 0.3;
  s.client.mix = 0.2;
  const auto one = mc::simulate(s, {8, 42, 1});
  const auto two = mc::simulate(s, {8, 42, 2});
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    // Bit-for-bit (NaN fields included): RunResult is plain data; compare its doubles' bits.
    const auto& a = one[i];
    const auto& b = two[i];
    const double xa[] = {a.stop_time,
                         a.latency,
                         a.goodput,
                         a.attempt_rate,
                         a.sojourn,
                         a.work_done,
                         a.busy_time,
                         a.metric("queue_wait"),
                         a.metric("mean_limit"),
                         a.metric("latency_p50"),
                         a.metric("latency_p99"),
                         a.mean_waiting};
    const double xb[] = {b.stop_time,
                         b.latency,
                         b.goodput,
                         b.attempt_rate,
                         b.sojourn,
                         b.work_done,
                         b.busy_time,
                         b.metric("queue_wait"),
                         b.metric("mean_limit"),
                         b.metric("latency_p50"),
                         b.metric("latency_p99"),
                         b.mean_waiting};
    EXPECT_EQ(std::memcmp(xa, xb, sizeof xa), 0) << "run " << i;
    EXPECT_EQ(a.attempts, b.attempts);
    EXPECT_EQ(a.metric("rejected"), b.metric("rejected"));
    EXPECT_EQ(a.successes, b.successes);
  }
  EXPECT_GT(one[0].metric("rejected"), 0);  // the scenario does exercise the limit
}

// ---------------------------------------------------------------------------------------------
// Properties on random small scenarios with random server options.

struct Served {
  std::int32_t row = 0;
  double start = 0.0, end = -1.0;
  bool ended = false, success = false;
};

struct ServerTrace {
  std::vector<double> arrival;
  struct Attempt {
    std::int64_t client;
    double sent, heard = -1.0;
    bool ended = false, success = false, timed_out = false;
  };
  std::vector<Attempt> attempts;
  std::map<std::int64_t, Served> served;                      // by attempt id
  std::vector<std::pair<std::int64_t, std::int64_t>> admits;  // (admitted, limit)
  std::map<std::int64_t, double> pending_retry_after;         // attempt -> Retry-After of its rejection
  std::map<std::int64_t, double> earliest_return;             // client -> may not send before
  std::vector<double> sleeps;
  std::int64_t rejects = 0;
  bool early_return = false;
  bool bad = false;

  void on_arrival(std::int64_t c, double t, bool) {
    if (c != static_cast<std::int64_t>(arrival.size())) bad = true;
    arrival.push_back(t);
  }
  void on_start(std::int64_t id, std::int64_t c, double t) {
    if (id != static_cast<std::int64_t>(attempts.size())) bad = true;
    attempts.push_back({c, t});
    const auto it = earliest_return.find(c);
    if (it != earliest_return.end() && t < it->second) early_return = true;
  }
  void on_end(std::int64_t id, std::int64_t c, double sent, double t, bool success) {
    Attempt& a = attempts.at(static_cast<std::size_t>(id));
    if (a.client != c || a.sent != sent || a.ended || t < sent) bad = true;
    a.heard = t;
    a.ended = true;
    a.success = success;
    // The client honours a Retry-After only if it heard the rejection (not when it timed out first).
    const auto it = pending_retry_after.find(id);
    if (it != pending_retry_after.end() && !a.timed_out) {
      earliest_return[c] = t + it->second;
    } else {
      earliest_return.erase(c);
    }
    if (it != pending_retry_after.end()) pending_retry_after.erase(it);
  }
  void on_timeout(std::int64_t id, std::int64_t c, double t) {
    Attempt& a = attempts.at(static_cast<std::size_t>(id));
    if (a.client != c || a.ended || t < a.sent) bad = true;
    a.timed_out = true;
    ++timeouts;
  }
  void on_give_up(std::int64_t c, double) { gave_up.push_back(c); }
  std::int64_t timeouts = 0;
  std::vector<std::int64_t> gave_up;
  void on_sleep(std::int64_t, std::int32_t, double sleep) { sleeps.push_back(sleep); }
  void on_admit(double t, std::int64_t admitted, std::int64_t limit) {
    admits.emplace_back(admitted, limit);
    admit_log.emplace_back(t, admitted, limit);
  }
  std::vector<std::tuple<double, std::int64_t, std::int64_t>> admit_log;
  void on_reject(std::int64_t id, std::int64_t, double, double retry_after) {
    ++rejects;
    if (retry_after > 0.0) pending_retry_after[id] = retry_after;
  }
  void on_service_start(std::int64_t id, std::int32_t row, double t) {
    if (served.count(id)) bad = true;
    served[id] = {row, t};
  }
  void on_service(std::int64_t id, std::int32_t row, double start, double end, bool success) {
    Served& s = served[id];
    if (s.row != row || s.start != start || s.ended || end < start) bad = true;
    s.end = end;
    s.ended = true;
    s.success = success;
  }
};

struct Case {
  mc::Scenario s;
  std::uint64_t seed;
};

// rapidcheck prints a counter-example with this (found by argument-dependent lookup).
void showValue(const Case& c, std::ostream& os) { os << mc::canonical(c.s) << " seed=" << c.seed; }

// Client-side controls and injected failures, drawn to combine with every server option.
void add_controls(mc::Scenario& s) {
  mc::Scenario& o = s;
  if (s.client.retries) {
    o.client.deadline = *rc::gen::element(INFINITY, INFINITY, 6.0);
    o.client.budget = *rc::gen::inRange(0, 6);   // none, aws-standard, grpc, finagle, sre-adaptive, token-bucket
    o.client.breaker = *rc::gen::inRange(0, 3);  // none, hystrix, resilience4j
    if (o.client.budget != 0 || o.client.breaker != 0) o.client.attempt_ms = *rc::gen::element(1.0, 20.0);
    if (std::isfinite(o.client.timeout))
      o.client.idempotency =
          *rc::gen::element(mc::Idempotency::none, mc::Idempotency::per_attempt, mc::Idempotency::fixed);
  }
  o.failures.failure_prob = *rc::gen::element(0.0, 0.0, 0.3);
  if (*rc::gen::element(false, false, true)) {
    o.failures.outage_start = 2.0;
    o.failures.outage_end = 8.0;
    o.failures.outage_fraction = *rc::gen::element(1.0, 0.5);
  }
}

rc::Gen<Case> gen_case() {
  return rc::gen::exec([] {
    Case c;
    mc::Scenario& s = c.s;
    s.model = *rc::gen::element(Model::collision, Model::free, Model::shared, Model::ps, Model::none);
    s.backoff.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal,
                                           Strategy::decorrelated, Strategy::window);
    s.backoff.base = *rc::gen::element(0.25, 1.0);
    s.backoff.multiplier = *rc::gen::element(2.0, 2.0, 1.0, 1.5);
    s.backoff.cap = s.backoff.base * *rc::gen::element(1.0, 10.0, retrylab::unbounded_cap);
    s.backoff.window = 2.0;
    s.traffic.clients = *rc::gen::inRange<std::int64_t>(0, 12);
    s.traffic.rate = *rc::gen::element(0.0, 0.4, 1.5);
    if (s.traffic.clients == 0 && s.traffic.rate == 0.0) s.traffic.clients = 1;
    s.measurement.horizon = *rc::gen::element(10.0, 40.0);
    s.measurement.warmup = *rc::gen::element(0.0, 2.5);
    s.measurement.collapse = *rc::gen::element<std::int64_t>(5, 3000);
    s.client.retries = *rc::gen::element(true, true, false);
    mc::Scenario& o = s;
    o.resource.rows = *rc::gen::element<std::int64_t>(1, 2, 5);
    o.resource.service =
        *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential, mc::ServiceDist::lognormal);
    if (o.resource.service == mc::ServiceDist::lognormal) o.resource.service_cv = *rc::gen::element(0.5, 2.0);
    o.resource.delay = *rc::gen::element(0.0, 0.0, 0.3);
    if (o.resource.delay > 0.0)
      o.resource.delay_dist = *rc::gen::element(mc::DelayDist::fixed, mc::DelayDist::exponential);
    o.resource.lock = *rc::gen::element(false, true);
    const int limit_kind = *rc::gen::inRange(0, 3);  // none, fixed, aimd
    if (limit_kind == 1) o.admission.limit = *rc::gen::element<std::int64_t>(1, 2, 4);
    if (limit_kind == 2) {
      o.admission.aimd = true;
      o.admission.aimd_params = {*rc::gen::element<std::int64_t>(1, 3), 1, *rc::gen::element<std::int64_t>(3, 6), 0.5,
                                 4.0};
    }
    if (limit_kind > 0) {
      o.admission.overflow = *rc::gen::element(mc::Overflow::reject, mc::Overflow::queue);
      if (o.admission.overflow == mc::Overflow::reject) {
        o.admission.reject_cost = *rc::gen::element(0.0, 0.25);
        o.admission.retry_after = *rc::gen::element(0.0, 1.5);
        if (o.admission.retry_after > 0.0) {
          o.admission.retry_after_rule = *rc::gen::element(mc::RetryAfterRule::fixed, mc::RetryAfterRule::uniform);
          o.client.ignore_retry_after = *rc::gen::element(0.0, 0.5);
        }
      }
    }
    if (s.client.retries) {  // client timeouts and retry limits (they need retries on)
      o.client.timeout = *rc::gen::element(INFINITY, INFINITY, 0.75, 3.0);
      o.client.max_attempts = *rc::gen::element<std::int64_t>(0, 0, 1, 3);
    }
    o.client.mix = *rc::gen::element(0.0, 0.5, 1.0);
    if (o.client.mix > 0.0) o.client.mix_backoff = {*rc::gen::element(Strategy::none, Strategy::full), 0.5, 8.0, 0.0};
    add_controls(s);
    if (s.model == Model::none && o.failures.failure_prob == 0.0 && o.failures.outage_end == 0.0)
      o.failures.failure_prob = 0.5;
    // Clients on `none` must not be rejected in no time (check_scenario refuses it): cost it, or give
    // them a retry limit when a breaker or adaptive throttling can reject them locally.
    for (int tries = 0; tries < 3; ++tries) {
      try {
        mc::check_scenario(s);
        break;
      } catch (const retrylab::InputError& e) {
        if (e.field() == "reject_cost") {
          o.admission.reject_cost = 0.25;
        } else if (e.field() == "breaker" || e.field() == "budget") {
          o.client.max_attempts = 3;
        } else {
          throw;
        }
      }
    }
    mc::check_scenario(s);
    c.seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
    return c;
  });
}

struct Run {
  mc::RunResult r;
  ServerTrace t;
};

Run run(const Case& c) {
  Run out;
  mc::detail::EngineOptions o;
  o.lockstep_shortcut = false;  // cases without server options run engine.hpp: the trace must see every attempt
  out.r = mc::detail::run_engine(c.s, c.seed, 0, o, out.t);
  return out;
}

RC_GTEST_PROP(Server, ClientAccountingHolds, ()) {
  const Case c = *gen_case();
  const Run x = run(c);
  const auto& r = x.r;
  const auto& t = x.t;
  RC_ASSERT(!t.bad);
  RC_ASSERT(r.clients_arrived == static_cast<std::int64_t>(t.arrival.size()));
  RC_ASSERT(r.attempts == static_cast<std::int64_t>(t.attempts.size()));
  RC_ASSERT(r.metric("rejected") == t.rejects);
  // Server-side hooks exist only in the full tier (a case without server options runs engine.hpp).
  if (mc::has_server_features(c.s)) RC_ASSERT(r.metric("served") == static_cast<std::int64_t>(t.served.size()));
  RC_ASSERT(r.metric("served") + r.metric("rejected") <= r.attempts);
  std::vector<int> wins(t.arrival.size(), 0);
  std::int64_t successes = 0, gave_up = 0;
  for (const auto& a : t.attempts) {
    RC_ASSERT(a.sent >= t.arrival[static_cast<std::size_t>(a.client)]);
    if (a.ended && a.success) {
      ++successes;
      ++wins[static_cast<std::size_t>(a.client)];
    }
    if (a.ended && !a.success && !c.s.client.retries) ++gave_up;
    if (a.ended) RC_ASSERT(a.heard <= r.stop_time);
  }
  for (const int w : wins) RC_ASSERT(w <= 1);
  // Work conservation: one unit-rate server in shared/ps (rejections that cost work included).
  if (c.s.model == Model::shared || c.s.model == Model::ps)
    RC_ASSERT(std::abs(r.work_done - r.busy_time) <= 1e-9 * std::max(1.0, r.busy_time));
  RC_ASSERT(r.work_done >= r.busy_time * (1.0 - 1e-12));  // collision/free: >= 1 job at rate 1 when busy
  RC_ASSERT(r.successes == successes);
  const auto lost = static_cast<std::int64_t>(t.gave_up.size());
  RC_ASSERT(r.lost == lost);
  RC_ASSERT(r.metric("timed_out") == t.timeouts);
  RC_ASSERT(r.unfinished == r.clients_arrived - successes - gave_up - lost);
  RC_ASSERT(r.max_waiting <= c.s.measurement.collapse);
}

// Conflicts only within a row, as docs/models.md §1 defines them for the model; a lock makes every
// served attempt succeed, one at a time per row.
RC_GTEST_PROP(Server, ConflictsOnlyWithinARow, ()) {
  Case c = *gen_case();
  RC_PRE(c.s.model != Model::none);  // its attempts fail only by injection, which this property leaves out
  c.s.failures.failure_prob = 0.0;   // an injected failure fails an attempt without a conflict
  c.s.failures.outage_start = c.s.failures.outage_end = 0.0;
  c.s.failures.outage_fraction = 1.0;
  const Run x = run(c);
  const auto& served = x.t.served;
  std::map<std::int32_t, std::vector<std::pair<std::int64_t, Served>>> by_row;
  for (const auto& [id, s] : served) by_row[s.row].emplace_back(id, s);
  for (const auto& [row, list] : by_row) {
    RC_ASSERT(row >= 0 && row < c.s.resource.rows);
    for (const auto& entry : list) {
      const auto& id = entry.first;  // not a structured binding: clang 14 cannot capture one in a lambda
      const auto& a = entry.second;
      if (!a.ended) continue;
      if (c.s.resource.lock || c.s.model == Model::ps) {
        RC_ASSERT(a.success);
      } else if (c.s.model == Model::collision) {
        // Fails iff another attempt on its row overlaps [start, end) (half-open; still in service: to +inf).
        const bool overlap = std::any_of(list.begin(), list.end(), [&](const auto& o) {
          if (o.first == id) return false;
          const double oe = o.second.ended ? o.second.end : INFINITY;
          return o.second.start < a.end && a.start < oe;
        });
        RC_ASSERT(a.success == !overlap);
      } else {
        // First commit wins on the row: a successful commit on it in (start, end) dooms it.
        const bool doomed = std::any_of(list.begin(), list.end(), [&](const auto& o) {
          return o.first != id && o.second.ended && o.second.success && o.second.end > a.start && o.second.end < a.end;
        });
        if (doomed) RC_ASSERT(!a.success);
      }
    }
    if (c.s.resource.lock) {  // at most one in service per row
      std::vector<std::pair<double, double>> iv;
      for (const auto& [id, a] : list) iv.emplace_back(a.start, a.ended ? a.end : INFINITY);
      std::sort(iv.begin(), iv.end());
      for (std::size_t i = 1; i < iv.size(); ++i) RC_ASSERT(iv[i].first >= iv[i - 1].second);
    }
    if (c.s.model == Model::free || c.s.model == Model::shared) {
      // Simultaneous ends on a row with an eligible attempt: exactly one success.
      std::map<double, std::pair<int, int>> groups;  // end -> (eligible, successes)
      for (const auto& entry : list) {
        const auto& a = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
        if (!a.ended) continue;
        const bool eligible = !std::any_of(list.begin(), list.end(), [&](const auto& o) {
          return o.second.ended && o.second.success && o.second.end > a.start && o.second.end < a.end;
        });
        auto& g = groups[a.end];
        g.first += eligible;
        g.second += a.success;
      }
      for (const auto& [end, g] : groups) RC_ASSERT(g.second == (g.first > 0 ? 1 : 0));
    }
  }
}

// Client timeouts and retry limits: no client makes more than max_attempts attempts, one that gives
// up made exactly that many and none succeeded; a client hears of every attempt by send + timeout,
// exactly then when it timed out; a timed-out attempt is never a success for its client.
RC_GTEST_PROP(Server, RetryLimitAndTimeoutHold, ()) {
  const Case c = *gen_case();
  const Run x = run(c);
  const auto& o = c.s;
  std::map<std::int64_t, std::int64_t> made, won;
  for (const auto& a : x.t.attempts) {
    ++made[a.client];
    if (a.ended && a.success) ++won[a.client];
    if (a.ended) RC_ASSERT(a.heard <= a.sent + o.client.timeout);
    if (a.timed_out) {
      RC_ASSERT(std::isfinite(o.client.timeout));
      RC_ASSERT(a.ended && !a.success);
      RC_ASSERT(a.heard == a.sent + o.client.timeout);
    }
  }
  if (o.client.max_attempts > 0)
    for (const auto& [client, n] : made) RC_ASSERT(n <= o.client.max_attempts);
  // A budget's refusal, a breaker's local rejections and a deadline also end requests, earlier.
  const bool other_ends = o.client.budget != 0 || o.client.breaker != 0 || std::isfinite(o.client.deadline);
  for (const std::int64_t client : x.t.gave_up) {
    if (!other_ends) {
      RC_ASSERT(o.client.max_attempts > 0);
      RC_ASSERT(made[client] == o.client.max_attempts);
    }
    RC_ASSERT(won[client] == 0);
  }
  if (o.client.max_attempts == 0 && !other_ends) RC_ASSERT(x.t.gave_up.empty());
  if (std::isinf(o.client.timeout)) RC_ASSERT(x.t.timeouts == 0);
  const std::int64_t ended = x.r.successes + x.r.lost;
  if (ended > 0) RC_ASSERT(x.r.lost_fraction == static_cast<double>(x.r.lost) / static_cast<double>(ended));
}

RC_GTEST_PROP(Server, ConcurrencyLimitNeverExceeded, ()) {
  const Case c = *gen_case();
  const Run x = run(c);
  const auto& o = c.s;
  for (const auto& [admitted, limit] : x.t.admits) {
    if (o.admission.limit > 0) RC_ASSERT(limit == o.admission.limit);
    if (o.admission.aimd) RC_ASSERT(limit >= o.admission.aimd_params.min && limit <= o.admission.aimd_params.max);
    if (o.admission.limit > 0 || o.admission.aimd) RC_ASSERT(admitted <= limit);
  }
  if (o.admission.limit == 0 && !o.admission.aimd) RC_ASSERT(x.r.metric("rejected") == 0);
  if (o.admission.overflow == mc::Overflow::queue) RC_ASSERT(x.r.metric("rejected") == 0);
}

RC_GTEST_PROP(Server, RetryAfterHonouredMeansNoEarlyReturn, ()) {
  const Case c = *gen_case();
  RC_PRE(c.s.client.ignore_retry_after == 0.0);
  const Run x = run(c);
  RC_ASSERT(!x.t.early_return);
}

RC_GTEST_PROP(Server, MixedNoneClientsNeverSleep, ()) {
  Case c = *gen_case();
  c.s.client.mix = 1.0;
  c.s.client.mix_backoff = {Strategy::none, 1.0, 1000.0, 0.0};
  c.s.admission.retry_after = 0.0;
  c.s.admission.retry_after_rule = mc::RetryAfterRule::fixed;
  c.s.client.ignore_retry_after = 0.0;
  if ((c.s.admission.limit > 0 || c.s.admission.aimd) && c.s.admission.overflow == mc::Overflow::reject)
    c.s.admission.reject_cost = 0.25;
  // Local rejections (a breaker, adaptive throttling) of clients that never sleep need a retry limit.
  if ((c.s.client.breaker != 0 || c.s.client.budget != 0) && c.s.client.max_attempts == 0) c.s.client.max_attempts = 3;
  mc::check_scenario(c.s);
  const Run x = run(c);
  for (const double s : x.t.sleeps) RC_ASSERT(s == 0.0);
}

TEST(ServerExact, TimeoutOrphansTheAttemptAndTheRetryLimitLosesTheClient) {
  // ps, one client on strategy none, timeout 0.5, at most 3 attempts: sent at 0, 0.5, 1; each times
  // out (service 1 alone would end at 1, but the server shares itself with the orphans); at 1.5 the
  // third times out and the client gives up: lost. The server kept working on the orphans: busy
  // [0, 1.5], so work done 1.5. Nothing succeeded, so no makespan; the burst has left: drained.
  mc::Scenario s = burst(Model::ps, 1, Strategy::none);
  s.client.timeout = 0.5;
  s.client.max_attempts = 3;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.metric("timed_out"), 3);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, 1);
  EXPECT_EQ(r.lost_fraction, 1.0);
  EXPECT_EQ(r.stop_time, 1.5);
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.drain_time, 1.5);
  EXPECT_TRUE(std::isnan(r.makespan));
  EXPECT_EQ(r.work_done, 1.5);
  EXPECT_EQ(r.sojourn, 0.5);  // the client's view: each attempt lasted its timeout
}

TEST(ServerExact, AResponseAtTheTimeoutCounts) {
  // ps, one client, service 1, timeout exactly 1: the outcome and the timeout fall at t = 1, and
  // responses come before timeouts at one instant, so the attempt succeeds.
  mc::Scenario s = burst(Model::ps, 1, Strategy::none);
  s.client.timeout = 1.0;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.successes, 1);
  EXPECT_EQ(r.metric("timed_out"), 0);
  EXPECT_EQ(r.makespan, 1.0);
  EXPECT_EQ(r.lost_fraction, 0.0);
}

TEST(ServerExact, RetryLimitOnCollidingClients) {
  // collision, 2 clients on strategy none, at most 4 attempts: they collide at 0, 1, 2, 3 and both
  // give up at 4: 8 attempts, 2 lost, the burst has left at 4.
  mc::Scenario s = burst(Model::collision, 2, Strategy::none);
  s.client.max_attempts = 4;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 8);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, 2);
  EXPECT_EQ(r.metric("timed_out"), 0);
  EXPECT_EQ(r.drain_time, 4.0);
  EXPECT_EQ(r.unfinished, 0);
}

TEST(ServerExact, AimdHalvesOnConflictsAndGrowsOnSuccess) {
  // collision, 4 clients, nojitter b = 1, AIMD initial 2, min 1, max 10, backoff 0.5, reject_cost
  // 0.25. t=0: c0, c1 admitted (limit 2); c2, c3 rejected (heard 0.25, wake 1.25). t=1: c0 and c1
  // collide: limit 2 → floor(2·0.5) = 1 → floor(0.5) = 0, clamped to 1. t=1.25: c2 admitted under
  // limit 1, c3 rejected (heard 1.5, wakes 1.5 + w2 = 3.5). t=2.25: c2 succeeds with inflight 1
  // (2·1 >= 1): limit 2. t=3.5: c3 admitted under limit 2.
  mc::Scenario s = burst(Model::collision, 4);
  s.admission.aimd = true;
  s.admission.aimd_params = {2, 1, 10, 0.5, retrylab::unbounded_cap};
  s.admission.reject_cost = 0.25;
  ServerTrace t;
  mc::detail::run_engine(s, 1, 0, mc::detail::EngineOptions{}, t);
  ASSERT_GE(t.admit_log.size(), 4u);
  EXPECT_EQ(t.admit_log[0], (std::tuple<double, std::int64_t, std::int64_t>{0.0, 1, 2}));
  EXPECT_EQ(t.admit_log[1], (std::tuple<double, std::int64_t, std::int64_t>{0.0, 2, 2}));
  EXPECT_EQ(t.admit_log[2], (std::tuple<double, std::int64_t, std::int64_t>{1.25, 1, 1}));
  EXPECT_EQ(t.admit_log[3], (std::tuple<double, std::int64_t, std::int64_t>{3.5, 1, 2}));
}

// On the original model (no server option) the full tier runs the plain tier's events: same streams
// drawn in the same order, same arithmetic for times, so the same counts and times exactly.
// work_done is integrated differently (sum of n·dt against per-attempt service),
// so it agrees to rounding only: 1e-9 relative (a run has < 10^4 events, each adding one rounding
// of at most ε = 2.2e-16 relative).
RC_GTEST_PROP(Server, OnTheOriginalModelEqualsTheOriginalEngine, ()) {
  Case c = *gen_case();
  c.s = mc::without_server_options(c.s);
  mc::detail::EngineOptions plain;
  plain.lockstep_shortcut = false;
  mc::detail::EngineOptions forced = plain;
  forced.full_tier = true;
  mc::detail::NullObserver n1, n2;
  const mc::RunResult a = mc::detail::run_engine(c.s, c.seed, 3, plain, n1);
  const mc::RunResult b = mc::detail::run_engine(c.s, c.seed, 3, forced, n2);
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  RC_ASSERT(a.stop == b.stop);
  RC_ASSERT(a.clients_arrived == b.clients_arrived);
  RC_ASSERT(a.attempts == b.attempts);
  RC_ASSERT(a.successes == b.successes);
  RC_ASSERT(a.unfinished == b.unfinished);
  RC_ASSERT(a.max_waiting == b.max_waiting);
  RC_ASSERT(same(a.stop_time, b.stop_time));
  RC_ASSERT(same(a.makespan, b.makespan));
  RC_ASSERT(same(a.drain_time, b.drain_time));
  RC_ASSERT(same(a.goodput, b.goodput));
  RC_ASSERT(same(a.attempt_rate, b.attempt_rate));
  RC_ASSERT(std::abs(a.latency - b.latency) <= 1e-9 * std::abs(a.latency) || same(a.latency, b.latency));
  RC_ASSERT(std::abs(a.sojourn - b.sojourn) <= 1e-9 * std::abs(a.sojourn) || same(a.sojourn, b.sojourn));
  RC_ASSERT(std::abs(a.busy_time - b.busy_time) <= 1e-9 * std::max(1.0, a.busy_time));
  RC_ASSERT(std::abs(a.work_done - b.work_done) <= 1e-9 * std::max(1.0, a.work_done));
}

TEST(Server, OnLongerRunsOfTheOriginalModelEqualsTheOriginalEngine) {
  // The property above on runs of thousands of attempts: every model and strategy, burst on steady.
  for (const Model m : retrylab::all_models) {
    for (const Strategy st : retrylab::all_strategies) {
      mc::Scenario s;
      s.model = m;
      s.backoff = {st, 1.0, 64.0, 40.0};
      s.traffic.clients = m == Model::collision ? 10 : 200;  // a larger burst never gets through collisions
      s.traffic.rate = m == Model::collision ? 0.1 : 0.3;
      s.measurement.horizon = 3000;
      s.measurement.warmup = 100;
      mc::detail::EngineOptions plain, forced;
      forced.full_tier = true;
      mc::detail::NullObserver n1, n2;
      const mc::RunResult a = mc::detail::run_engine(s, 5, 0, plain, n1);
      const mc::RunResult b = mc::detail::run_engine(s, 5, 0, forced, n2);
      EXPECT_EQ(a.attempts, b.attempts) << to_string(m) << " " << to_string(st);
      EXPECT_EQ(a.successes, b.successes) << to_string(m) << " " << to_string(st);
      EXPECT_EQ(a.stop_time, b.stop_time) << to_string(m) << " " << to_string(st);
      EXPECT_EQ(a.max_waiting, b.max_waiting) << to_string(m) << " " << to_string(st);
      if (m == Model::collision && st == Strategy::none) continue;  // retries at once: nobody gets through
      ASSERT_GT(a.successes, 0) << to_string(m) << " " << to_string(st);
      EXPECT_NEAR(a.latency, b.latency, 1e-9 * a.latency) << to_string(m) << " " << to_string(st);
    }
  }
}

TEST(Server, RunPlanCanAskForTheServerEngine) {
  mc::Scenario s;
  s.model = Model::shared;
  s.traffic.rate = 0.2;
  s.measurement.horizon = 500;
  mc::RunPlan plain{3, 9, 1};
  mc::RunPlan forced = plain;
  forced.server_engine = true;
  const auto a = mc::simulate(s, plain);
  const auto b = mc::simulate(s, forced);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].attempts, b[i].attempts);
    EXPECT_EQ(a[i].goodput, b[i].goodput);
    EXPECT_TRUE(std::isnan(a[i].metric("latency_p99")));  // not tracked by the original loop
    EXPECT_FALSE(std::isnan(b[i].metric("latency_p99")));
    EXPECT_GE(b[i].metric("latency_p99"), b[i].metric("latency_p50"));
  }
}

// A planted check that the Retry-After property can fail: clients that all ignore it come back
// earlier than it says (strategy none: at once).
TEST(Server, IgnoringRetryAfterReturnsEarly) {
  mc::Scenario s = burst(Model::collision, 4, Strategy::none);
  s.admission.limit = 1;
  s.admission.retry_after = 5;
  s.admission.reject_cost = 0.25;
  s.client.ignore_retry_after = 1.0;
  ServerTrace t;
  mc::detail::run_engine(s, 1, 0, mc::detail::EngineOptions{}, t);
  EXPECT_TRUE(t.early_return);
}

}  // namespace
