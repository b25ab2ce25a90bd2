// The models of analytic/README.md. The Markov chain of the classic test (markov.hpp): cases small
// enough to solve by hand, the generator's rows summing to zero. The mean-field steady model and the
// stage model of a burst (steady.hpp, burst.hpp) are estimates, so these test their mathematics
// (limits that hold exactly under their own assumptions), not their accuracy against the engine
// (analytic/README.md tables that). Every bad input named.
#include <gtest/gtest.h>

#include "analytic/burst.hpp"
#include "analytic/error.hpp"
#include "analytic/markov.hpp"
#include "analytic/sleep.hpp"
#include "analytic/steady.hpp"

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <tuple>

namespace retrylab::models_test {
namespace {

MarkovBurst burst(Model model, double cap, std::int64_t n) {
  return {model, Backoff{Strategy::memoryless, 1.0, cap, 0.0}, n};
}

TEST(Markov, OneClientSucceedsAtOnce) {
  for (Model m : {Model::collision, Model::free}) {
    const MarkovSolution s = solve_markov(burst(m, 8.0, 1));
    EXPECT_DOUBLE_EQ(s.attempts_per_client, 1.0);
    EXPECT_NEAR(s.makespan, 1.0, 1e-12);  // one Exp(1) attempt
    EXPECT_EQ(s.states, 2);
  }
}

// free, N = 2: the first of two Exp(1) attempts ends after 1/2 and wins; the other is doomed, ends
// 1 later, sleeps Exp(mean w_1/2 = b/2) and succeeds alone after 1 more: makespan 2.5 + b/2 = 3,
// attempts 3/2.
TEST(Markov, FreeTwoClientsByHand) {
  const MarkovSolution s = solve_markov(burst(Model::free, 8.0, 2));
  EXPECT_NEAR(s.makespan, 3.0, 1e-12);
  EXPECT_NEAR(s.attempts_per_client, 1.5, 1e-12);
}

// collision, N = 2, cap = base = 1 (one stage, wake rate a = 2). With x = E[T] from both in flight:
//   T(one left asleep) = 1/a + 1;  T(clean + asleep) = (1 + T(one left) + a·x)/(1 + a);
//   T(both asleep) = 1/(2a) + T(clean + asleep);  T(doomed + asleep) = (1 + T(both asleep) + a·x)/(1 + a);
//   x = 1/2 + T(doomed + asleep).  With a = 2: x = 1.194444…·9 = 10.75.
// Attempts: W = expected wake-ups from both in flight, by the same first-step equations with a
// reward of 1 per wake: w(one left) = 1; w(clean+asleep) = (w(one left) + a(1 + W))/(1+a);
// w(both asleep) = 1 + w(clean+asleep); w(doomed+asleep) = (w(both asleep) + a(1 + W))/(1+a); W = w(doomed+asleep).
TEST(Markov, CollisionTwoClientsByHand) {
  const double a = 2.0;
  // Solve x = c0 + c1·x for each: T and W are affine in x, W.
  const double t1 = 1.0 / a + 1.0;
  const double tc0 = (1.0 + t1) / (1.0 + a), tc1 = a / (1.0 + a);
  const double tb0 = 1.0 / (2.0 * a) + tc0, tb1 = tc1;
  const double td0 = (1.0 + tb0) / (1.0 + a), td1 = (tb1 + a) / (1.0 + a);
  const double x = (0.5 + td0) / (1.0 - td1);
  EXPECT_NEAR(x, 10.75, 1e-12);
  const double wc0 = (1.0 + a) / (1.0 + a), wc1 = a / (1.0 + a);
  const double wb0 = 1.0 + wc0, wb1 = wc1;
  const double wd0 = (wb0 + a) / (1.0 + a), wd1 = (wb1 + a) / (1.0 + a);
  const double W = wd0 / (1.0 - wd1);
  const MarkovSolution s = solve_markov(burst(Model::collision, 1.0, 2));
  EXPECT_EQ(s.stages, 1);
  EXPECT_NEAR(s.makespan, x, 1e-12);
  EXPECT_NEAR(s.attempts_per_client, (2.0 + W) / 2.0, 1e-12);
}

TEST(Markov, GeneratorRowsSumToZeroAndSolvesAreTight) {
  for (Model m : {Model::collision, Model::free})
    for (std::int64_t n : {3, 5, 8}) {
      const MarkovSolution s = solve_markov(burst(m, 4.0, n));
      EXPECT_LE(s.row_sum_error, 1e-12) << to_string(m) << " N=" << n;
      EXPECT_LE(s.residual, 1e-9) << to_string(m) << " N=" << n;
      EXPECT_GT(s.attempts_per_client, 1.0);
      EXPECT_GT(s.makespan, 1.0);
    }
}

// More contention, more attempts: attempts per client grow with N on both models.
TEST(Markov, AttemptsGrowWithClients) {
  for (Model m : {Model::collision, Model::free}) {
    double prev = 0.0;
    for (std::int64_t n = 1; n <= 6; ++n) {
      const double a = solve_markov(burst(m, 8.0, n)).attempts_per_client;
      EXPECT_GT(a, prev) << to_string(m) << " N=" << n;
      prev = a;
    }
  }
}

void expect_thrown(const std::string& field, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no InputError for " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

void expect_field(const std::string& field, const MarkovBurst& m) {
  expect_thrown(field, [&] { solve_markov(m); });
}

TEST(Markov, BadInputNamesItsField) {
  expect_field("model", {Model::shared, Backoff{Strategy::memoryless, 1, 8, 0}, 2});
  expect_field("strategy", {Model::free, Backoff{Strategy::full, 1, 8, 0}, 2});
  expect_field("cap", {Model::free, Backoff{Strategy::memoryless, 1, unbounded_cap, 0}, 2});
  expect_field("clients", {Model::free, Backoff{Strategy::memoryless, 1, 8, 0}, 0});
  expect_field("clients", {Model::free, Backoff{Strategy::memoryless, 1, 8, 0}, 9});
  expect_field("cap", {Model::collision, Backoff{Strategy::memoryless, 1, 64, 0}, 8});  // too many states
  expect_field("base", {Model::free, Backoff{Strategy::memoryless, 0, 8, 0}, 2});
}

}  // namespace
}  // namespace retrylab::models_test

namespace retrylab::models_test {
namespace {

// The memoryless strategy's law: Exp(mean w_k/2), w_k = min(c, b·2^(k−1)).
TEST(MemorylessSleep, ExponentialWithFullJittersMean) {
  const Backoff b{Strategy::memoryless, 1.0, 1000.0, 0.0};
  const SleepDistribution d3(b, 3);  // w_3 = 4: mean 2
  EXPECT_DOUBLE_EQ(d3.mean(), 2.0);
  EXPECT_NEAR(d3.cdf(2.0), 1.0 - std::exp(-1.0), 1e-15);
  EXPECT_NEAR(d3.quantile(0.5), 2.0 * std::log(2.0), 1e-15);
  EXPECT_EQ(d3.cdf(-1.0), 0.0);
  EXPECT_TRUE(std::isinf(d3.upper()));
  EXPECT_DOUBLE_EQ(SleepDistribution(b, 30).mean(), 500.0);  // at the cap
  EXPECT_EQ(parse_strategy("memoryless"), Strategy::memoryless);
  EXPECT_EQ(to_string(Strategy::memoryless), "memoryless");
}

const Backoff full_1000{Strategy::full, 1.0, 1000.0, 0.0};

// collision: S(n) = G·e^(−2G) with G(n) continuous from 0 to +inf, so its maximum is ALOHA's 1/(2e).
TEST(MeanField, CollisionFoldIsAlohasPeak) {
  const MeanField f({Model::collision, full_1000});
  const auto fold = f.fold_load(1e6);
  ASSERT_TRUE(fold.has_value());
  EXPECT_NEAR(*fold, 1.0 / (2.0 * std::numbers::e), 1e-9);
}

// free: S(n) = G/(1+G) rises to 1: no fold, one stable fixed point for every λ < 1.
TEST(MeanField, FreeHasOneStablePoint) {
  const MeanField f({Model::free, full_1000});
  EXPECT_FALSE(f.fold_load(1e6).has_value());
  const auto pts = f.fixed_points(0.5, 1e6);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_TRUE(pts[0].stable);
  EXPECT_NEAR(f.success_rate(pts[0].backlog), 0.5, 1e-9);
}

// Below the fold, collision has a stable low point and an unstable one above it.
TEST(MeanField, CollisionBistableBelowFold) {
  const MeanField f({Model::collision, full_1000});
  const auto pts = f.fixed_points(0.1, 1e6);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_TRUE(pts[0].stable);
  EXPECT_FALSE(pts[1].stable);
  EXPECT_LT(pts[0].backlog, pts[1].backlog);
  // The self-consistency p = 1 − e^(−2G) holds at the point.
  const double n = pts[1].backlog;
  EXPECT_NEAR(f.failure_probability(n), 1.0 - std::exp(-2.0 * f.attempt_rate(n)), 1e-9);
}

// No backoff on free: every waiting client always has an attempt in flight, G = n, S = n/(1+n).
TEST(MeanField, FreeWithoutBackoff) {
  const MeanField f({Model::free, Backoff{Strategy::none, 1.0, 1000.0, 0.0}});
  for (double n : {0.5, 3.0, 40.0}) EXPECT_NEAR(f.success_rate(n), n / (1.0 + n), 1e-9) << n;
}

// The hypothesis of proofs/Steady.v: the stage means m_k are nondecreasing (d_k = m_k − m_(k−1) >= 0)
// for every strategy, at a small cap and at paper 1's.
TEST(MeanField, StageMeansNondecreasing) {
  for (Strategy s : all_strategies)
    for (double cap : {8.0, 1000.0}) {
      const auto m = stage_means(Backoff{s, 1.0, cap, s == Strategy::window ? 1000.0 : 0.0});
      ASSERT_FALSE(m.empty());
      EXPECT_GE(m[0], 0.0);
      for (std::size_t k = 1; k < m.size(); ++k)
        EXPECT_GE(m[k], m[k - 1]) << to_string(s) << " cap " << cap << " stage " << k + 1;
    }
}

// The counts proofs/Steady.v proves, found by the code's grid scan for every strategy: two fixed
// points (stable, then unstable) below the peak on collision (1/(2e)) and shared (1/4), one (stable)
// on free below 1, none above the peak.
TEST(MeanField, FixedPointCountsAreTheTheorems) {
  for (Strategy s : all_strategies) {
    const Backoff b{s, 1.0, 1000.0, s == Strategy::window ? 1000.0 : 0.0};
    for (auto [model, below, above] : {std::tuple{Model::collision, 0.1, 0.19}, std::tuple{Model::shared, 0.1, 0.26}}) {
      const MeanField f({model, b});
      const auto pts = f.fixed_points(below, 1e6);
      ASSERT_EQ(pts.size(), 2u) << to_string(model) << " " << to_string(s);
      EXPECT_TRUE(pts[0].stable);
      EXPECT_FALSE(pts[1].stable);
      EXPECT_TRUE(f.fixed_points(above, 1e6).empty()) << to_string(model) << " " << to_string(s);
    }
    const MeanField f({Model::free, b});
    const auto pts = f.fixed_points(0.5, 1e6);
    ASSERT_EQ(pts.size(), 1u) << to_string(s);
    EXPECT_TRUE(pts[0].stable);
  }
}

// The birth–death passage time: a pure birth chain takes K/λ; the symmetric walk (up 1, down 1,
// reflected at 0) takes K(K+1)/2 to reach K; past `stop` it is +inf.
TEST(MeanField, PassageTimeByHand) {
  EXPECT_NEAR(mean_passage_time(std::vector<double>(99, 0.0), 0.5, 1e9), 100.0 / 0.5, 1e-9);
  EXPECT_NEAR(mean_passage_time(std::vector<double>(9, 1.0), 1.0, 1e9), 10.0 * 11.0 / 2.0, 1e-9);
  EXPECT_TRUE(std::isinf(mean_passage_time(std::vector<double>(9, 1.0), 1.0, 54.0)));
  expect_thrown("rate", [] { mean_passage_time({}, 0.0, 1.0); });
}

// proofs/Steady.v: passage_time_monotone: the passage collapse load cannot fall as K rises.
TEST(MeanField, PassageCollapseLoadRisesWithK) {
  for (Model model : {Model::collision, Model::free, Model::shared}) {
    const MeanField f({model, full_1000});
    double last = 0.0;
    for (double k : {100.0, 300.0, 1000.0, 3000.0}) {
      const double p = collapse_loads(f, k, 20000.0).passage;
      EXPECT_GE(p, last) << to_string(model) << " K " << k;
      last = p;
    }
  }
}

// Clients are conserved: burst successes + burst clients left = B.
TEST(BurstModel, ConservesClients) {
  for (Strategy s : {Strategy::full, Strategy::memoryless}) {
    const BurstPrediction p =
        predict_burst({Model::collision, Backoff{s, 1.0, 1000.0, 0.0}, 300, 0.05, 60000.0, 3000.0});
    EXPECT_TRUE(p.drained);
    EXPECT_NEAR(p.burst_left + p.burst_successes, 300.0, 1e-6);
    EXPECT_LT(p.drain_time_p99, p.drain_time);
  }
}

TEST(BurstModel, CapThresholdIsTheBaseWhenTheBaseAlreadyDrains) {
  // On `free` a burst of 100 at load 0.06 drains even with every sleep at most the base: the search
  // returns the base and never probes a cap below it (it once did, and the check threw).
  const BurstModel m{Model::free, Backoff{Strategy::full, 1.0, 1000.0, 0.0}, 100, 0.06, 20000.0, 3000.0};
  BurstModel at_base = m;
  at_base.backoff.cap = 1.0;
  ASSERT_TRUE(predict_burst(at_base).drained);
  const auto cap = burst_cap_threshold(m);
  ASSERT_TRUE(cap.has_value());
  EXPECT_EQ(*cap, 1.0);
}

// A cap far too small for the burst keeps the attempt rate above ALOHA's upper root: no drain.
TEST(BurstModel, TinyCapDoesNotDrain) {
  const BurstPrediction p =
      predict_burst({Model::collision, Backoff{Strategy::full, 1.0, 8.0, 0.0}, 300, 0.05, 20000.0, 3000.0});
  EXPECT_FALSE(p.drained);
  EXPECT_TRUE(std::isnan(p.drain_time));
}

TEST(Estimates, BadInputNamesItsField) {
  expect_thrown("model", [] { MeanField({Model::ps, full_1000}); });
  expect_thrown("cap", [] { MeanField({Model::free, Backoff{Strategy::full, 1.0, unbounded_cap, 0.0}}); });
  expect_thrown("clients", [] { predict_burst({Model::collision, full_1000, 1, 0.05, 100.0, 3000.0}); });
  expect_thrown("rate", [] { predict_burst({Model::collision, full_1000, 10, 1.5, 100.0, 3000.0}); });
  expect_thrown("horizon", [] { predict_burst({Model::collision, full_1000, 10, 0.05, 0.0, 3000.0}); });
  expect_thrown("collapse", [] { predict_burst({Model::collision, full_1000, 10, 0.05, 100.0, 0.0}); });
}

}  // namespace
}  // namespace retrylab::models_test
