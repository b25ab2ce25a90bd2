// The full tier's lean build (montecarlo/builds.hpp, lean_applies) against its full build: on every
// scenario the lean build takes (client timeouts, retry limits, deadlines, service
// distributions, rows, every model and strategy, bursts and steady traffic) the two give the same
// result, field for field and bit for bit; every component the lean build lacks sends a scenario
// that turns it on to the full build; and the lean build refuses a scenario it cannot run.
// Exact comparisons: no false failures (a failure prints the seed that replays it, RC_PARAMS).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "montecarlo/engine.hpp"
#include "montecarlo/scenario.hpp"
#include "tests/montecarlo/engine_instances.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// Every field of a run's result, as bits (NaN equals NaN; -0.0 differs from 0.0).
std::vector<std::uint64_t> bits(const mc::RunResult& r) {
  std::vector<std::uint64_t> out;
  const auto d = [&](double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    out.push_back(b);
  };
  const auto i = [&](std::int64_t x) { out.push_back(static_cast<std::uint64_t>(x)); };
  i(static_cast<std::int64_t>(r.stop));
  d(r.stop_time);
  i(r.clients_arrived);
  i(r.attempts);
  i(r.successes);
  d(r.attempts_per_client);
  d(r.makespan);
  d(r.latency);
  d(r.goodput);
  d(r.attempt_rate);
  d(r.sojourn);
  i(r.collapsed);
  i(r.drained);
  d(r.drain_time);
  d(r.drain_time_p99);
  i(r.unfinished);
  i(r.max_waiting);
  d(r.mean_waiting);
  d(r.mean_time_waiting);
  d(r.arrival_rate);
  d(r.busy_time);
  d(r.work_done);
  i(r.burst_clients);
  i(r.lost);
  d(r.lost_fraction);
  for (const double x : r.extra) d(x);  // every component's metric, slot by slot
  return out;
}

mc::RunResult run(const mc::Scenario& s, bool lean, std::uint64_t seed, std::uint64_t index) {
  mc::detail::EngineOptions o;
  o.full_tier = true;
  o.lean = lean;
  mc::detail::NullObserver observer;
  return mc::detail::run_engine(s, seed, index, o, observer);
}

}  // namespace

RC_GTEST_PROP(LeanBuild, GivesTheFullBuildsNumbers, ()) {
  mc::Scenario s;
  s.model = *rc::gen::element(Model::collision, Model::free, Model::shared, Model::ps, Model::none);
  s.backoff.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal,
                                         Strategy::decorrelated, Strategy::window);
  s.backoff.base = *rc::gen::element(0.25, 1.0);
  s.backoff.cap = s.backoff.base * *rc::gen::element(1.0, 10.0, 100.0);
  s.backoff.window = 2.0;
  s.traffic.clients = *rc::gen::inRange<std::int64_t>(0, 30);
  s.traffic.rate = *rc::gen::element(0.0, 0.3, 1.2);
  if (s.traffic.clients == 0 && s.traffic.rate == 0.0) s.traffic.clients = 1;
  s.measurement.horizon = *rc::gen::element(20.0, 200.0);
  s.measurement.warmup = *rc::gen::element(0.0, 5.0);
  s.client.retries = *rc::gen::element(true, true, false);
  mc::Scenario& o = s;
  o.resource.rows = *rc::gen::element<std::int64_t>(1, 1, 3);
  o.resource.service =
      *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential, mc::ServiceDist::lognormal);
  if (o.resource.service == mc::ServiceDist::lognormal) o.resource.service_cv = *rc::gen::element(0.5, 2.0);
  if (s.client.retries) {
    o.client.timeout = *rc::gen::element(INFINITY, 0.75, 3.0);
    o.client.max_attempts = *rc::gen::element<std::int64_t>(0, 1, 4);
    o.client.deadline = *rc::gen::element(INFINITY, 6.0, 40.0);
  }
  mc::check_scenario(s);
  RC_ASSERT(mc::detail::lean_applies(s));
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
  for (std::uint64_t index = 0; index < 3; ++index)
    RC_ASSERT(bits(run(s, true, seed, index)) == bits(run(s, false, seed, index)));
}

// Each option the lean build compiles away, set alone on a lean scenario, leaves the lean build.
TEST(LeanBuild, EveryCompiledAwayOptionLeavesIt) {
  mc::Scenario base;
  base.model = Model::shared;
  base.traffic.clients = 20;
  base.client.timeout = 5.0;
  ASSERT_TRUE(mc::detail::lean_applies(base));
  const std::vector<std::pair<std::string, std::function<void(mc::Scenario&)>>> options = {
      {"limit", [](mc::Scenario& o) { o.admission.limit = 2; }},
      {"aimd", [](mc::Scenario& o) { o.admission.aimd = true; }},
      {"lock", [](mc::Scenario& o) { o.resource.lock = true; }},
      {"delay", [](mc::Scenario& o) { o.resource.delay = 0.5; }},
      {"budget", [](mc::Scenario& o) { o.client.budget.preset = 1; }},
      {"breaker", [](mc::Scenario& o) { o.client.breaker.preset = 1; }},
      {"failure_prob", [](mc::Scenario& o) { o.failures.failure_prob = 0.1; }},
      {"outage", [](mc::Scenario& o) { o.failures.outage_end = 10.0; }},
      {"recovery_window", [](mc::Scenario& o) { o.measurement.recovery_window = 5.0; }},
      {"settle", [](mc::Scenario& o) { o.measurement.settle = true; }},
      {"mix", [](mc::Scenario& o) { o.client.mix = 0.5; }},
      {"ignore_retry_after", [](mc::Scenario& o) { o.client.ignore_retry_after = 0.5; }},
  };
  for (const auto& [name, set] : options) {
    mc::Scenario s = base;
    set(s);
    EXPECT_FALSE(mc::detail::lean_applies(s)) << name;
    mc::detail::EngineOptions eo;
    EXPECT_FALSE(mc::detail::lean_build(s, eo)) << name;
    // Given to the lean build anyway, the run is refused, not silently run without the option.
    mc::detail::NullObserver observer;
    EXPECT_THROW((mc::detail::run_engine_build<mc::detail::LeanParts>(s, 1, 0, eo, observer)), std::logic_error)
        << name;
  }
}

// The plain tier stays the plain tier; a lean scenario takes the lean build unless it is turned off.
TEST(LeanBuild, WhoTakesIt) {
  mc::Scenario s;
  s.model = Model::free;
  s.traffic.clients = 10;
  mc::detail::EngineOptions o;
  EXPECT_FALSE(mc::detail::lean_build(s, o));  // no option: the plain tier
  o.full_tier = true;
  EXPECT_TRUE(mc::detail::lean_build(s, o));
  s.client.max_attempts = 3;
  o.full_tier = false;
  EXPECT_TRUE(mc::detail::lean_build(s, o));
  o.lean = false;
  EXPECT_FALSE(mc::detail::lean_build(s, o));
}
