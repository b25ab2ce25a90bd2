// The one-event shortcut (montecarlo/engine.hpp, one_event) against the four-event loop it stands in
// for: the same laws (every metric's mean, Welch z against a Bonferroni bound), the same numbers
// where a run is deterministic up to which tied client wins, and observer hooks in time order.
// Fixed seeds; the statistical test's family-wise false-failure rate is 1e-3 (each case's means
// together). About 3 s in a Release build.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/engine.hpp"
#include "tests/montecarlo/engine_instances.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Strategy;

namespace {

std::vector<mc::RunResult> runs(const mc::Scenario& s, bool shortcut, std::uint64_t seed, int n) {
  mc::detail::EngineOptions o;
  o.one_event_shortcut = shortcut;
  std::vector<mc::RunResult> out;
  for (int i = 0; i < n; ++i) {
    mc::detail::NullObserver observer;
    out.push_back(mc::detail::run_engine(s, seed, static_cast<std::uint64_t>(i), o, observer));
  }
  return out;
}

struct Metric {
  const char* name;
  std::function<double(const mc::RunResult&)> of;
};

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m = {
      {"attempts", [](const mc::RunResult& r) { return static_cast<double>(r.attempts); }},
      {"successes", [](const mc::RunResult& r) { return static_cast<double>(r.successes); }},
      {"served", [](const mc::RunResult& r) { return static_cast<double>(r.metric("served")); }},
      {"unfinished", [](const mc::RunResult& r) { return static_cast<double>(r.unfinished); }},
      {"effects", [](const mc::RunResult& r) { return static_cast<double>(r.metric("effects")); }},
      {"stop_time", [](const mc::RunResult& r) { return r.stop_time; }},
      {"makespan", [](const mc::RunResult& r) { return r.makespan; }},
      {"latency", [](const mc::RunResult& r) { return r.latency; }},
      {"latency_p50", [](const mc::RunResult& r) { return r.metric("latency_p50"); }},
      {"latency_p99", [](const mc::RunResult& r) { return r.metric("latency_p99"); }},
      {"goodput", [](const mc::RunResult& r) { return r.goodput; }},
      {"attempt_rate", [](const mc::RunResult& r) { return r.attempt_rate; }},
      {"sojourn", [](const mc::RunResult& r) { return r.sojourn; }},
      {"drain_time", [](const mc::RunResult& r) { return r.drain_time; }},
      {"drain_time_p99", [](const mc::RunResult& r) { return r.drain_time_p99; }},
      {"mean_waiting", [](const mc::RunResult& r) { return r.mean_waiting; }},
      {"mean_time_waiting", [](const mc::RunResult& r) { return r.mean_time_waiting; }},
      {"busy_time", [](const mc::RunResult& r) { return r.busy_time; }},
      {"work_done", [](const mc::RunResult& r) { return r.work_done; }},
      {"queue_wait", [](const mc::RunResult& r) { return r.metric("queue_wait"); }},
      {"lost_fraction", [](const mc::RunResult& r) { return r.lost_fraction; }},
  };
  return m;
}

mc::Scenario brooker(Strategy st, std::int64_t clients, double leg_sd) {
  mc::BrookerTest t;
  t.strategy = st;
  t.clients = clients;
  t.leg_sd = leg_sd;
  return mc::brooker_scenario(t);
}

// The cases: Brooker's test and its neighbours that still take the shortcut (its conditions:
// engine.hpp, one_event_applies), including runs the horizon cuts and a warmup.
std::map<std::string, mc::Scenario> cases() {
  std::map<std::string, mc::Scenario> c;
  c["brooker_full_100"] = brooker(Strategy::full, 100, 2.0);
  c["brooker_decorrelated_40"] = brooker(Strategy::decorrelated, 40, 2.0);
  c["brooker_equal_30_fixed_legs"] = brooker(Strategy::equal, 30, 0.0);  // simultaneous ends: ties
  mc::Scenario rows = brooker(Strategy::full, 25, 2.0);
  rows.backoff = {Strategy::full, 1.0, 50.0, 0.0};
  rows.resource.rows = 3;
  rows.resource.delay = 0.5;
  rows.resource.delay_dist = mc::DelayDist::exponential;
  rows.resource.service = mc::ServiceDist::exponential;
  c["rows_3_exponential"] = rows;
  mc::Scenario off = brooker(Strategy::full, 60, 2.0);
  off.client.retries = false;
  c["retries_off"] = off;
  mc::Scenario cut = brooker(Strategy::full, 100, 2.0);
  cut.measurement.horizon = 400.0;  // most runs stop at the horizon with clients in every state
  c["horizon_cut"] = cut;
  mc::Scenario warm = brooker(Strategy::nojitter, 50, 2.0);
  warm.measurement.warmup = 150.0;
  warm.measurement.horizon = 3000.0;
  c["warmup"] = warm;
  return c;
}

double mean(const std::vector<double>& x) {
  double s = 0.0;
  for (const double v : x) s += v;
  return s / static_cast<double>(x.size());
}
double variance(const std::vector<double>& x) {
  const double m = mean(x);
  double s = 0.0;
  for (const double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

}  // namespace

TEST(OneEvent, BrookerShapedRunsTakeIt) {
  // With random legs the shortcut draws the streams in another order, so its numbers differ: a run
  // that should take it did (with fixed legs they need not: see the next test).
  for (const auto& [name, s] : cases()) {
    if (s.resource.delay_dist == mc::DelayDist::normal && s.resource.delay_sd == 0.0) continue;
    const auto a = runs(s, true, 3, 1).front();
    const auto b = runs(s, false, 3, 1).front();
    EXPECT_FALSE(a.attempts == b.attempts && a.stop_time == b.stop_time && a.latency == b.latency) << name;
  }
}

TEST(OneEvent, SameLawsAsTheFourEventLoop) {
  constexpr int n = 600;
  constexpr double family_alpha = 1e-3;
  for (const auto& [name, s] : cases()) {
    const auto fast = runs(s, true, 11, n);
    const auto slow = runs(s, false, 12, n);
    std::vector<std::pair<std::string, double>> zs;
    for (const Metric& m : metrics()) {
      std::vector<double> a, b;
      std::int64_t a_nan = 0, b_nan = 0;
      for (const auto& r : fast) std::isnan(m.of(r)) ? ++a_nan : (a.push_back(m.of(r)), 0);
      for (const auto& r : slow) std::isnan(m.of(r)) ? ++b_nan : (b.push_back(m.of(r)), 0);
      // A metric is undefined (NaN) in a run for a structural reason (no success, stopped at the
      // horizon): both loops must agree on how often, to within a binomial z of 5.
      const double pa = static_cast<double>(a_nan) / n, pb = static_cast<double>(b_nan) / n;
      const double pp = (pa + pb) / 2.0;
      if (pp > 0.0 && pp < 1.0) {
        EXPECT_LT(std::abs(pa - pb) / std::sqrt(2.0 * pp * (1.0 - pp) / n), 5.0) << name << " " << m.name << " NaN";
      } else {
        EXPECT_EQ(a_nan, b_nan) << name << " " << m.name;
      }
      if (a.size() < 2 || b.size() < 2) continue;
      const double va = variance(a), vb = variance(b);
      const double ma = mean(a), mb = mean(b);
      if (va == 0.0 && vb == 0.0) {  // a constant in both (successes = N, queue_wait = 0): equal
        EXPECT_NEAR(ma, mb, 1e-9 * std::max(1.0, std::abs(mb))) << name << " " << m.name;
        continue;
      }
      zs.emplace_back(m.name,
                      (ma - mb) / std::sqrt(va / static_cast<double>(a.size()) + vb / static_cast<double>(b.size())));
    }
    ASSERT_FALSE(zs.empty()) << name;
    const double bound = boost::math::quantile(
        boost::math::complement(boost::math::normal(), family_alpha / (2.0 * static_cast<double>(zs.size()))));
    for (const auto& [metric, z] : zs) EXPECT_LT(std::abs(z), bound) << name << " " << metric << " z " << z;
  }
}

TEST(OneEvent, FixedLegsGiveTheSameNumbers) {
  // With fixed legs every reply takes the same time, so replies reach their clients in the order
  // the attempts ended: the shortcut draws the sleeps and the tie-breaks in the four-event loop's
  // order, and the two agree up to the order of their sums (the time integrals). With a sleep that
  // draws nothing, every run is the lockstep one: N(N + 1)/2 attempts.
  for (const Strategy st :
       {Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::decorrelated}) {
    mc::Scenario s = brooker(st, 8, 0.0);
    if (st == Strategy::none) s.backoff = {Strategy::none, 3.0, 2000.0, 0.0};
    const auto a = runs(s, true, 5, 1).front();
    const auto b = runs(s, false, 5, 1).front();
    EXPECT_EQ(a.attempts, b.attempts) << to_string(st);
    if (st == Strategy::none || st == Strategy::nojitter) {
      EXPECT_EQ(a.attempts, 8 * 9 / 2);
    }
    EXPECT_EQ(a.stop, b.stop);
    for (const Metric& m : metrics()) {
      const double x = m.of(a), y = m.of(b);
      if (std::isnan(y)) {
        EXPECT_TRUE(std::isnan(x)) << m.name;
      } else {
        EXPECT_NEAR(x, y, 1e-12 * std::max(1.0, std::abs(y))) << m.name;
      }
    }
  }
}

TEST(OneEvent, ObserversSeeHooksInTimeOrder) {
  for (const auto& [name, s] : cases()) {
    // The tests' client-side recorder, logging every start, end and sleep as told (a sleep carries
    // the time of the hook before it). It has no server-view hook, so the shortcut applies.
    mc::testing::TraceObserver rec;
    rec.log_hooks = true;
    rec.serial_ids = false;  // the shortcut numbers an attempt before it is sent, tells it in time order
    mc::detail::EngineOptions o;
    const mc::RunResult r = mc::testing::run_engine_build<mc::detail::FullParts>(s, 21, 0, o, rec);
    EXPECT_FALSE(rec.bad_serial) << name;
    EXPECT_EQ(r.attempts, runs(s, true, 21, 1).front().attempts) << name;  // the shortcut's run
    std::int64_t starts = 0, ends = 0;
    std::map<std::int64_t, char> last;  // per client: the last hook's kind
    for (std::size_t i = 0; i < rec.hooks.size(); ++i) {
      const auto& h = rec.hooks[i];
      if (i > 0) {
        EXPECT_GE(h.t, rec.hooks[i - 1].t) << name << " hook " << i;
      }
      starts += h.kind == 's';
      ends += h.kind == 'e';
      const char before = last.count(h.client) ? last[h.client] : 'z';
      // A client's hooks alternate: start, end (then sleep), start, …
      const char expected = h.kind == 's' ? 'z' : h.kind == 'e' ? 's' : 'e';
      EXPECT_EQ(before, expected) << name << " client " << h.client << " hook " << h.kind;
      last[h.client] = h.kind;
    }
    EXPECT_EQ(starts, r.attempts) << name;
    if (r.stop == mc::StopReason::finished) {
      EXPECT_EQ(ends, r.attempts) << name;
    }
  }
}

// The tests' two recorders reach the engine through one observer type (engine_instances.hpp), which
// declares the shortcut for both: a run recorded with the server view refuses it at run time and is
// told every hook of the four-event loop (each service start and end), with its numbers; a run
// recorded client side takes it. Brooker-shaped cases with random legs, whose two loops' numbers
// differ (BrookerShapedRunsTakeIt).
TEST(OneEvent, TheServerViewRefusesItAtRunTime) {
  for (const auto& [name, s] : cases()) {
    if (s.resource.delay_dist == mc::DelayDist::normal && s.resource.delay_sd == 0.0) continue;
    const mc::RunResult loop = runs(s, false, 4, 1).front(), shortcut = runs(s, true, 4, 1).front();
    mc::detail::EngineOptions o;
    mc::testing::ServerTrace server;
    const mc::RunResult a = mc::testing::run_engine(s, 4, 0, o, server);
    EXPECT_FALSE(server.bad) << name;
    EXPECT_EQ(a.attempts, loop.attempts) << name;
    EXPECT_EQ(a.stop_time, loop.stop_time) << name;
    std::int64_t served = 0;
    for (const auto& [id, x] : server.served) served += x.ended ? 1 : 0;
    EXPECT_GT(served, 0) << name;  // the shortcut tells no service hook
    mc::testing::TraceObserver client;
    client.serial_ids = false;
    const mc::RunResult b = mc::testing::run_engine(s, 4, 0, o, client);
    EXPECT_EQ(b.attempts, shortcut.attempts) << name;
    EXPECT_EQ(b.stop_time, shortcut.stop_time) << name;
  }
}
