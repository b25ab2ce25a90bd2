// `retrylab simulate` from the outside: golden outputs (OpenMC-style regression files)
// compared byte for byte with 1 and 2 threads, and bad input -> exit 2 with one line naming the flag.
// Update mode: RETRYLAB_UPDATE_GOLDEN=1 rewrites tests/montecarlo/golden/*.{json,csv,txt} from the
// 1-thread run (then review the diff and commit it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/cli.hpp"
#include "tests/support/golden.hpp"

namespace {

using Output = retrylab::test::Child;

using retrylab::test::run_cli;

struct Golden {
  const char* name;  // file under golden/
  const char* args;
};

// Small scenarios across models, strategies and traffic (each well under a second).
const Golden goldens[] = {
    {"collision_full_burst.json", "--model collision --strategy full --clients 20 --runs 6 --json"},
    {"collision_none_lockstep.json", "--model collision --strategy none --clients 3 --horizon 1000 --runs 2 --json"},
    {"collision_window_collapse.json",
     "--model collision --strategy window --window 3 --rate 1.5 --horizon 1000 --collapse 50 --runs 4 --json"},
    {"free_equal_steady.json", "--model free --strategy equal --rate 0.3 --horizon 500 --warmup 50 --runs 6 --json"},
    {"free_nojitter_capnone.json", "--model free --strategy nojitter --cap none --clients 8 --runs 3 --json"},
    {"shared_decorrelated_burst_on_steady.json",
     "--model shared --strategy decorrelated --clients 10 --rate 0.1 --horizon 2000 --runs 6 --json"},
    {"ps_retries_off.json", "--model ps --strategy none --rate 0.5 --horizon 500 --runs 5 --retries off --json"},
    {"free_full_burst.csv", "--model free --strategy full --clients 30 --base 0.5 --cap 64 --runs 5 --format csv"},
    {"shared_equal_burst.txt", "--model shared --strategy equal --clients 12 --runs 4 --format table"},
};

TEST(Golden, SameBytesWithOneAndTwoThreads) {
  const bool update = retrylab::test::update_golden();
  for (const auto& g : goldens) {
    SCOPED_TRACE(g.name);
    const auto one = run_cli(std::string("simulate ") + g.args + " --quiet --threads 1");
    const auto two = run_cli(std::string("simulate ") + g.args + " --quiet --threads 2");
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(one.out, two.out) << "thread count changed the output";
    // stderr is not a terminal: no progress line; only the warnings and notes of a scenario that
    // asks for them (collision_window_collapse: a load above capacity, its runs collapsed).
    std::size_t at = 0;
    for (std::size_t end = one.err.find('\n'); end != std::string::npos; at = end + 1, end = one.err.find('\n', at)) {
      const std::string line = one.err.substr(at, end - at);
      EXPECT_TRUE(line.rfind("retrylab: warning: ", 0) == 0 || line.rfind("retrylab: note: ", 0) == 0) << line;
    }
    EXPECT_EQ(at, one.err.size()) << one.err;
    EXPECT_EQ(one.err.empty(), g.name != std::string("collision_window_collapse.json")) << one.err;
    const std::string path = std::string(RETRYLAB_GOLDEN_DIR) + "/" + g.name;
    if (update) {
      retrylab::test::spit(path, one.out);
      continue;
    }
    const std::string expected = retrylab::test::slurp(path);
    ASSERT_FALSE(expected.empty()) << "missing " << path << " (RETRYLAB_UPDATE_GOLDEN=1 writes it)";
    EXPECT_EQ(one.out, expected) << "differs from " << path
                                 << " (if the change is intended: RETRYLAB_UPDATE_GOLDEN=1, review, commit)";
  }
}

TEST(Cli, JsonHasTheContractKeys) {
  const auto o = run_cli("simulate --model free --strategy full --clients 5 --runs 3 --json --quiet");
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* key :
       {"\"retrylab\"",   "\"scenario\"",       "\"runs\": 3",    "\"metrics\"",      "\"attempts_per_client\"",
        "\"makespan\"",   "\"latency\"",        "\"goodput\"",    "\"attempt_rate\"", "\"sojourn\"",
        "\"drain_time\"", "\"drain_time_p99\"", "\"unfinished\"", "\"max_waiting\"",  "\"collapsed\"",
        "\"drained\"",    "\"ci95\"",           "\"fraction\"",   "\"cap\": 1000.0",  "\"retries\": \"on\""})
    EXPECT_NE(o.out.find(key), std::string::npos) << key;
  EXPECT_EQ(o.out.find("threads"), std::string::npos);  // threads never change the bytes, so not listed
  const auto none = run_cli("simulate --model free --strategy full --clients 5 --runs 1 --cap none --json --quiet");
  EXPECT_NE(none.out.find("\"cap\": \"none\""), std::string::npos);
  EXPECT_NE(none.out.find("\"sd\": null"), std::string::npos);  // one run: no spread
}

struct Bad {
  const char* args;
  const char* flag;  // what the one line must name
};

TEST(Cli, BadInputExitsTwoWithOneLineNamingTheFlag) {
  const Bad cases[] = {
      {"--model free --strategy full --rate -1 --horizon 10", "--rate"},
      {"--model free --strategy full --rate nan --horizon 10", "--rate"},
      {"--model free --strategy full --clients 3 --cap 0.5", "--cap"},
      {"--model free --strategy full --clients 3 --base 0", "--base"},
      {"--model free --strategy window --clients 3", "--window"},
      {"--model free --strategy full --clients 3 --runs 0", "--runs"},
      {"--model free --strategy full --rate 0.5", "--horizon"},
      {"--model free --strategy full --clients 3 --horizon -5", "--horizon"},
      {"--model free --strategy full --clients 3 --warmup 2e7", "--warmup"},
      {"--model free --strategy full --clients -1", "--clients"},
      {"--model free --strategy full --clients 3 --collapse 0", "--collapse"},
      {"--model free --strategy full --clients 3 --threads -1", "--threads"},
      {"--model foo --strategy full --clients 3", "--model"},
      {"--model free --strategy bar --clients 3", "--strategy"},
      {"--model free --strategy full", "--clients"},
      // The adaptive rate limiter: its value, its clock, the send-step deciders it cannot join.
      {"--model none --strategy full --clients 3 --unit ms --attempt-duration 10 --adaptive-rate maybe",
       "--adaptive-rate"},
      {"--model none --strategy full --clients 3 --adaptive-rate on", "--attempt-ms"},
      {"--model none --strategy full --clients 3 --unit ms --attempt-duration 10 --adaptive-rate on --breaker "
       "resilience4j",
       "--adaptive-rate"},
      {"--model none --strategy full --clients 3 --unit ms --attempt-duration 10 --adaptive-rate on --hedge-attempts "
       "2 --hedge-delay 5",
       "--adaptive-rate"},
  };
  for (const auto& b : cases) {
    SCOPED_TRACE(b.args);
    const auto o = run_cli(std::string("simulate ") + b.args);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.out, "");
    EXPECT_NE(o.err.find(b.flag), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
}

TEST(Cli, TableAndCsvFormats) {
  const auto t = run_cli("simulate --model ps --strategy full --rate 0.5 --horizon 200 --runs 3 --quiet");
  ASSERT_EQ(t.status, 0);
  EXPECT_NE(t.out.find("time in system (attempt-durations)"), std::string::npos);
  EXPECT_NE(t.out.find("95% interval"), std::string::npos);
  const auto c = run_cli("simulate --model ps --strategy full --rate 0.5 --horizon 200 --runs 3 --format csv");
  ASSERT_EQ(c.status, 0);
  EXPECT_EQ(c.out.rfind("metric,mean,sd,n,ci95_lo,ci95_hi,count,fraction\n", 0), 0u);
  EXPECT_NE(c.out.find("\nsojourn,"), std::string::npos);
  EXPECT_NE(c.out.find("\ncollapsed,"), std::string::npos);
}

}  // namespace
