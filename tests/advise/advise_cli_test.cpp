// `retrylab advise` as a child process: exit status and one-line errors naming the flag (docs/cli.md),
// the JSON document's keys and units, the table's lines, and the unit conversion (the same answer in
// ms as in attempt-durations, times x D).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
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
  // Not an integer: the range advise takes, not the 64-bit integer's (the hostile retest's finding).
  expect_error({"--clients", "1.5", "--failed-attempts", "collide"},
               "--clients must be an integer in [2, 100000] or a range LOW:HIGH (got \"1.5\")");
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

TEST(AdviseCli, ObjectiveAndWeightErrorsQuoteWhatWasTyped) {
  const std::vector<std::string> base = {"--clients", "30", "--failed-attempts", "collide"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  expect_error(with({"--objective", "fastest"}), "--objective must be drain-time, attempts or weighted (got fastest)");
  expect_error(with({"--objective", "attempts"}),
               "--drain-within is required with --objective attempts: the deadline within which the burst must drain");
  expect_error(with({"--objective", "weighted", "--unit", "ms", "--attempt-duration", "20"}),
               "--weight is required with --objective weighted: the ms of drain time one attempt per client is worth");
  expect_error(with({"--objective", "weighted", "--weight", "-3", "--unit", "ms", "--attempt-duration", "20"}),
               "--weight must be a number > 0, in ms of drain time per attempt (got -3)");
  expect_error(with({"--weight", "5"}), "--weight applies to --objective weighted only (got --objective drain-time)");
  expect_error(with({"--base", "100", "--drain-within", "50", "--unit", "ms", "--attempt-duration", "20"}),
               "--drain-within must be above --base (100 ms) and at most 1e7 attempt-durations (2e+08 ms) (got 50)");
  expect_error(with({"--format", "csv"}),
               "--format must be table or json (got csv)");  // not offered: advise has no CSV
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
  EXPECT_TRUE(j["request"]["base"].is_null());  // searched
  EXPECT_EQ(j["request"]["objective"], "drain-time");
  EXPECT_EQ(j["request"]["drain_within"], 1e5);
  EXPECT_EQ(p["request"]["drain_within"], 5000.0);
  EXPECT_EQ(j["search"]["cap_range"][0], 20.0);
  EXPECT_EQ(j["search"]["cap_range"][1], 1e5);  // min(10^4 attempt-durations, drain within)
  ASSERT_TRUE(j["recommended"].is_object());
  for (const char* key : {"strategy", "base", "cap", "least_cap", "confirmed", "drained", "drain_time",
                          "drain_time_p99", "attempts_per_client", "objective", "search", "margin", "curve",
                          "runner_ups", "near_base", "sustainable_rate", "runs_simulated"})
    EXPECT_TRUE(j["recommended"].contains(key)) << key;
  EXPECT_EQ(j["recommended"]["confirmed"], true);
  EXPECT_EQ(j["recommended"]["margin"]["factor"], 0.7);
  EXPECT_EQ(j["recommended"]["margin"]["lower"]["drained"]["count"], j["recommended"]["drained"]["n"]);
  // The same search in both units: caps, bases and times x 20, counts equal.
  EXPECT_EQ(j["recommended"]["strategy"], p["recommended"]["strategy"]);
  EXPECT_DOUBLE_EQ(j["recommended"]["cap"].get<double>(), 20 * p["recommended"]["cap"].get<double>());
  EXPECT_DOUBLE_EQ(j["recommended"]["base"].get<double>(), 20 * p["recommended"]["base"].get<double>());
  EXPECT_DOUBLE_EQ(j["recommended"]["drain_time"]["mean"].get<double>(),
                   20 * p["recommended"]["drain_time"]["mean"].get<double>());
  EXPECT_DOUBLE_EQ(j["recommended"]["sustainable_rate"].get<double>(),
                   p["recommended"]["sustainable_rate"].get<double>() / 20);
  EXPECT_EQ(j["recommended"]["attempts_per_client"], p["recommended"]["attempts_per_client"]);
  EXPECT_EQ(j["recommended"]["drained"]["count"], j["recommended"]["drained"]["n"]);
  EXPECT_EQ(j["candidates"].size(), 2u);
  // The curve: half-octave caps from the least base (or the ratio's least cap) up, ascending.
  const auto& curve = p["recommended"]["curve"];
  ASSERT_GT(curve.size(), 10u);
  for (std::size_t k = 1; k < curve.size(); ++k)
    EXPECT_NEAR(curve[k]["cap"].get<double>() / curve[k - 1]["cap"].get<double>(), std::sqrt(2.0), 1e-9);
  EXPECT_EQ(j["notes"].size(), p["notes"].size());
  EXPECT_EQ(j["notes"], p["notes"]);  // unit-free texts
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

TEST(AdviseCli, TableNamesTheRecommendationTheCurveAndEveryCandidate) {
  const auto c = run_child(args({"--clients", "40", "--failed-attempts", "use-capacity", "--strategies",
                                 "full,nojitter", "--unit", "s", "--attempt-duration", "0.5", "--base", "0.5"}));
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nrecommended: full jitter, base 0\\.5 s, cap [0-9.e+]+ s\n")))
      << c.out;
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\n  drained within 3e\\+04 s: 299 of 299 independent runs")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\n  margin: cap [0-9.e+]+ s drained 299 of 299, cap [0-9.e+]+ s "
                                                  "drained 299 of 299 \\(cap x 0.7 and cap / 0.7\\)\n")));
  EXPECT_TRUE(
      std::regex_search(c.out, std::regex("\n  sustainable steady load: [0-9.e+-]+ per s, [0-9.e+-]+ collapsed \\(")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\ncurve: full jitter, base 0\\.5 s; 8 runs per cap")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\n +[0-9.e+]+ +0\\.5 +32/32 .*<- recommended\n")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nrunner-ups near the optimum")));
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nfull +0\\.5 +[0-9.e+]+ +299/299 ")));
  // nojitter's lock-step takes about twice as long: set aside after its curve, with its best curve policy.
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nnojitter +0\\.5 +0\\.5 +behind +- +- +[0-9]+\n"))) << c.out;
  EXPECT_TRUE(std::regex_search(c.out, std::regex("\nnote: nojitter: set aside after its curve, neither refined nor "
                                                  "confirmed: its best curve policy is behind full's, drain-time "
                                                  "\\+[0-9.]+% \\[\\+[0-9.]+%, \\+[0-9.]+%\\] on the same 8 runs")))
      << c.out;
  EXPECT_NE(c.out.find("\nnote: margin: cap x 0.7 and cap / 0.7 drained in all 299 and 299 confirming runs too"),
            std::string::npos);
  EXPECT_NE(c.out.find("warning: failed attempts use the server's capacity"), std::string::npos);
}

// Without a recommendation the table says why in the search's own terms: nothing could drain (and
// nothing was run), or nothing in the cap range drained in the search (no confirmation was made).
TEST(AdviseCli, NoRecommendationSaysWhyAndClaimsNoRunsItDidNotMake) {
  const auto none = run_child(args({"--clients", "100000", "--failed-attempts", "collide", "--strategies", "full"}));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_NE(none.out.find("\nno recommendation: 100000 clients cannot drain within 6e+04 attempt-durations whatever "
                          "the policy (the warning below); nothing was run\n"),
            std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find(": not run (no policy can drain by the deadline: the warning below)\n"), std::string::npos)
      << none.out;
  EXPECT_EQ(none.out.find("every confirming run"), std::string::npos) << none.out;
  // 2,000 clients on collide, caps up to 100: every client retries at least every 100 attempt-durations
  // (20 attempts per attempt-duration on one channel), so none drains within 2,500.
  const auto short_range = run_child(args({"--clients", "2000", "--failed-attempts", "collide", "--strategies", "full",
                                           "--drain-within", "2500", "--base", "0.01"}));
  ASSERT_EQ(short_range.status, 0) << short_range.err;
  EXPECT_NE(short_range.out.find("\nno recommendation: no strategy's policy, caps 0.01 .. 100 attempt-durations, "
                                 "drained the burst within the objective in every search run with its margin\n"),
            std::string::npos)
      << short_range.out;
  EXPECT_NE(short_range.out.find(": not run (below a cap where a run did not drain)\n"), std::string::npos)
      << short_range.out;
  EXPECT_EQ(short_range.out.find("every confirming run"), std::string::npos) << short_range.out;
}

TEST(AdviseCli, PlotWritesTheCurveAndQuotesItsName) {
  // A file name that would run a command if it reached the gnuplot script unquoted.
  const std::string dir = ::testing::TempDir() + "advise_plot";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string name = dir + "/curve'; system('touch owned'); # `touch owned` @x \"";
  const auto c = run_child(args({"--clients", "30", "--failed-attempts", "collide", "--strategies", "full",
                                 "--drain-within", "5000", "--plot", name + ".svg", "--json"}),
                           120.0, "", dir);
  ASSERT_EQ(c.status, 0) << c.err;
  for (const char* ext : {".svg", ".png", ".gp"}) EXPECT_TRUE(std::filesystem::exists(name + ext)) << ext;
  EXPECT_FALSE(std::filesystem::exists(dir + "/owned"));
  std::ifstream gp(name + ".gp");
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  EXPECT_NE(script.find("set multiplot layout 2,1"), std::string::npos);
  EXPECT_NE(script.find("set arrow 1 from "), std::string::npos);  // the recommended cap
  const auto newline =
      run_child(args({"--clients", "30", "--failed-attempts", "collide", "--plot", dir + "/a\nsystem('touch owned')"}));
  EXPECT_EQ(newline.status, 2);
  EXPECT_EQ(newline.err, "retrylab: --plot must not hold a control character (gnuplot cannot name such a file)\n");
  const auto bad = run_child(args({"--clients", "30", "--failed-attempts", "collide", "--plot", dir + "/no/such/x"}));
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("retrylab: --plot ", 0), 0u) << bad.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
