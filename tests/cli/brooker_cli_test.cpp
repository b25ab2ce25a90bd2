// `retrylab simulate --model brooker` as a user sees it (docs/cli.md style): the JSON keys and their unit,
// values identical to the library's (the CLI is a thin layer), the same bytes for any --threads,
// Brooker's defaults (base 5 ms, cap 2000 ms, 100 clients), and exit 2 with one line naming the flag
// for bad values and for engine flags that mean nothing to this test. About 1 s.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "montecarlo/brooker.hpp"
#include "tests/support/cli.hpp"

namespace mc = retrylab::montecarlo;

namespace {

using Outcome = retrylab::test::Child;

// `retrylab simulate <args>` (args are fixed test strings, no quoting needed).
Outcome run(const std::string& args) { return retrylab::test::run_cli("simulate " + args); }

nlohmann::json run_json(const std::string& args) {
  const Outcome o = run("--model brooker " + args + " --json");
  EXPECT_EQ(o.status, 0) << args << ": " << o.err;
  EXPECT_EQ(o.err, "") << args;
  return nlohmann::json::parse(o.out);
}

// Exit 2 and exactly one stderr line beginning "retrylab: <flag>".
void expect_rejected(const std::string& args, const std::string& flag) {
  const Outcome o = run(args);
  EXPECT_EQ(o.status, 2) << args;
  EXPECT_EQ(o.err.rfind("retrylab: " + flag + " ", 0), 0u) << args << " -> " << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << " -> " << o.err;
  EXPECT_EQ(o.out, "") << args;
}

void expect_summary(const nlohmann::json& s, const retrylab::MeanSummary& m) {
  EXPECT_EQ(s.at("mean").get<double>(), m.mean);
  EXPECT_EQ(s.at("n").get<std::int64_t>(), m.n);
  if (std::isfinite(m.sd)) {
    EXPECT_EQ(s.at("sd").get<double>(), m.sd);
  }
  ASSERT_EQ(s.at("ci95").size(), 2u);
}

}  // namespace

TEST(BrookerCli, JsonHasTheUnitDefaultsAndTheLibrarysValues) {
  const nlohmann::json j = run_json("--strategy decorrelated --runs 6 --seed 3");
  EXPECT_EQ(j.at("unit"), "ms");
  EXPECT_EQ(j.at("runs"), 6);
  const nlohmann::json& sc = j.at("scenario");
  EXPECT_EQ(sc.at("model"), "brooker");
  EXPECT_EQ(sc.at("strategy"), "decorrelated");
  EXPECT_EQ(sc.at("base").get<double>(), mc::brooker_default_base);
  EXPECT_EQ(sc.at("cap").get<double>(), mc::brooker_default_cap);
  EXPECT_EQ(sc.at("clients"), 100);
  EXPECT_EQ(sc.at("leg_mean").get<double>(), mc::brooker_default_leg_mean);
  EXPECT_EQ(sc.at("leg_sd").get<double>(), mc::brooker_default_leg_sd);
  EXPECT_EQ(sc.at("seed"), 3);

  mc::BrookerScenario s;
  s.backoff.strategy = retrylab::Strategy::decorrelated;
  const mc::BrookerSummary lib = mc::summarize_brooker(mc::simulate_brooker(s, mc::RunPlan{6, 3, 1}));
  const nlohmann::json& m = j.at("metrics");
  EXPECT_EQ(m.size(), 7u);
  expect_summary(m.at("attempts"), lib.attempts);
  expect_summary(m.at("reads"), lib.reads);
  expect_summary(m.at("calls"), lib.calls);
  expect_summary(m.at("attempts_per_client"), lib.attempts_per_client);
  expect_summary(m.at("max_attempts"), lib.max_attempts);
  expect_summary(m.at("makespan"), lib.makespan);
  expect_summary(m.at("latency"), lib.latency);
}

TEST(BrookerCli, FlagsReachTheScenario) {
  // Fixed legs and no sleep: lockstep, attempts N(N+1)/2 = 55 and makespan 4·m·N = 4·7·10 = 280 ms
  // (brooker_test.cpp derives both).
  const nlohmann::json j = run_json("--strategy none --clients 10 --leg-mean 7 --leg-sd 0 --base 2 --cap 300 --runs 2");
  EXPECT_EQ(j.at("scenario").at("base").get<double>(), 2.0);
  EXPECT_EQ(j.at("scenario").at("cap").get<double>(), 300.0);
  EXPECT_EQ(j.at("metrics").at("attempts").at("mean").get<double>(), 55.0);
  EXPECT_EQ(j.at("metrics").at("makespan").at("mean").get<double>(), 280.0);
}

TEST(BrookerCli, SameBytesForAnyThreadCount) {
  for (const char* format : {"--json", "--format csv", "--format table"}) {
    const std::string args = std::string("--model brooker --strategy full --clients 30 --runs 9 ") + format;
    const Outcome one = run(args + " --threads 1");
    const Outcome two = run(args + " --threads 2");
    EXPECT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out, two.out) << format;
  }
}

TEST(BrookerCli, TableAndCsvNameTheUnits) {
  const Outcome table = run("--model brooker --strategy equal --runs 3");
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("unit=ms"), std::string::npos);
  EXPECT_NE(table.out.find("time: makespan (ms)"), std::string::npos);
  EXPECT_NE(table.out.find("work: write attempts"), std::string::npos);
  EXPECT_NE(table.out.find("each leg |Normal(10, 2)| ms"), std::string::npos);
  const Outcome fixed = run("--model brooker --strategy equal --runs 3 --leg-sd 0");
  EXPECT_NE(fixed.out.find("no delay variance, each leg exactly 10 ms"), std::string::npos);
  const Outcome csv = run("--model brooker --strategy equal --runs 3 --format csv");
  EXPECT_EQ(csv.out.rfind("metric,mean,sd,n,ci95_lo,ci95_hi,unit\nattempts,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("\nmakespan,"), std::string::npos);
  EXPECT_NE(csv.out.find(",ms\n"), std::string::npos);
}

TEST(BrookerCli, EngineFlagsAreRefusedNotIgnored) {
  const std::string b = "--model brooker --strategy full ";
  expect_rejected(b + "--rate 0.5", "--rate");
  expect_rejected(b + "--horizon 100", "--horizon");
  expect_rejected(b + "--warmup 1", "--warmup");
  expect_rejected(b + "--collapse 10", "--collapse");
  expect_rejected(b + "--retries on", "--retries");
  expect_rejected(b + "--trace /dev/null", "--trace");
  // And the Brooker flags are refused by the engine's models.
  expect_rejected("--model free --strategy full --clients 3 --leg-mean 5", "--leg-mean");
  expect_rejected("--model collision --strategy full --clients 3 --leg-sd 0", "--leg-sd");
}

TEST(BrookerCli, BadValuesNameTheFlag) {
  const std::string b = "--model brooker --strategy full ";
  expect_rejected(b + "--leg-mean -1", "--leg-mean");
  expect_rejected(b + "--leg-sd -0.5", "--leg-sd");
  expect_rejected(b + "--leg-sd nan", "--leg-sd");
  expect_rejected(b + "--cap none", "--cap");
  expect_rejected(b + "--cap 1", "--cap");  // below the default base 5
  expect_rejected(b + "--base 0", "--base");
  expect_rejected(b + "--clients 0", "--clients");
  expect_rejected(b + "--runs 0", "--runs");
  expect_rejected("--model brooker --strategy window", "--window");
}
