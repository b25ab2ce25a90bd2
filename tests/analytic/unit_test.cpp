// Unit checks: every bad input throws InputError naming its field; the special points of each
// closed form (sources: the formulas in the headers, evaluated by hand where exact in binary).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"
#include "analytic/stats.hpp"

namespace retrylab::unit_test {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// Expects f() to throw InputError whose field is `field` and whose message says what was given.
void expect_input_error(const std::string& field, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no InputError for " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find("got"), std::string::npos) << e.what();
  }
}

TEST(InputErrors, NameTheirField) {
  expect_input_error("rate", [] { goodput(PureAloha{-1}); });
  expect_input_error("rate", [] { goodput(PureAloha{nan}); });
  expect_input_error("rate", [] { goodput(PureAloha{inf}); });
  expect_input_error("goodput", [] { aloha_inverse(0.19); });
  expect_input_error("goodput", [] { aloha_inverse(-1e-9); });
  expect_input_error("goodput", [] { aloha_inverse(nan); });
  expect_input_error("rate", [] { goodput(OccFree{-0.5}); });
  expect_input_error("load", [] { mean_time(ProcessorSharing{1.0}); });
  expect_input_error("load", [] { mean_time(ProcessorSharing{-0.1}); });
  expect_input_error("load", [] { mean_number(ProcessorSharing{nan}); });
  expect_input_error("service", [] { mean_time(ProcessorSharing{0.5, 0.0}); });
  expect_input_error("retry", [] { SleepDistribution(Backoff{Strategy::full, 1, 10, 0}, 0); });
  expect_input_error("cap", [] { SleepDistribution(Backoff{Strategy::full, 1, 0.5, 0}, 1); });
  expect_input_error("base", [] { SleepDistribution(Backoff{Strategy::full, nan, 10, 0}, 1); });
  expect_input_error("window", [] { SleepDistribution(Backoff{Strategy::window, 1, 10, 0}, 1); });
  expect_input_error("retry", [] { SleepDistribution(Backoff{Strategy::full, 1, inf, 0}, 2000); });
  expect_input_error("retry", [] { SleepDistribution(Backoff{Strategy::decorrelated, 1, inf, 0}, 101); });
  expect_input_error("retry", [] { SleepDistribution(Backoff{Strategy::decorrelated, 1, 1e300, 0}, 1000000); });
  expect_input_error("quantile", [] { SleepDistribution(Backoff{Strategy::full, 1, 10, 0}, 1).quantile(1.5); });
  expect_input_error("quantile", [] { SleepDistribution(Backoff{Strategy::decorrelated, 1, 10, 0}, 2).quantile(nan); });
  expect_input_error("clients", [] { classic({Model::free, Backoff{Strategy::none, 1, 10, 0}, 0}); });
  expect_input_error("model", [] { classic({Model::shared, Backoff{Strategy::none, 1, 10, 0}, 3}); });
  expect_input_error("strategy", [] { classic({Model::free, Backoff{Strategy::full, 1, 10, 0}, 3}); });
  expect_input_error("cap", [] { classic({Model::free, Backoff{Strategy::nojitter, 2, 1, 0}, 3}); });
  expect_input_error("sleep", [] { decorrelated_step_growth(0.5, 1.0); });
  expect_input_error("sleep", [] { decorrelated_step_growth(20, 1.0, 10); });
  expect_input_error("base", [] { decorrelated_step_growth(2, -1.0); });
  expect_input_error("rate", [] { fluid_cap(FluidCap{10, 0.2, Backoff{}}); });
  expect_input_error("clients", [] { fluid_cap(FluidCap{0, 0.1, Backoff{}}); });
  expect_input_error("strategy", [] { fluid_cap(FluidCap{10, 0.1, Backoff{Strategy::none, 1, inf, 0}}); });
  expect_input_error("layers", [] { expected_bottom_calls({0, 3, 0.5}); });
  expect_input_error("attempts", [] { expected_bottom_calls({2, 0, 0.5}); });
  expect_input_error("failure", [] { expected_bottom_calls({2, 3, 1.5}); });
  expect_input_error("failure", [] { expected_bottom_calls({2, 3, nan}); });
  expect_input_error("threshold", [] { max_retries(TokenBucket{10, 1, 0.1, 10}, 0); });
  expect_input_error("cost", [] { max_retries(TokenBucket{10, 0, 0.1, 0}, 0); });
  expect_input_error("successes", [] { max_retries(aws_standard(), -1); });
}

// A fraction of none (all) has a Wilson interval starting (ending) exactly at 0 (1): printed tables
// show 0, not a rounding residue such as 1e-19 (which n = 2000 gave).
TEST(Wilson, EndsExactlyAtZeroAndOne) {
  for (std::int64_t n = 1; n <= 5000; n += (n < 100 ? 1 : 97)) {
    EXPECT_EQ(retrylab::wilson_interval(0, n).lo, 0.0) << "n = " << n;
    EXPECT_EQ(retrylab::wilson_interval(n, n).hi, 1.0) << "n = " << n;
    EXPECT_GT(retrylab::wilson_interval(0, n).hi, 0.0) << "n = " << n;
    EXPECT_LT(retrylab::wilson_interval(n, n).lo, 1.0) << "n = " << n;
  }
  EXPECT_EQ(retrylab::wilson_interval(0, 2000).lo, 0.0);
}

TEST(Aloha, SpecialPoints) {
  EXPECT_EQ(aloha_argmax(), 0.5);
  EXPECT_EQ(goodput(PureAloha{0}), 0.0);
  // At the maximum both branches meet at 1/2 (Lambert W(−1/e) = −1 on both branches).
  const AlohaInverse top = aloha_inverse(aloha_max_goodput());
  EXPECT_EQ(top.low, 0.5);
  EXPECT_EQ(top.high, 0.5);
  const AlohaInverse zero = aloha_inverse(0.0);
  EXPECT_EQ(zero.low, 0.0);
  EXPECT_TRUE(std::isinf(zero.high));
}

TEST(Occ, SuccessProbabilityTimesRateIsGoodput) {
  for (double rate : {0.0, 0.5, 1.0, 7.0})
    EXPECT_DOUBLE_EQ(goodput(OccFree{rate}), rate * success_probability(OccFree{rate}));
  EXPECT_EQ(goodput(OccFree{1.0}), 0.5);
}

TEST(Sleep, PointMassesAndUniforms) {
  const SleepDistribution none(Backoff{Strategy::none, 1, 1000, 0}, 4);
  EXPECT_EQ(none.mean(), 0.0);
  EXPECT_EQ(none.cdf(0.0), 1.0);
  const SleepDistribution nojitter(Backoff{Strategy::nojitter, 1, 1000, 0}, 4);  // w_4 = 8
  EXPECT_EQ(nojitter.mean(), 8.0);
  EXPECT_EQ(nojitter.cdf(7.999), 0.0);
  EXPECT_EQ(nojitter.cdf(8.0), 1.0);
  const SleepDistribution equal(Backoff{Strategy::equal, 1, 1000, 0}, 4);  // U(4, 8)
  EXPECT_EQ(equal.cdf(6.0), 0.5);
  EXPECT_EQ(equal.quantile(0.25), 5.0);
  EXPECT_TRUE(equal.exact());
  const SleepDistribution capped(Backoff{Strategy::full, 1, 10, 0}, 30);  // w = cap = 10
  EXPECT_EQ(capped.upper(), 10.0);
}

// k = 1 is exact on the grid: s_1 = min(c, U(b, 3b)).
TEST(Decorrelated, FirstRetryIsUniformWithAtomAtCap) {
  const DecorrelatedSleep wide(Backoff{Strategy::decorrelated, 2, 1000, 0}, 1);  // U(2, 6)
  EXPECT_DOUBLE_EQ(wide.cdf(4.0), 0.5);
  EXPECT_DOUBLE_EQ(wide.mean(), 4.0);
  EXPECT_EQ(wide.atom(), 0.0);
  const DecorrelatedSleep narrow(Backoff{Strategy::decorrelated, 2, 5, 0}, 1);  // min(5, U(2, 6))
  EXPECT_DOUBLE_EQ(narrow.atom(), 0.25);
  // Exact on the grid, but summed over ~850 cells: allow 1e3·ε relative rounding.
  EXPECT_NEAR(narrow.mean(), 0.75 * 3.5 + 0.25 * 5.0, 1e3 * std::numeric_limits<double>::epsilon() * 3.875);
  EXPECT_EQ(narrow.quantile(0.9), 5.0);
  const DecorrelatedSleep pinned(Backoff{Strategy::decorrelated, 2, 2, 0}, 7);  // c = b: always b
  EXPECT_EQ(pinned.mean(), 2.0);
  EXPECT_EQ(pinned.atom(), 1.0);
}

TEST(Decorrelated, StepGrowthApproachesLn3Minus1) {
  EXPECT_NEAR(decorrelated_step_growth(1e12, 1.0), std::log(3.0) - 1.0, 1e-10);  // r·ln r ≈ 3e-11
  EXPECT_GT(decorrelated_step_growth(1.0, 1.0), decorrelated_step_growth(10.0, 1.0));
  // At the cap every draw at or above c is clamped: growth is E[ln(min(c, U(b, 3c))/c)] < 0.
  EXPECT_LT(decorrelated_step_growth(10.0, 1.0, 10.0), 0.0);
}

TEST(Classic, CollisionNeverFinishesBeyondOneClient) {
  const ClassicResult one = classic({Model::collision, Backoff{Strategy::nojitter, 1, 1000, 0}, 1});
  EXPECT_TRUE(one.finishes);
  EXPECT_EQ(*one.makespan, 1.0);
  const ClassicResult two = classic({Model::collision, Backoff{Strategy::none, 1, 1000, 0}, 2});
  EXPECT_FALSE(two.finishes);
  EXPECT_FALSE(two.makespan.has_value());
  EXPECT_FALSE(has_classic_closed_form(Model::free, Strategy::full));
  EXPECT_TRUE(has_classic_closed_form(Model::collision, Strategy::nojitter));
}

TEST(Classic, NojitterMakespanSmallCase) {
  // N = 4, b = 1, c = 3: 4 + (1 + 2 + 3) = 10.
  EXPECT_EQ(*classic({Model::free, Backoff{Strategy::nojitter, 1, 3, 0}, 4}).makespan, 10.0);
}

TEST(FluidCap, NoSteadyTrafficNeedsNoCapAndCapGrowsWithBurst) {
  const FluidCapEstimate idle = fluid_cap(FluidCap{1000, 0.0, Backoff{Strategy::full, 1, inf, 0}});
  EXPECT_TRUE(std::isinf(idle.upper_root));
  EXPECT_EQ(idle.cap, 1.0);
  double last = 0;
  for (std::int64_t clients : {1, 10, 100, 1000}) {  // fluid_cap_monotone
    const double cap = fluid_cap(FluidCap{clients, 0.1, Backoff{Strategy::decorrelated, 1, inf, 0}}).cap;
    EXPECT_GE(cap, last);
    last = cap;
  }
}

TEST(Amplification, AllFailGivesPowerAndNeverFailGivesOne) {
  EXPECT_EQ(expected_bottom_calls({4, 3, 1.0}), 81.0);  // amplification_exact: a^L at p = 1
  EXPECT_EQ(amplification_bound({4, 3, 0.3}), 81.0);
  EXPECT_EQ(expected_bottom_calls({4, 3, 0.0}), 1.0);
  EXPECT_EQ(expected_bottom_calls({1, 3, 0.5}), 1.75);  // 1 + 1/2 + 1/4
  EXPECT_EQ(top_failure_probability({2, 2, 0.5}), 0.0625);
}

TEST(Budget, Instances) {
  EXPECT_EQ(max_retries(aws_standard(), 0), 100.0);
  EXPECT_EQ(max_retries(aws_standard_timeout(), 0), 50.0);
  EXPECT_EQ(max_retries(grpc_throttling(), 0), 5.0);
  EXPECT_EQ(grpc_throttling().threshold, 5.0);
}

}  // namespace
}  // namespace retrylab::unit_test
