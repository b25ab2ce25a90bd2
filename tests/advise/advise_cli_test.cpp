// `retrylab advise` as a child process: exit status and one-line errors naming the flag (docs/cli.md),
// the JSON document's keys and units, the table's lines, and the unit conversion (the same answer in
// ms as in attempt-durations, times x D).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/support/cli.hpp"

namespace {

using retrylab::test::run_child;

std::vector<std::string> args(std::vector<std::string> rest) {
  rest.insert(rest.begin(), "advise");
  return rest;
}

void expect_error(const std::vector<std::string>& a, const std::string& line) {
  const auto c = run_child(args(a));
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "retrylab: " + line + "\n");
  EXPECT_EQ(c.out, "");
}

TEST(AdviseCli, BadInputIsOneLineNamingTheFlag) {
  expect_error({"--clients", "1", "--failed-attempts", "collide"}, "--clients must be in [2, 100000] (got 1)");
  expect_error({"--clients", "30", "--failed-attempts", "bogus"},
               "--failed-attempts must be free, use-capacity or collide (got bogus)");
  expect_error({"--clients", "30"}, "--failed-attempts is required: free, use-capacity or collide");
  expect_error({"--clients", "50:20", "--failed-attempts", "free"},
               "--clients range LOW:HIGH must have 2 <= LOW <= HIGH (got 50:20)");
  expect_error({"--failed-attempts", "free"}, "--clients is required: the number of clients that pile up at once");
  expect_error({"--clients", "30", "--failed-attempts", "free", "--unit", "ms"},
               "--attempt-duration is required with --unit ms: the mean time of one attempt in ms");
  expect_error({"--clients", "30", "--failed-attempts", "free", "--probability", "1"},
               "--probability must be in [0.5, 0.999] (got 1)");
  expect_error(
      {"--clients", "30", "--failed-attempts", "free", "--strategies", "full,window"},
      "--strategy must be one of nojitter, full, equal, decorrelated, memoryless (got window: it has no cap to tune)");
}

TEST(AdviseCli, JsonInTheUsersUnit) {
  const auto ms = run_child(args({"--clients", "40", "--failed-attempts", "collide", "--strategies", "full,equal",
                                  "--unit", "ms", "--attempt-duration", "20", "--drain-within", "100000", "--json"}));
  ASSERT_EQ(ms.status, 0) << ms.err;
  const auto plain = run_child(args({"--clients", "40", "--failed-attempts", "collide", "--strategies", "full,equal",
                                     "--drain-within", "5000", "--json"}));
  ASSERT_EQ(plain.status, 0) << plain.err;
  const auto j = nlohmann::json::parse(ms.out), p = nlohmann::json::parse(plain.out);
  EXPECT_EQ(j["unit"], "ms");
  EXPECT_EQ(j["attempt_duration"], 20.0);
  EXPECT_EQ(p["unit"], "attempt-duration");
  EXPECT_EQ(j["request"]["base"], 20.0);
  EXPECT_EQ(j["request"]["drain_within"], 1e5);
  EXPECT_EQ(p["request"]["drain_within"], 5000.0);
  ASSERT_TRUE(j["recommended"].is_object());
  for (const char* key : {"strategy", "base", "cap", "search_cap", "confirmed", "drained", "drain_time",
                          "drain_time_p99", "attempts_per_client", "sustainable_rate", "profile", "runs_simulated"})
    EXPECT_TRUE(j["recommended"].contains(key)) << key;
  EXPECT_EQ(j["recommended"]["confirmed"], true);
  // The same search in both units: caps and times x 20, counts equal.
  EXPECT_EQ(j["recommended"]["strategy"], p["recommended"]["strategy"]);
  EXPECT_DOUBLE_EQ(j["recommended"]["cap"].get<double>(), 20 * p["recommended"]["cap"].get<double>());
  EXPECT_DOUBLE_EQ(j["recommended"]["drain_time"]["mean"].get<double>(),
                   20 * p["recommended"]["drain_time"]["mean"].get<double>());
  EXPECT_EQ(j["recommended"]["attempts_per_client"], p["recommended"]["attempts_per_client"]);
  EXPECT_EQ(j["recommended"]["drained"]["count"], j["recommended"]["drained"]["n"]);
  EXPECT_EQ(j["candidates"].size(), 2u);
  // The cap is on the grid base·2^(i/8).
  const double i = 8 * std::log2(p["recommended"]["cap"].get<double>());
  EXPECT_NEAR(i, std::round(i), 1e-9);
}

TEST(AdviseCli, ARangeIsAdvisedForItsTopAndConfirmedAtItsBottom) {
  const auto range = run_child(args({"--clients", "10:40", "--failed-attempts", "collide", "--strategies", "full",
                                     "--drain-within", "5000", "--json"}));
  ASSERT_EQ(range.status, 0) << range.err;
  const auto top = run_child(args(
      {"--clients", "40", "--failed-attempts", "collide", "--strategies", "full", "--drain-within", "5000", "--json"}));
  ASSERT_EQ(top.status, 0) << top.err;
  const auto j = nlohmann::json::parse(range.out), t = nlohmann::json::parse(top.out);
  EXPECT_EQ(j["request"]["clients_low"], 10);
  EXPECT_EQ(j["recommended"]["cap"], t["recommended"]["cap"]);  // the same search: for the top of the range
  ASSERT_TRUE(j["recommended"].contains("low_end"));
  EXPECT_EQ(j["recommended"]["low_end"]["clients"], 10);
  EXPECT_EQ(j["recommended"]["low_end"]["drained"]["n"], j["recommended"]["drained"]["n"]);
  EXPECT_LT(j["recommended"]["low_end"]["drain_time"]["mean"].get<double>(),
            j["recommended"]["drain_time"]["mean"].get<double>());
  EXPECT_FALSE(t["recommended"].contains("low_end"));
}

TEST(AdviseCli, TableNamesTheRecommendationAndEveryCandidate) {
  const auto c = run_child(args({"--clients", "40", "--failed-attempts", "use-capacity", "--strategies",
                                 "full,nojitter", "--unit", "s", "--attempt-duration", "0.5"}));
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nrecommended: full jitter, base 0\\.5 s, cap [0-9.e+]+ s\n")))
      << c.out;
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\n  drained within 3e\\+04 s: [0-9]+ of [0-9]+ independent runs")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nfull +[0-9.e+]+ +[0-9]+/[0-9]+ ")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nnojitter +[0-9.e+]+ +[0-9]+/[0-9]+ ")));
  EXPECT_NE(c.out.find("warning: failed attempts use the server's capacity"), std::string::npos);
}

}  // namespace
