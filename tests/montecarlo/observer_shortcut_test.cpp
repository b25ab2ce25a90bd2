// Observers declare the shortcuts they tolerate (montecarlo/engine_parts.hpp, tolerated_shortcuts),
// and the engine reads the declaration: the observers below are defined here, unknown to the engine.
// One that declares nothing tolerates no shortcut (observer_tolerates, the engine's only gate, says
// no); the same observer declaring both shortcuts gets them; declaring them but refusing them for the
// run (tolerates) gets none and is told every hook, with the numbers of the loop without the shortcut
// (the library's, NullObserver with the shortcut switched off). So this file compiles two event loops,
// the declaring observer's on each case's model and tier; the one that declares nothing needs none,
// since the engine asks observer_tolerates and nothing else. And the run detail's most attempts (run_detail.cpp) counts
// every attempt on a lock-step scenario. Deterministic: fixed seeds, exact equalities.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/run_detail.hpp"
#include "montecarlo/run_engine.hpp"

namespace mc = retrylab::montecarlo;
namespace d = mc::detail;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// Counts the attempts it is told of. Declares no shortcut.
struct Counter {
  std::int64_t starts = 0, ends = 0;
  void on_arrival(std::int64_t /*client*/, double /*t*/, bool /*burst*/) noexcept {}
  void on_start(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*t*/) noexcept { ++starts; }
  void on_end(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*start*/, double /*end*/,
              bool /*success*/) noexcept {
    ++ends;
  }
};

// The same, declaring both shortcuts; `allow` is its say for the run.
struct TolerantCounter : Counter {
  static constexpr unsigned tolerated_shortcuts = d::shortcut::all;
  bool allow = true;
  bool tolerates(unsigned /*shortcut*/) const noexcept { return allow; }
};

static_assert(d::declared_shortcuts<Counter>() == 0u);
static_assert(d::declared_shortcuts<TolerantCounter>() == d::shortcut::all);
static_assert(d::declared_shortcuts<d::NullObserver>() == d::shortcut::all);

bool same_run(const mc::RunResult& a, const mc::RunResult& b) {
  return a.attempts == b.attempts && a.successes == b.successes &&
         std::bit_cast<std::uint64_t>(a.stop_time) == std::bit_cast<std::uint64_t>(b.stop_time) &&
         std::bit_cast<std::uint64_t>(a.latency) == std::bit_cast<std::uint64_t>(b.latency);
}

// The lock-step shortcut's case (engine.hpp): collision, no backoff jitter, a pure burst of 4 with
// retries on. Every round is 4 simultaneous attempts that all fail, to the horizon.
constexpr std::int64_t lockstep_clients = 4;
mc::Scenario lockstep_case() {
  mc::Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::nojitter, 1.0, 8.0, 0.0};
  s.traffic.clients = lockstep_clients;
  s.traffic.rate = 0.0;
  s.measurement.horizon = 500.0;
  mc::check_scenario(s);
  return s;
}

template <class O>
mc::RunResult lockstep_run(const mc::Scenario& s, O& o) {
  return d::Engine<Model::collision, d::PlainParts, O>(s, 5, 0, d::EngineOptions{}, o).run();
}

// The one-event shortcut's case: Brooker's test (a pure burst on `free` with network delay), with
// random legs, so the shortcut's numbers differ from the four-event loop's.
mc::Scenario one_event_case() {
  mc::BrookerTest t;
  t.clients = 30;
  return mc::brooker_scenario(t);
}

template <class O>
mc::RunResult one_event_run(const mc::Scenario& s, O& o) {
  return d::Engine<Model::free, d::FullParts, O>(s, 5, 0, d::EngineOptions{}, o).run();
}

mc::RunResult null_run(const mc::Scenario& s, bool shortcut) {
  d::EngineOptions options;
  options.one_event_shortcut = shortcut;
  d::NullObserver none;
  return d::run_engine_build<d::FullParts>(s, 5, 0, options, none);
}

// The lock-step case's loop without the shortcut (the library's plain build, NullObserver).
mc::RunResult null_lockstep_loop(const mc::Scenario& s) {
  d::EngineOptions options;
  options.lockstep_shortcut = false;
  d::NullObserver none;
  return d::run_engine_build<d::PlainParts>(s, 5, 0, options, none);
}

}  // namespace

TEST(ObserverShortcut, AnObserverThatDeclaresNothingToleratesNoShortcut) {
  const Counter silent;
  EXPECT_FALSE(d::observer_tolerates(silent, d::shortcut::lockstep));
  EXPECT_FALSE(d::observer_tolerates(silent, d::shortcut::one_event));
  TolerantCounter tolerant;
  EXPECT_TRUE(d::observer_tolerates(tolerant, d::shortcut::lockstep));
  EXPECT_TRUE(d::observer_tolerates(tolerant, d::shortcut::one_event));
  tolerant.allow = false;
  EXPECT_FALSE(d::observer_tolerates(tolerant, d::shortcut::lockstep));
  EXPECT_FALSE(d::observer_tolerates(tolerant, d::shortcut::one_event));
}

TEST(ObserverShortcut, LockStepOnlyForAnObserverThatTolerates) {
  const mc::Scenario s = lockstep_case();
  // The loop without the shortcut: many rounds of 4, no success.
  const mc::RunResult a = null_lockstep_loop(s);
  EXPECT_GT(a.attempts, 10 * lockstep_clients);
  EXPECT_EQ(a.successes, 0);

  TolerantCounter tolerant;
  const mc::RunResult b = lockstep_run(s, tolerant);
  // The shortcut: the burst's first attempts told, then none; the same count of attempts.
  EXPECT_EQ(tolerant.starts, lockstep_clients);
  EXPECT_EQ(tolerant.ends, 0);
  EXPECT_EQ(b.attempts, a.attempts);

  TolerantCounter refusing;
  refusing.allow = false;
  const mc::RunResult c = lockstep_run(s, refusing);
  EXPECT_EQ(refusing.starts, c.attempts);
  EXPECT_TRUE(same_run(a, c));
}

TEST(ObserverShortcut, OneEventOnlyForAnObserverThatTolerates) {
  const mc::Scenario s = one_event_case();
  const mc::RunResult loop = null_run(s, false), shortcut = null_run(s, true);
  ASSERT_FALSE(same_run(loop, shortcut));  // the case tells the two apart

  TolerantCounter tolerant;
  const mc::RunResult b = one_event_run(s, tolerant);
  EXPECT_TRUE(same_run(b, shortcut));
  EXPECT_EQ(tolerant.starts, b.attempts);  // the one-event shortcut tells every start

  TolerantCounter refusing;
  refusing.allow = false;
  const mc::RunResult c = one_event_run(s, refusing);
  EXPECT_TRUE(same_run(c, loop));
  EXPECT_EQ(refusing.starts, c.attempts);  // told of every attempt
  if (c.stop == mc::StopReason::finished) {
    EXPECT_EQ(refusing.ends, c.attempts);
  }
}

TEST(ObserverShortcut, RunDetailCountsEveryAttemptOnALockStepRun) {
  // The lock-step shortcut tells no on_start after the first round: the detail's observer refuses it
  // when it counts attempts. In lock step every client makes every round's attempt.
  const mc::Scenario s = lockstep_case();
  mc::DetailOptions o;
  o.most_attempts = true;
  for (const mc::RunDetail& r : mc::simulate_detailed(s, mc::RunPlan{3, 9, 1}, o)) {
    EXPECT_GT(r.result.attempts, 10 * lockstep_clients);
    EXPECT_EQ(r.most_attempts * lockstep_clients, r.result.attempts);
  }
}
