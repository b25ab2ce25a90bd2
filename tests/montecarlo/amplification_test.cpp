// Layered retry amplification (montecarlo/amplification.hpp): a^L exactly at total failure, the
// expected bottom calls E_L at partial failure (a stated false-failure rate), determinism, bad input.
#include <gtest/gtest.h>

#include <string>

#include "analytic/amplification.hpp"
#include "analytic/error.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/amplification.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;

TEST(Layered, TotalFailureCostsExactlyAToTheL) {
  // analytic/amplification.hpp: a^L at p = 1 (proofs/Budget.v: amplification_exact); 3^4 = 81.
  mc::LayeredScenario s{4, 3, 1.0, 0.0, 500};
  const auto r = mc::simulate_layered_run(s, 1, 0);
  EXPECT_EQ(r.bottom_calls, 81 * 500);
  EXPECT_EQ(r.bottom_calls_per_request, retrylab::amplification_bound({4, 3, 1.0}));
  EXPECT_EQ(r.top_failure_fraction, 1.0);
  s.failure = 0.0;
  EXPECT_EQ(mc::simulate_layered_run(s, 1, 0).bottom_calls_per_request, 1.0);
  s.failure = 0.0;
  s.outage_fraction = 1.0;
  EXPECT_EQ(mc::simulate_layered_run(s, 1, 0).bottom_calls_per_request, 81.0);
}

TEST(Layered, PartialFailureMatchesTheExpectedBottomCalls) {
  // Mean over 20 runs × 2,000 requests against E_L (analytic/amplification.hpp) with a 99.9% Student-t
  // interval: false-failure probability 0.1% for a correct engine (fixed seed, so the outcome is fixed).
  mc::LayeredScenario s{3, 3, 0.5, 0.1, 2000};
  const auto results = mc::simulate_layered(s, mc::RunPlan{20, 3, 2});
  const mc::LayeredSummary sum = mc::summarize(results);
  const double expected = mc::expected_bottom_calls(s);
  ASSERT_EQ(sum.runs, 20);
  const retrylab::Interval ci =
      retrylab::student_t_interval(sum.bottom_calls_per_request.mean, sum.bottom_calls_per_request.sd, 20, 0.999);
  EXPECT_LE(ci.lo, expected);
  EXPECT_GE(ci.hi, expected);
  // Thread count never changes the result.
  const auto one = mc::simulate_layered(s, mc::RunPlan{20, 3, 1});
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].bottom_calls, results[i].bottom_calls);
}

TEST(Layered, BadInputNamesTheField) {
  auto field = [](mc::LayeredScenario s) {
    try {
      mc::check_layered(s);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field({0, 3, 1.0, 0.0, 10}), "layers");
  EXPECT_EQ(field({4, 0, 1.0, 0.0, 10}), "attempts");
  EXPECT_EQ(field({30, 3, 1.0, 0.0, 10}), "layers");  // 3^30 > 1e7
  EXPECT_EQ(field({4, 3, -0.1, 0.0, 10}), "failure");
  EXPECT_EQ(field({4, 3, 1.0, 2.0, 10}), "outage_fraction");
  EXPECT_EQ(field({4, 3, 1.0, 0.0, 0}), "requests");
}
