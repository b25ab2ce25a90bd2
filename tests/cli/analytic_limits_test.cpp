// The refusals of `analytic markov`, `steady` and `burst` (api/analytic.hpp, docs/cli.md): work a
// command could not finish is refused with exit status 2 and one line naming the flag and the
// largest value that would run, and that value runs. No test here is timed: each refused value is
// one whose work, once begun, would run for days, allocate terabytes or end on the library's own
// later error after seconds and gigabytes, so the line itself shows that the check came first.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "analytic/steady.hpp"
#include "api/analytic.hpp"
#include "tests/support/cli.hpp"

namespace analytic_limits_test {

namespace {

using Outcome = retrylab::test::Child;

Outcome run(const std::string& args) { return retrylab::test::run_cli("analytic " + args); }

// Exit 2, nothing on stdout, one line on stderr that starts with `line`.
void expect_refused(const std::string& args, const std::string& line) {
  const Outcome o = run(args);
  EXPECT_EQ(o.status, 2) << args << ": " << o.err;
  EXPECT_EQ(o.out, "") << args;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
  EXPECT_EQ(o.err.rfind("retrylab: " + line, 0), 0u) << args << ": " << o.err;
}

nlohmann::json run_json(const std::string& args) {
  const Outcome o = run(args + " --json");
  EXPECT_EQ(o.status, 0) << args << ": " << o.err;
  return o.status == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}

// 8 clients on collision at 40 stages: the library would explore 400,000 states (about half a GB)
// before its own refusal ("has over 400000 states"). 6 clients: the table's largest cap runs, with
// the stages and states the table states, and the next cap up is refused.
TEST(AnalyticLimits, MarkovRefusesAChainTooLargeForItsClients) {
  const auto& l8 = retrylab::api::markov_collision_limits[8];
  expect_refused(
      "markov --model collision --clients 8 --cap 549755813888",
      fmt::format("--cap must be <= {} for analytic markov on collision with 8 clients", std::exp2(l8.stages - 1)));
  const auto& l6 = retrylab::api::markov_collision_limits[6];
  const double largest = std::exp2(l6.stages - 1);
  expect_refused(fmt::format("markov --model collision --clients 6 --cap {}", largest * 1.01),
                 fmt::format("--cap must be <= {} for analytic markov on collision with 6 clients", largest));
  // free stays small at any stage count: no refusal of its own.
  EXPECT_EQ(run_json("markov --model free --clients 8 --cap 549755813888").value("stages", 0), 40);
}

// The largest chain for 6 clients runs, with the stages and states the table states: about 5 s in
// the release build, minutes under the sanitizers (labelled slow: tests/cli/CMakeLists.txt).
TEST(AnalyticLimits, MarkovsLargestChainRuns) {
  const auto& l6 = retrylab::api::markov_collision_limits[6];
  const double largest = std::exp2(l6.stages - 1);
  const auto doc = run_json(fmt::format("markov --model collision --clients 6 --cap {}", largest));
  EXPECT_EQ(doc.value("stages", 0), l6.stages);
  EXPECT_EQ(doc.value("states", std::int64_t{0}), l6.states);
}

// K = 10^12 would ask for a vector of 8 TB; the largest K runs (about a second).
TEST(AnalyticLimits, SteadyRefusesACollapseThresholdTooHigh) {
  expect_refused("steady --collapse 1e12",
                 fmt::format("--collapse must be <= {:g} for analytic steady", retrylab::api::steady_max_collapse));
  EXPECT_EQ(run_json(fmt::format("steady --collapse {}", retrylab::api::steady_max_collapse)).value("kind", ""),
            "estimate");
}

// A burst that never drains nor collapses integrates to the horizon: 1e300 would never end. The
// largest horizon (10^6 first-stage mean sleeps: full jitter, cap 1: 1/2) runs; a burst of 2 alone drains
// long before it.
TEST(AnalyticLimits, BurstRefusesAHorizonOfTooManySteps) {
  const double shortest = retrylab::stage_means(retrylab::Backoff{retrylab::Strategy::full, 1.0, 1.0, 0.0}).front();
  const double largest = retrylab::api::burst_max_sleeps * shortest;
  expect_refused("burst --clients 1000000000 --cap 1 --collapse 1e300 --horizon 1e300",
                 fmt::format("--horizon must be <= {} for analytic burst", largest));
  EXPECT_EQ(run_json(fmt::format("burst --clients 2 --cap 1 --rate 0 --horizon {}", largest)).value("drained", false),
            true);
  expect_refused(fmt::format("burst --clients 2 --cap 1 --horizon {}", largest * 1.01),
                 fmt::format("--horizon must be <= {} for analytic burst", largest));
}

}  // namespace

}  // namespace analytic_limits_test
