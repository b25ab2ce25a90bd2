// `retrylab simulate` with the server-side flags from the outside: the hand-worked limit
// case of server_test.cpp (ServerExact.LimitRejectsThenBackoffRetries) through the CLI, the same
// bytes with 1 and 2 threads, the server block only when a server option is given, and bad input ->
// exit 2 with one line naming the flag as spelled on the command line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/cli.hpp"
#include "tests/support/golden.hpp"

namespace {

using Output = retrylab::test::Child;

// `retrylab simulate <args>` (args are fixed test strings).
Output run_cli(const std::string& args) { return retrylab::test::run_cli("simulate " + args); }

TEST(ServerCli, LimitCaseThroughTheCommandLine) {
  // 3 clients, limit 1, nojitter: 6 attempts, 3 rejected, makespan 4 (worked out in server_test.cpp).
  const Output o = run_cli("--model collision --strategy nojitter --clients 3 --limit 1 --runs 1 --quiet --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["scenario"]["limit"], 1);
  EXPECT_EQ(j["metrics"]["rejected"]["mean"], 3.0);
  EXPECT_EQ(j["metrics"]["reject_fraction"]["mean"], 0.5);
  EXPECT_EQ(j["metrics"]["makespan"]["mean"], 4.0);
}

TEST(ServerCli, NoServerFieldsWithoutServerOptions) {
  const Output o = run_cli("--model free --strategy full --clients 5 --runs 2 --quiet --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_FALSE(j["scenario"].contains("rows"));
  EXPECT_FALSE(j["scenario"].contains("limit"));
  EXPECT_FALSE(j["metrics"].contains("rejected"));
  const Output forced = run_cli("--model free --strategy full --clients 5 --runs 2 --quiet --json --server-engine");
  ASSERT_EQ(forced.status, 0) << forced.err;
  const auto f = nlohmann::json::parse(forced.out);
  EXPECT_EQ(f["metrics"]["attempts_per_client"], j["metrics"]["attempts_per_client"]);
  EXPECT_TRUE(f["metrics"].contains("latency_p99"));
}

TEST(ServerCli, SameBytesWithOneAndTwoThreads) {
  const std::string args =
      "--model shared --strategy full --rate 0.5 --horizon 300 --clients 20 --rows 3 --service lognormal "
      "--service-cv 1.5 --delay 0.1 --delay-dist exponential --aimd on --aimd-min 1 --aimd-initial 4 --reject-cost 0.1 "
      "--retry-after 2 --retry-after-rule uniform --ignore-retry-after 0.2 --mix 0.3 --mix-strategy none "
      "--runs 4 --quiet --format ";
  for (const char* format : {"json", "csv", "table"}) {
    const Output one = run_cli(args + format + " --threads 1");
    const Output two = run_cli(args + format + " --threads 2");
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out, two.out) << format;
  }
}

TEST(ServerCli, BadInputNamesTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"--rows 0", "retrylab: --rows must be an integer in [1, 1000000] (got 0)\n"},
      {"--limit 1 --reject-cost 2", "retrylab: --reject-cost must be in [0, 1] (got 2)\n"},
      {"--service lognormal", "retrylab: --service-cv must be in (0, 100] for lognormal service (got 0)\n"},
      {"--service gamma",
       "retrylab: --service must be deterministic, exponential, lognormal or round-trip (got gamma)\n"},
      {"--overflow queue", "retrylab: --overflow queue needs a concurrency limit (limit > 0 or aimd)\n"},
      {"--aimd on --aimd-timeout -1", "retrylab: --aimd-timeout must be a number > 0 or \"none\" (got -1)\n"},
      {"--mix 0.5 --mix-base 0", "retrylab: --mix-base must be a finite number > 0 (got 0)\n"},
      {"--mix 0.5 --mix-cap 0", "retrylab: --mix-cap must be a number > 0 or \"none\" (got 0)\n"},
  };
  for (const auto& [flags, message] : cases) {
    const Output o = run_cli(std::string("--model free --strategy full --clients 5 --runs 1 --quiet ") + flags);
    EXPECT_EQ(o.status, 2) << flags;
    EXPECT_EQ(o.err, message) << flags;
  }
  const std::pair<const char*, const char*> more[] = {
      {"--base 0x10", "retrylab: --base must be a finite number > 0 (got 0x10)\n"},
      {"--multiplier 0.5", "retrylab: --multiplier must be in [1, 100] (got 0.5)\n"},
      {"--unit ms", "retrylab: --attempt-duration is required with --unit ms: the mean time of one attempt in ms\n"},
      {"--unit hours --attempt-duration 1", "retrylab: --unit must be attempt, ms or s (got hours)\n"},
  };
  for (const auto& [flags, message] : more) {
    const Output o = run_cli(std::string("--model free --strategy full --clients 5 --runs 1 --quiet ") + flags);
    EXPECT_EQ(o.status, 2) << flags;
    EXPECT_EQ(o.err, message) << flags;
  }
  const Output ns = run_cli("--model free --clients 5 --runs 1 --quiet");
  EXPECT_EQ(ns.status, 2);
  EXPECT_EQ(ns.err.rfind("retrylab: --strategy is required with retries on", 0), 0u) << ns.err;
  const Output b = run_cli("--model brooker --strategy full --rows 2 --runs 1 --quiet");
  EXPECT_EQ(b.status, 2);
  EXPECT_EQ(b.err.rfind("retrylab: --rows does not apply to --model brooker", 0), 0u) << b.err;
}

TEST(ServerCli, RetriesOffNeedsNoStrategy) {
  const Output o = run_cli("--model ps --retries off --rate 0.5 --horizon 200 --runs 2 --quiet --json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["scenario"]["retries"], "off");
}

// A scenario stated in milliseconds (attempt = 20 ms) is the same scenario as in attempt-durations:
// same canonical string and random numbers; times printed x20, rates /20.
TEST(ServerCli, MillisecondsAreTheSameScenarioScaled) {
  const Output a = run_cli(
      "--model shared --strategy full --base 1 --cap 50 --rate 0.2 --horizon 400 --warmup 40 "
      "--timeout 10 --max-attempts 4 --limit 2 --runs 3 --quiet --json");
  const Output m = run_cli(
      "--unit ms --attempt-duration 20 --model shared --strategy full --base 20 --cap 1000 "
      "--rate 0.01 --horizon 8000 --warmup 800 --timeout 200 --max-attempts 4 "
      "--limit 2 --runs 3 --quiet --json");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(m.status, 0) << m.err;
  const auto ja = nlohmann::json::parse(a.out), jm = nlohmann::json::parse(m.out);
  EXPECT_EQ(jm["unit"], "ms");
  EXPECT_EQ(jm["attempt_duration"], 20.0);
  EXPECT_EQ(jm["scenario"]["cap"], 1000.0);
  EXPECT_EQ(jm["scenario"]["timeout"], 200.0);
  EXPECT_EQ(jm["scenario"]["rate"], 0.01);
  EXPECT_EQ(jm["metrics"]["attempts_per_client"], ja["metrics"]["attempts_per_client"]);
  EXPECT_EQ(jm["metrics"]["lost_fraction"], ja["metrics"]["lost_fraction"]);
  EXPECT_DOUBLE_EQ(jm["metrics"]["latency"]["mean"].get<double>(), 20 * ja["metrics"]["latency"]["mean"].get<double>());
  EXPECT_DOUBLE_EQ(jm["metrics"]["goodput"]["mean"].get<double>(), ja["metrics"]["goodput"]["mean"].get<double>() / 20);
  const Output t =
      run_cli("--unit ms --attempt-duration 20 --model free --strategy full --base 20 --clients 10 --runs 2 --quiet");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("makespan (ms)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("unit: ms (times in ms, rates per ms; one attempt-duration = 20 ms)"), std::string::npos)
      << t.out;
  // The scenario line reads in ms too: the base and cap given, the default burst horizon scaled.
  EXPECT_NE(t.out.find("model=free strategy=full base=20 cap=20000 window=0 clients=10 rate=0 horizon=200000000"),
            std::string::npos)
      << t.out;
}

TEST(ServerCli, ListFieldsPrintsTheTable) {
  const Output o = run_cli("--list-fields json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.is_array());
  bool multiplier = false;
  for (const auto& f : j) multiplier |= f["name"] == "multiplier" && f["default"] == "2" && f["flag"] == "--multiplier";
  EXPECT_TRUE(multiplier);
  const Output t = run_cli("--list-fields");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("reject_cost"), std::string::npos);
}

}  // namespace
