// `retrylab simulate --model brooker`, the preset for Brooker's OCC test on the engine
// (montecarlo/brooker_preset.hpp), as a user sees it (docs/cli.md): it expands to the engine scenario
// in ms, prints the engine's metrics (values identical to the library's), names the expanded flags
// (which reproduce it), keeps the same bytes for any --threads, takes Brooker's defaults and base
// convention, and exits 2 with one line naming the flag for bad values and for flags the preset does
// not take. About 1 s.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/support/cli.hpp"

namespace mc = retrylab::montecarlo;

namespace {

using Outcome = retrylab::test::Child;

// `retrylab simulate <args>` (args are fixed test strings, no quoting needed).
Outcome run(const std::string& args) { return retrylab::test::run_cli("simulate " + args); }

nlohmann::json run_json(const std::string& args) {
  const Outcome o = run(args + " --json");
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
}

}  // namespace

TEST(BrookerCli, JsonIsTheEngineScenarioInMsWithTheLibrarysValues) {
  const nlohmann::json j = run_json("--model brooker --strategy full --runs 6 --seed 3 --quiet");
  EXPECT_EQ(j.at("unit"), "ms");
  EXPECT_EQ(j.at("attempt_duration"), 1.0);
  EXPECT_EQ(j.at("preset"), "brooker");
  const nlohmann::json& sc = j.at("scenario");
  EXPECT_EQ(sc.at("model"), "free");
  EXPECT_EQ(sc.at("strategy"), "full");
  EXPECT_EQ(sc.at("base").get<double>(), 10.0);  // Brooker's base 5: his first window is 2·5
  EXPECT_EQ(sc.at("cap").get<double>(), 2000.0);
  EXPECT_EQ(sc.at("clients"), 100);
  EXPECT_EQ(sc.at("service"), "round-trip");
  EXPECT_EQ(sc.at("delay").get<double>(), 10.0);
  EXPECT_EQ(sc.at("delay_dist"), "normal");
  EXPECT_EQ(sc.at("delay_sd").get<double>(), 2.0);

  const mc::Summary lib = mc::summarize(mc::simulate(mc::brooker_scenario(mc::BrookerTest{}), {6, 3, 1}));
  const nlohmann::json& m = j.at("metrics");
  expect_summary(m.at("attempts_per_client"), lib.attempts_per_client);
  expect_summary(m.at("makespan"), lib.makespan);
  expect_summary(m.at("latency"), lib.latency);
}

TEST(BrookerCli, FlagsReachTheScenarioInBrookersTerms) {
  // Fixed legs and no sleep: lockstep, attempts N(N+1)/2 = 55 (5.5 per client) and makespan 4·m·N
  // = 4·7·10 = 280 ms (brooker_engine_test.cpp derives both).
  const nlohmann::json j =
      run_json("--model brooker --strategy none --clients 10 --leg-mean 7 --leg-sd 0 --base 2 --cap 300 --runs 2");
  EXPECT_EQ(j.at("scenario").at("base").get<double>(), 4.0);
  EXPECT_EQ(j.at("scenario").at("cap").get<double>(), 300.0);
  EXPECT_FALSE(j.at("scenario").contains("delay_sd"));  // 0: fixed legs, the default
  EXPECT_EQ(j.at("metrics").at("attempts_per_client").at("mean").get<double>(), 5.5);
  EXPECT_EQ(j.at("metrics").at("makespan").at("mean").get<double>(), 280.0);
  // Decorrelated jitter's base is the floor of its sleeps in both conventions: not doubled.
  EXPECT_EQ(run_json("--model brooker --strategy decorrelated --base 3 --runs 1").at("scenario").at("base"), 3.0);
}

TEST(BrookerCli, TheTableNamesTheExpandedFlagsWhichReproduceIt) {
  const Outcome table = run("--model brooker --strategy equal --clients 30 --runs 3 --quiet");
  EXPECT_EQ(table.status, 0) << table.err;
  const std::string prefix = "preset brooker: ";
  ASSERT_EQ(table.out.rfind(prefix, 0), 0u) << table.out;
  const std::string flags = table.out.substr(prefix.size(), table.out.find('\n') - prefix.size());
  EXPECT_NE(flags.find("--model free --strategy equal --base 10 --cap 2000"), std::string::npos) << flags;
  EXPECT_NE(flags.find("--service round-trip --delay 10 --delay-dist normal"), std::string::npos) << flags;
  EXPECT_NE(table.out.find("makespan (ms)"), std::string::npos);
  const nlohmann::json a = run_json("--model brooker --strategy equal --clients 30 --runs 3 --quiet");
  const nlohmann::json b = run_json(flags + " --runs 3 --quiet");
  EXPECT_EQ(a.at("metrics"), b.at("metrics"));
}

TEST(BrookerCli, SameBytesForAnyThreadCount) {
  for (const char* format : {"--json", "--format csv", "--format table"}) {
    const std::string args = std::string("--model brooker --strategy full --clients 30 --runs 9 --quiet ") + format;
    const Outcome one = run(args + " --threads 1");
    const Outcome two = run(args + " --threads 2");
    EXPECT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out, two.out) << format;
  }
}

TEST(BrookerCli, OtherFlagsAreRefusedNotIgnored) {
  const std::string b = "--model brooker --strategy full ";
  expect_rejected(b + "--rate 0.5", "--rate");
  expect_rejected(b + "--horizon 100", "--horizon");
  expect_rejected(b + "--warmup 1", "--warmup");
  expect_rejected(b + "--collapse 10", "--collapse");
  expect_rejected(b + "--retries on", "--retries");
  expect_rejected(b + "--rows 2", "--rows");
  expect_rejected(b + "--delay 5", "--delay");
  expect_rejected(b + "--unit ms --attempt-duration 1", "--unit");
  expect_rejected("--model brooker --clients 3", "--strategy");
  // And the Brooker flags are refused by the engine's models.
  expect_rejected("--model free --strategy full --clients 3 --leg-mean 5", "--leg-mean");
  expect_rejected("--model collision --strategy full --clients 3 --leg-sd 0", "--leg-sd");
}

TEST(BrookerCli, BadValuesNameTheFlag) {
  const std::string b = "--model brooker --strategy full ";
  expect_rejected(b + "--leg-mean -1", "--leg-mean");
  expect_rejected(b + "--leg-mean 0", "--leg-mean");  // a round trip is made of legs
  expect_rejected(b + "--leg-sd -0.5", "--leg-sd");
  expect_rejected(b + "--leg-sd nan", "--leg-sd");
  expect_rejected(b + "--cap 1", "--cap");  // below the default base 5
  expect_rejected(b + "--base 0", "--base");
  expect_rejected(b + "--clients 0", "--clients");
  expect_rejected(b + "--runs 0", "--runs");
  expect_rejected("--model brooker --strategy window", "--window");
}
