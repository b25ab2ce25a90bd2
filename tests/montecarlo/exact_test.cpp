// Deterministic cases of the engine, exactly: the classic test against analytic/classic.hpp to the
// last bit, collision in lock-step never finishing, the lock-step shortcut against the event loop,
// stop rules, input checks, the canonical description and its hash, and thread-count determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "analytic/classic.hpp"
#include "analytic/error.hpp"
#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Backoff;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;

namespace {

mc::Scenario burst(Model m, Strategy st, std::int64_t n, double base = 1.0, double cap = 1000.0) {
  mc::Scenario s;
  s.model = m;
  s.backoff = {st, base, cap, 0.0};
  s.traffic.clients = n;
  return s;
}

// Bitwise equality of two doubles (NaN equal to NaN).
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_identical(const mc::RunResult& a, const mc::RunResult& b) {
  EXPECT_EQ(a.stop, b.stop);
  EXPECT_EQ(a.clients_arrived, b.clients_arrived);
  EXPECT_EQ(a.attempts, b.attempts);
  EXPECT_EQ(a.successes, b.successes);
  EXPECT_EQ(a.unfinished, b.unfinished);
  EXPECT_EQ(a.max_waiting, b.max_waiting);
  EXPECT_EQ(a.collapsed, b.collapsed);
  EXPECT_EQ(a.drained, b.drained);
  const double fa[] = {a.stop_time,         a.attempts_per_client,
                       a.makespan,          a.latency,
                       a.goodput,           a.attempt_rate,
                       a.sojourn,           a.drain_time,
                       a.drain_time_p99,    a.mean_waiting,
                       a.mean_time_waiting, a.arrival_rate,
                       a.busy_time,         a.work_done};
  const double fb[] = {b.stop_time,         b.attempts_per_client,
                       b.makespan,          b.latency,
                       b.goodput,           b.attempt_rate,
                       b.sojourn,           b.drain_time,
                       b.drain_time_p99,    b.mean_waiting,
                       b.mean_time_waiting, b.arrival_rate,
                       b.busy_time,         b.work_done};
  for (std::size_t i = 0; i < std::size(fa); ++i)
    EXPECT_TRUE(same(fa[i], fb[i])) << "field " << i << ": " << fa[i] << " vs " << fb[i];
}

TEST(Classic, FreeNoneMatchesClosedFormExactly) {
  for (std::int64_t n : {1, 2, 3, 10, 100, 257}) {
    SCOPED_TRACE(n);
    const auto cf = retrylab::classic({Model::free, {Strategy::none, 1.0, 1000.0, 0.0}, n});
    for (std::uint64_t run = 0; run < 3; ++run) {
      const auto r = mc::simulate_run(burst(Model::free, Strategy::none, n), 1, run);
      EXPECT_EQ(r.stop, mc::StopReason::finished);
      EXPECT_EQ(r.attempts_per_client, *cf.attempts_per_client);
      EXPECT_EQ(r.makespan, *cf.makespan);
      EXPECT_EQ(r.successes, n);
      EXPECT_EQ(r.unfinished, 0);
    }
  }
}

TEST(Classic, FreeNojitterMatchesClosedFormExactly) {
  // Dyadic base and cap: every sum is exact in binary, so "to the last bit" is a fair demand.
  const Backoff backoffs[] = {{Strategy::nojitter, 1.0, 1000.0, 0.0},
                              {Strategy::nojitter, 0.5, 6.0, 0.0},
                              {Strategy::nojitter, 0.25, retrylab::unbounded_cap, 0.0}};
  for (const Backoff& b : backoffs) {
    for (std::int64_t n : {1, 2, 5, 16, 40}) {
      SCOPED_TRACE(n);
      const auto cf = retrylab::classic({Model::free, b, n});
      auto s = burst(Model::free, Strategy::nojitter, n, b.base, b.cap);
      s.measurement.horizon = 1e18;  // cap none: the makespan grows like 2^N
      const auto r = mc::simulate_run(s, 3, 0);
      EXPECT_EQ(r.stop, mc::StopReason::finished);
      EXPECT_EQ(r.attempts_per_client, *cf.attempts_per_client);
      EXPECT_EQ(r.makespan, *cf.makespan);
      EXPECT_TRUE(r.drained);
      EXPECT_EQ(r.drain_time, r.makespan);
    }
  }
}

TEST(Classic, CollisionLockstepNeverFinishes) {
  for (Strategy st : {Strategy::none, Strategy::nojitter}) {
    for (std::int64_t n : {2, 3, 50}) {
      const auto cf = retrylab::classic({Model::collision, {st, 1.0, 1000.0, 0.0}, n});
      ASSERT_FALSE(cf.finishes);
      const auto r = mc::simulate_run(burst(Model::collision, st, n), 1, 0);  // default horizon 1e7
      EXPECT_EQ(r.stop, mc::StopReason::horizon);
      EXPECT_EQ(r.stop_time, mc::default_burst_horizon);
      EXPECT_EQ(r.successes, 0);
      EXPECT_EQ(r.unfinished, n);
      EXPECT_TRUE(std::isnan(r.makespan));
      EXPECT_FALSE(r.drained);
      EXPECT_TRUE(std::isnan(r.drain_time));
    }
  }
  // none: one round per time unit, rounds start at 0, 1, …, 1e7 − 1.
  const auto r = mc::simulate_run(burst(Model::collision, Strategy::none, 4), 1, 0);
  EXPECT_EQ(r.attempts, 4 * 10'000'000LL);
}

TEST(Classic, CollisionSingleClientFinishesAtOne) {
  const auto cf = retrylab::classic({Model::collision, {Strategy::none, 1.0, 1000.0, 0.0}, 1});
  const auto r = mc::simulate_run(burst(Model::collision, Strategy::none, 1), 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.makespan, *cf.makespan);
  EXPECT_EQ(r.attempts_per_client, *cf.attempts_per_client);
}

mc::RunResult run_with(const mc::Scenario& s, bool shortcut) {
  mc::detail::EngineOptions o;
  o.lockstep_shortcut = shortcut;
  mc::detail::NullObserver obs;
  return mc::detail::run_engine(s, 5, 0, o, obs);
}

void expect_close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << a << " vs " << b;
    return;
  }
  // Only the summation order differs (N additions vs one multiplication per round): a few ulps of
  // the accumulated sum, over at most ~1000 rounds.
  EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::abs(b))) << a << " vs " << b;
}

TEST(Lockstep, ShortcutEqualsTheEventLoop) {
  mc::Scenario cases[] = {burst(Model::collision, Strategy::none, 3),
                          burst(Model::collision, Strategy::nojitter, 4, 1.0, 16.0),
                          burst(Model::collision, Strategy::nojitter, 7, 0.3, retrylab::unbounded_cap)};
  cases[0].measurement.horizon = 1000.5;
  cases[0].measurement.warmup = 10.25;
  cases[1].measurement.horizon = 2000.0;
  cases[1].measurement.warmup = 100.5;
  cases[2].measurement.horizon = 5000.0;
  for (const auto& s : cases) {
    SCOPED_TRACE(mc::canonical(s));
    const auto fast = run_with(s, true), slow = run_with(s, false);
    EXPECT_EQ(fast.stop, slow.stop);
    EXPECT_EQ(fast.attempts, slow.attempts);
    EXPECT_EQ(fast.successes, slow.successes);
    EXPECT_EQ(fast.unfinished, slow.unfinished);
    EXPECT_EQ(fast.max_waiting, slow.max_waiting);
    const double a[] = {fast.stop_time,         fast.attempts_per_client,
                        fast.makespan,          fast.latency,
                        fast.goodput,           fast.attempt_rate,
                        fast.sojourn,           fast.drain_time,
                        fast.drain_time_p99,    fast.mean_waiting,
                        fast.mean_time_waiting, fast.arrival_rate,
                        fast.busy_time,         fast.work_done};
    const double b[] = {slow.stop_time,         slow.attempts_per_client,
                        slow.makespan,          slow.latency,
                        slow.goodput,           slow.attempt_rate,
                        slow.sojourn,           slow.drain_time,
                        slow.drain_time_p99,    slow.mean_waiting,
                        slow.mean_time_waiting, slow.arrival_rate,
                        slow.busy_time,         slow.work_done};
    for (std::size_t i = 0; i < std::size(a); ++i) {
      SCOPED_TRACE(i);
      expect_close(a[i], b[i]);
    }
  }
}

// The lock-step shortcut of `free` and `shared` (montecarlo/lockstep.hpp) against the event loop
// with it off, to the last bit of every field: random bursts of both models with `none` or
// `nojitter` (bases and caps dyadic or not, no cap, multipliers 1 to 3), horizons that cut a round
// in flight or a sleep, or the default, and warm-ups anywhere before the horizon. Fixed seed, exact
// comparison: no false failures. Runs of more than 2^52 time units take the loop (and are equal too).
TEST(LockstepFirstCommit, SameBytesAsTheEventLoop) {
  std::mt19937_64 g(56);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double bases[] = {1.0, 0.5, 0.3, 0.01, 7.7, 2.0};
  const double caps[] = {1000.0, 16.0, 100.5, retrylab::unbounded_cap};
  const double multipliers[] = {2.0, 2.0, 1.0, 1.5, 3.0};
  int cut = 0, finished = 0;
  for (int i = 0; i < 600; ++i) {
    const Model m = i % 2 == 0 ? Model::free : Model::shared;
    const Strategy st = g() % 3 == 0 ? Strategy::none : Strategy::nojitter;
    const auto n = static_cast<std::int64_t>(i % 50 == 0 ? 1000 : 2 + g() % 150);
    mc::Scenario s = burst(m, st, n, bases[g() % std::size(bases)], caps[g() % std::size(caps)]);
    s.backoff.multiplier = multipliers[g() % std::size(multipliers)];
    if (s.backoff.cap < s.backoff.base) s.backoff.cap = s.backoff.base;
    switch (g() % 4) {
      case 0: break;  // the default horizon: the run finishes (or, with no cap, may not)
      case 1: s.measurement.horizon = std::ceil(unit(g) * 3.0 * static_cast<double>(n)); break;
      case 2: s.measurement.horizon = unit(g) * 50.0 * static_cast<double>(n) + 0.5; break;
      default: s.measurement.horizon = 1e18; break;  // beyond 2^52: the loop either way
    }
    if (g() % 2 == 0)
      s.measurement.warmup = unit(g) * std::min(mc::effective_horizon(s), 20.0 * static_cast<double>(n));
    SCOPED_TRACE(mc::canonical(s));
    const auto fast = run_with(s, true), slow = run_with(s, false);
    expect_identical(fast, slow);
    if (::testing::Test::HasFailure()) return;
    (fast.stop == mc::StopReason::finished ? finished : cut) += 1;
  }
  EXPECT_GT(finished, 100);
  EXPECT_GT(cut, 100);
}

TEST(StopRules, BurstAtLeastKCollapsesAtTimeZero) {
  auto s = burst(Model::free, Strategy::full, 10);
  s.measurement.collapse = 5;
  const auto r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::collapsed);
  EXPECT_TRUE(r.collapsed);
  EXPECT_EQ(r.stop_time, 0.0);
  EXPECT_EQ(r.max_waiting, 5);
  EXPECT_EQ(r.clients_arrived, 5);
}

TEST(StopRules, BurstOnSteadyStopsWhenDrained) {
  auto s = burst(Model::free, Strategy::full, 20);
  s.traffic.rate = 0.05;
  s.measurement.horizon = 1e6;
  for (std::uint64_t run = 0; run < 5; ++run) {
    const auto r = mc::simulate_run(s, 1, run);
    EXPECT_EQ(r.stop, mc::StopReason::drained);
    EXPECT_TRUE(r.drained);
    EXPECT_EQ(r.drain_time, r.stop_time);
    EXPECT_LE(r.drain_time_p99, r.drain_time);
    EXPECT_TRUE(std::isnan(r.makespan));  // makespan is defined for finished (pure burst) runs only
  }
}

TEST(StopRules, SteadyRunsStopAtTheHorizon) {
  mc::Scenario s;
  s.model = Model::ps;
  s.traffic.rate = 0.3;
  s.measurement.horizon = 300.0;
  const auto r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::horizon);
  EXPECT_EQ(r.stop_time, 300.0);
  EXPECT_FALSE(r.drained);
  EXPECT_TRUE(std::isnan(r.drain_time));
  EXPECT_TRUE(std::isnan(r.drain_time_p99));
}

TEST(StopRules, RetriesOffBurstFinishesWithOneSuccess) {
  auto s = burst(Model::free, Strategy::full, 5);
  s.client.retries = false;
  const auto r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.attempts, 5);
  EXPECT_EQ(r.successes, 1);  // five simultaneous commits: exactly one wins
  EXPECT_EQ(r.makespan, 1.0);
}

TEST(Inputs, BadScenariosNameTheField) {
  auto field_of = [](const mc::Scenario& s) -> std::string {
    try {
      mc::check_scenario(s);
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  };
  const auto ok = burst(Model::free, Strategy::full, 3);
  EXPECT_EQ(field_of(ok), "");
  auto s = ok;
  s.traffic.rate = -1;
  EXPECT_EQ(field_of(s), "rate");
  s.traffic.rate = NAN;
  EXPECT_EQ(field_of(s), "rate");
  s = ok;
  s.traffic.rate = 0.5;
  EXPECT_EQ(field_of(s), "horizon");  // steady traffic needs a horizon
  s.measurement.horizon = -1;
  EXPECT_EQ(field_of(s), "horizon");
  s.measurement.horizon = INFINITY;
  EXPECT_EQ(field_of(s), "horizon");
  s = ok;
  s.measurement.warmup = 2e7;
  EXPECT_EQ(field_of(s), "warmup");
  s.measurement.warmup = -1;
  EXPECT_EQ(field_of(s), "warmup");
  s = ok;
  s.measurement.collapse = 0;
  EXPECT_EQ(field_of(s), "collapse");
  s = ok;
  s.traffic.clients = 0;
  EXPECT_EQ(field_of(s), "clients");
  s.traffic.clients = -3;
  EXPECT_EQ(field_of(s), "clients");
  s.traffic.clients = mc::max_clients + 1;
  EXPECT_EQ(field_of(s), "clients");
  s = ok;
  s.measurement.collapse = mc::max_collapse + 1;
  EXPECT_EQ(field_of(s), "collapse");
  s = ok;
  s.backoff.cap = 0.5;
  EXPECT_EQ(field_of(s), "cap");
  s = ok;
  s.backoff.strategy = Strategy::window;
  EXPECT_EQ(field_of(s), "window");
  mc::RunPlan p;
  p.runs = 0;
  EXPECT_THROW(mc::check_run_plan(p), InputError);
  EXPECT_THROW(mc::simulate(ok, p), InputError);
}

TEST(Canonical, DescriptionAndHash) {
  // The format documented in montecarlo/scenario.hpp.
  EXPECT_EQ(mc::canonical(burst(Model::free, Strategy::full, 100)),
            "model=free strategy=full base=1 cap=1000 window=0 clients=100 rate=0 horizon=10000000 warmup=0 "
            "collapse=3000 retries=on");
  auto s = burst(Model::free, Strategy::full, 100);
  s.backoff.window = 7;  // meaningless for full jitter: canonically 0, same random numbers
  EXPECT_EQ(mc::stable_hash(s), mc::stable_hash(burst(Model::free, Strategy::full, 100)));
  s.backoff.cap = retrylab::unbounded_cap;
  EXPECT_NE(mc::canonical(s).find("cap=none"), std::string::npos);
  // FNV-1a 64 reference values (Landon Curt Noll's FNV test suite, fnv_test.c).
  EXPECT_EQ(mc::fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(mc::fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(mc::fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Determinism, ThreadCountNeverChangesAResult) {
  mc::Scenario s;
  s.model = Model::shared;
  s.backoff = {Strategy::decorrelated, 1.0, 100.0, 0.0};
  s.traffic.clients = 30;
  s.traffic.rate = 0.1;
  s.measurement.horizon = 3000;
  mc::RunPlan one{12, 9, 1}, three{12, 9, 3};
  const auto a = mc::simulate(s, one), b = mc::simulate(s, three);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    expect_identical(a[i], b[i]);
    expect_identical(a[i], mc::simulate_run(s, 9, i));
  }
  // A different seed changes the runs.
  EXPECT_NE(mc::simulate_run(s, 10, 0).attempts + mc::simulate_run(s, 10, 1).attempts, a[0].attempts + a[1].attempts);
}

// A worker lends one EngineScratch (queues, job slots, client tables, latency list) to every run it
// does, whatever the scenario before: runs of unlike scenarios, both tiers, interleaved through one
// scratch, each against the same run with storage of its own, to the last bit (the full tier's
// percentiles and counters too). Exact and seeded: no false failures.
TEST(Determinism, LentStorageNeverChangesAResult) {
  std::vector<mc::Scenario> scenarios;
  scenarios.push_back(burst(Model::free, Strategy::full, 100));  // plain tier, a burst
  mc::Scenario steady = burst(Model::shared, Strategy::full, 0);
  steady.traffic.rate = 0.3;
  steady.measurement.horizon = 2000;
  scenarios.push_back(steady);  // plain tier, steady traffic
  mc::Scenario timeouts = steady;
  timeouts.client.timeout = 20;
  timeouts.client.max_attempts = 4;
  scenarios.push_back(timeouts);                                 // full tier: timeouts, lost clients
  scenarios.push_back(mc::brooker_scenario(mc::BrookerTest{}));  // full tier: network legs, random service
  mc::Scenario limited = burst(Model::collision, Strategy::equal, 60);
  limited.admission.limit = 2;
  limited.admission.reject_cost = 0.05;
  limited.admission.retry_after = 2;
  limited.resource.service = mc::ServiceDist::exponential;
  scenarios.push_back(limited);  // full tier: admission control, rejections

  mc::detail::EngineScratch lent;
  const mc::detail::EngineOptions options;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t k = 0; k < scenarios.size(); ++k) {
      const mc::Scenario& s = scenarios[(k * 3 + static_cast<std::size_t>(round)) % scenarios.size()];
      SCOPED_TRACE(mc::canonical(s) + " round " + std::to_string(round));
      const auto index = static_cast<std::uint64_t>(round);
      mc::detail::NullObserver a_observer, b_observer;
      const mc::RunResult a = mc::detail::run_engine(s, 5, index, options, a_observer, &lent);
      const mc::RunResult b = mc::detail::run_engine(s, 5, index, options, b_observer);
      expect_identical(a, b);
      EXPECT_TRUE(same(a.metric("latency_p50"), b.metric("latency_p50")));
      EXPECT_TRUE(same(a.metric("latency_p99"), b.metric("latency_p99")));
      EXPECT_EQ(a.metric("rejected"), b.metric("rejected"));
      EXPECT_EQ(a.lost, b.lost);
      EXPECT_EQ(a.metric("timed_out"), b.metric("timed_out"));
    }
  }
}

TEST(Summary, NaNRunsAreLeftOutOfN) {
  std::vector<mc::RunResult> rs(3);
  rs[0].makespan = 2.0;
  rs[1].makespan = NAN;
  rs[2].makespan = 4.0;
  for (auto& r : rs) r.burst_clients = 1;
  rs[0].drained = true;
  rs[1].collapsed = true;
  rs[1].stop = mc::StopReason::collapsed;
  const auto s = mc::summarize(rs);
  EXPECT_EQ(s.runs, 3);
  EXPECT_EQ(s.makespan.n, 2);
  EXPECT_EQ(s.makespan.mean, 3.0);
  EXPECT_EQ(s.collapsed.count, 1);
  EXPECT_EQ(s.collapsed.n, 3);
  EXPECT_EQ(s.drained.count, 1);
  EXPECT_EQ(s.stops[static_cast<int>(mc::StopReason::collapsed)], 1);
  std::vector<mc::RunResult> steady(2);  // no burst: drained is undefined
  EXPECT_EQ(mc::summarize(steady).drained.n, 0);
}

TEST(DrawSleeps, SameSamplerAsTheEngine) {
  const Backoff nj{Strategy::nojitter, 1.0, 1000.0, 0.0};
  for (int k : {1, 2, 5, 11, 12, 100}) {
    for (double x : mc::draw_sleeps(nj, k, 3, 1)) EXPECT_EQ(x, retrylab::window_width(nj, k));
  }
  const Backoff full{Strategy::full, 1.0, 1000.0, 0.0};
  const auto a = mc::draw_sleeps(full, 4, 1000, 7);
  EXPECT_EQ(a, mc::draw_sleeps(full, 4, 1000, 7));
  EXPECT_NE(a, mc::draw_sleeps(full, 4, 1000, 8));
  for (double x : a) {
    EXPECT_GT(x, 0.0);
    EXPECT_LT(x, 8.0);
  }
  const Backoff dec{Strategy::decorrelated, 2.0, 50.0, 0.0};
  for (double x : mc::draw_sleeps(dec, 9, 1000, 7)) {
    EXPECT_GE(x, 2.0);
    EXPECT_LE(x, 50.0);
  }
  mc::SleepSampler sampler(full);
  EXPECT_EQ(sampler.width(4), 8.0);
  EXPECT_THROW(mc::draw_sleeps(full, 0, 1, 1), InputError);
}

}  // namespace
