// A load that changes over time (montecarlo/profile.hpp, components/load_profile.hpp). The profile
// type exactly (rates, integrals, text, parsing, refusals, on values exact in binary); the engine:
// arrivals in windows against ∫λ (z-tests), a constant profile against the plain rate under the same
// key (bit for bit), the scenario rules and the work estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/profile.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using mc::LoadProfile;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::same_bits;

namespace {

std::string refusal(const std::string& text) {
  try {
    LoadProfile::parse(text).check();
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

// The steady arrivals' times of a traced run (burst clients left out). The trace recorder runs on the
// tests' shared loops (engine_instances.hpp), so this file compiles no event loop of its own.
std::vector<double> steady_arrivals(const mc::testing::TraceObserver& trace) {
  std::vector<double> t;
  for (std::size_t i = 0; i < trace.arrival_time.size(); ++i)
    if (!trace.arrival_burst[i]) t.push_back(trace.arrival_time[i]);
  return t;
}

mc::Scenario one_attempt_each(const std::string& profile, double horizon) {
  mc::Scenario s;
  s.model = Model::none;  // no contention: each request one attempt
  s.client.retries = false;
  s.traffic.load_profile = LoadProfile::parse(profile);
  s.measurement.horizon = horizon;
  mc::check_scenario(s);
  return s;
}

}  // namespace

TEST(LoadProfile, LinearRatesIntegralAndText) {
  const LoadProfile p = LoadProfile::parse("10:5,20:15");
  p.check();
  EXPECT_EQ(p.kind(), mc::ProfileKind::linear);
  EXPECT_EQ(p.rate(0.0), 5.0);  // the first rate before the first time
  EXPECT_EQ(p.rate(10.0), 5.0);
  EXPECT_EQ(p.rate(15.0), 10.0);
  EXPECT_EQ(p.rate(20.0), 15.0);
  EXPECT_EQ(p.rate(1e9), 15.0);  // the last after the last
  EXPECT_EQ(p.max_rate(), 15.0);
  EXPECT_EQ(p.integral(0.0, 20.0), 5.0 * 10 + 10.0 * (5 + 15) / 2);
  EXPECT_EQ(p.integral(15.0, 30.0), 5.0 * (10 + 15) / 2 + 10.0 * 15);
  EXPECT_EQ(p.integral(12.0, 12.0), 0.0);
  EXPECT_EQ(p.text(), "10:5,20:15");
  EXPECT_EQ(LoadProfile::parse(p.text()), p);
}

TEST(LoadProfile, StepRatesIntegralAndText) {
  const LoadProfile p = LoadProfile::parse("step:10:4,20:8");
  p.check();
  EXPECT_EQ(p.rate(5.0), 0.0);  // 0 before the first step
  EXPECT_EQ(p.rate(10.0), 4.0);
  EXPECT_EQ(p.rate(19.5), 4.0);
  EXPECT_EQ(p.rate(20.0), 8.0);
  EXPECT_EQ(p.integral(0.0, 30.0), 4.0 * 10 + 8.0 * 10);
  EXPECT_EQ(p.integral(15.0, 25.0), 4.0 * 5 + 8.0 * 5);
  EXPECT_EQ(p.text(), "step:10:4,20:8");
}

TEST(LoadProfile, SineRatesIntegralAndText) {
  const LoadProfile p = LoadProfile::parse("sine:100:2:5");
  p.check();
  EXPECT_EQ(p.rate(25.0), 7.0);  // sin(π/2) = 1 exactly in double
  EXPECT_EQ(p.max_rate(), 7.0);
  EXPECT_NEAR(p.integral(0.0, 100.0), 500.0, 1e-9);  // whole periods: the mean times the length
  EXPECT_NEAR(p.integral(0.0, 50.0), 250.0 + 2.0 * 100.0 / std::numbers::pi, 1e-9);
  EXPECT_EQ(p.text(), "sine:100:2:5");
  const LoadProfile half = LoadProfile::parse("sine:100:2");
  EXPECT_TRUE(half.needs_mean());
  EXPECT_THROW(half.check(), InputError);
  EXPECT_EQ(half.with_mean(5.0), p);
}

TEST(LoadProfile, ScaledToAttemptDurationsKeepsTheCounts) {
  const LoadProfile p = LoadProfile::parse("10:5,20:15");
  const LoadProfile q = p.scaled(2.0);  // times / 2, rates x 2
  EXPECT_EQ(q.text(), "5:10,10:30");
  EXPECT_EQ(q.integral(0.0, 10.0), p.integral(0.0, 20.0));
  EXPECT_EQ(LoadProfile::parse("sine:100:2:5").scaled(4.0).text(), "sine:25:8:20");
  EXPECT_EQ(LoadProfile::parse("step:8:1").scaled(2.0).text(), "step:4:2");
}

TEST(LoadProfile, RefusesBadTextNamingLoadProfile) {
  for (const char* bad : {"", "1:2:3", "0:1,0:2", "0:1,-1:2", "0:-1", "0:nan", "0:inf", "0:0", "0x1:2", "0:1,",
                          "step:", "step:5:0", "sine:0:1:2", "sine:10:3:2", "sine:10:1:2:3", "sine:10:-1:2", " 0:1"})
    EXPECT_EQ(refusal(bad), "load_profile") << bad;
  EXPECT_EQ(refusal("0:0,5:1"), "(accepted)");
}

TEST(LoadProfile, ScenarioRules) {
  mc::Scenario s = one_attempt_each("0:3", 10.0);
  EXPECT_TRUE(mc::has_server_features(s));  // the thinning is a full-tier component
  EXPECT_EQ(mc::candidate_rate(s), 3.0);
  const std::string c = mc::canonical(s);
  EXPECT_TRUE(c.ends_with(" load_profile=0:3")) << c;
  s.traffic.rate = 1.0;  // both: refused, naming the profile
  try {
    mc::check_scenario(s);
    ADD_FAILURE() << "rate and load_profile together were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "load_profile");
    EXPECT_NE(std::string(e.what()).find("rate"), std::string::npos);
  }
  s.traffic.rate = 0.0;
  s.measurement.horizon = 0.0;  // a profile needs a horizon
  try {
    mc::check_scenario(s);
    ADD_FAILURE() << "a profile without a horizon was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "horizon");
  }
  EXPECT_EQ(mc::canonical(mc::Scenario{}).find("load_profile"), std::string::npos);
}

TEST(LoadProfile, WorkEstimateUsesTheMeanRateOverTheHorizon) {
  const mc::Scenario s = one_attempt_each("step:0:2,50:4", 100.0);
  mc::RunPlan plan;
  plan.runs = 3;
  EXPECT_EQ(mc::estimate_resources(s, plan).clients, 3.0 * (2.0 * 50 + 4.0 * 50));
}

// Arrivals in each window, summed over R runs, are Poisson with mean R·∫λ over the window: each
// |z| < 4.5 fails by chance with probability 6.8e-6 (each window holds thousands of arrivals, so
// the normal limit is close), and the 15 windows below (3 profiles x 5) together 1.0e-4 (fixed
// seeds: the outcome is the same on every run of the test).
TEST(LoadProfileEngine, ArrivalsInWindowsFollowTheIntegral) {
  for (const char* profile : {"0:0,50:4,100:1", "sine:40:1.5:2", "step:0:1,30:5,70:0.5"}) {
    const mc::Scenario s = one_attempt_each(profile, 100.0);
    const LoadProfile& p = s.traffic.load_profile;
    constexpr int runs = 200, windows = 5;
    std::vector<double> count(windows, 0.0);
    for (int r = 0; r < runs; ++r) {
      mc::testing::TraceObserver seen;
      mc::testing::run_engine(s, 42, static_cast<std::uint64_t>(r), mc::detail::EngineOptions{}, seen);
      for (const double t : steady_arrivals(seen)) {
        ASSERT_TRUE(t >= 0.0 && t < 100.0) << t;
        count[static_cast<std::size_t>(t / 20.0)] += 1.0;
      }
    }
    for (int w = 0; w < windows; ++w) {
      const double expected = runs * p.integral(20.0 * w, 20.0 * (w + 1));
      const double z = (count[w] - expected) / std::sqrt(expected);
      EXPECT_LT(std::abs(z), 4.5) << profile << " window " << w << ": " << count[w] << " vs " << expected;
    }
  }
}

// A constant profile keeps every candidate without a draw: under the key of the plain rate (the
// canonical strings differ, so the test forces it) its run is the plain rate's, bit for bit, on
// the full build both take.
TEST(LoadProfileEngine, ConstantProfileIsThePlainRateBitForBit) {
  mc::Scenario plain;
  plain.model = Model::free;
  plain.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  plain.traffic.clients = 0;  // a burst would stop the run once drained
  plain.traffic.rate = 0.75;
  plain.measurement.horizon = 300.0;
  mc::check_scenario(plain);
  for (const char* constant : {"0:0.75", "0:0.75,120:0.75"}) {
    mc::Scenario profiled = plain;
    profiled.traffic.rate = 0.0;
    profiled.traffic.load_profile = LoadProfile::parse(constant);
    mc::check_scenario(profiled);
    for (std::uint64_t run = 0; run < 3; ++run) {
      mc::detail::EngineOptions o;
      o.scenario_hash = mc::stable_hash(plain);
      o.full_tier = true;
      o.lean = false;
      mc::testing::TraceObserver ta, tb;
      const mc::RunResult x = mc::testing::run_engine(plain, 7, run, o, ta);
      const mc::RunResult y = mc::testing::run_engine(profiled, 7, run, o, tb);
      const std::vector<double> a = steady_arrivals(ta), b = steady_arrivals(tb);
      ASSERT_GT(a.size(), 100u);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(same_bits(a[i], b[i])) << i;
      EXPECT_EQ(x.attempts, y.attempts);
      EXPECT_EQ(x.successes, y.successes);
      EXPECT_TRUE(same_bits(x.stop_time, y.stop_time));
      EXPECT_TRUE(same_bits(x.work_done, y.work_done));
      EXPECT_TRUE(same_bits(x.mean_time_waiting, y.mean_time_waiting));
    }
  }
}

// A profile at half the maximum thins about half the candidates: the arrivals are fewer than the
// constant profile's at the maximum under the same key, and a subset of its times.
TEST(LoadProfileEngine, ThinningKeepsASubsetOfTheCandidates) {
  mc::Scenario full = one_attempt_each("0:2", 200.0);
  mc::Scenario half = one_attempt_each("0:2,100:2,100.5:1", 200.0);
  mc::detail::EngineOptions o;
  o.scenario_hash = mc::stable_hash(full);
  mc::testing::TraceObserver ta, tb;
  mc::testing::run_engine(full, 3, 0, o, ta);
  mc::testing::run_engine(half, 3, 0, o, tb);
  const std::vector<double> a = steady_arrivals(ta), b = steady_arrivals(tb);
  ASSERT_LT(b.size(), a.size());
  std::size_t i = 0;
  for (const double t : b) {
    while (i < a.size() && !same_bits(a[i], t)) ++i;
    ASSERT_LT(i, a.size()) << "a kept arrival that was not a candidate: " << t;
  }
}
