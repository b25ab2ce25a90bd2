// The mean-field steady model and the stage model of a burst (analytic/steady.hpp, burst.hpp):
// estimates, so these test their mathematics (limits that hold exactly under their own
// assumptions), not their accuracy against the engine (analytic/README.md tables that).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "analytic/burst.hpp"
#include "analytic/error.hpp"
#include "analytic/steady.hpp"

namespace retrylab {
namespace {

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

// Clients are conserved: burst successes + burst clients left = B.
TEST(BurstModel, ConservesClients) {
  for (Strategy s : {Strategy::full, Strategy::memoryless}) {
    const BurstPrediction p = predict_burst({Model::collision, Backoff{s, 1.0, 1000.0, 0.0}, 300, 0.05, 60000.0, 3000.0});
    EXPECT_TRUE(p.drained);
    EXPECT_NEAR(p.burst_left + p.burst_successes, 300.0, 1e-6);
    EXPECT_LT(p.drain_time_p99, p.drain_time);
  }
}

// A cap far too small for the burst keeps the attempt rate above ALOHA's upper root: no drain.
TEST(BurstModel, TinyCapDoesNotDrain) {
  const BurstPrediction p = predict_burst({Model::collision, Backoff{Strategy::full, 1.0, 8.0, 0.0}, 300, 0.05, 20000.0, 3000.0});
  EXPECT_FALSE(p.drained);
  EXPECT_TRUE(std::isnan(p.drain_time));
}

void expect_field(const std::string& field, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no InputError for " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(Estimates, BadInputNamesItsField) {
  expect_field("model", [] { MeanField({Model::ps, full_1000}); });
  expect_field("cap", [] { MeanField({Model::free, Backoff{Strategy::full, 1.0, unbounded_cap, 0.0}}); });
  expect_field("clients", [] { predict_burst({Model::collision, full_1000, 1, 0.05, 100.0, 3000.0}); });
  expect_field("rate", [] { predict_burst({Model::collision, full_1000, 10, 1.5, 100.0, 3000.0}); });
  expect_field("horizon", [] { predict_burst({Model::collision, full_1000, 10, 0.05, 0.0, 3000.0}); });
  expect_field("collapse", [] { predict_burst({Model::collision, full_1000, 10, 0.05, 100.0, 0.0}); });
}

}  // namespace
}  // namespace retrylab
