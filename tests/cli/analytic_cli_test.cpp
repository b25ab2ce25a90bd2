// `retrylab analytic` as a user sees it: exit status, one-line errors naming the flag, the JSON keys of
// docs/cli.md, and values identical to the library's (the CLI is a thin layer: it must not compute).
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/aloha.hpp"
#include "analytic/classic.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"
#include "api/fluid_cap_band.hpp"
#include "tests/support/cli.hpp"

namespace analytic_cli_test {

namespace {

using Outcome = retrylab::test::Child;

// `retrylab analytic <args>` (args are fixed test strings, no quoting needed).
Outcome run(const std::string& args) { return retrylab::test::run_cli("analytic " + args); }

nlohmann::json run_json(const std::string& args) {
  const Outcome o = run(args + " --json");
  EXPECT_EQ(o.status, 0) << args << ": " << o.err;
  EXPECT_EQ(o.err, "") << args;
  return nlohmann::json::parse(o.out);
}

void expect_common_keys(const nlohmann::json& j, const std::string& model) {
  EXPECT_EQ(j.at("model"), model);
  EXPECT_TRUE(j.at("inputs").is_object());
  EXPECT_TRUE(j.contains("value"));
  for (const char* key : {"formula", "assumptions", "proof"}) EXPECT_TRUE(j.at(key).is_string()) << key;
}

struct BadInput {
  std::string args;
  std::string flag;
};

void PrintTo(const BadInput& b, std::ostream* os) { *os << "retrylab analytic " << b.args; }

class BadInputTest : public testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsTwoWithOneLineNamingTheFlag) {
  const Outcome o = run(GetParam().args);
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(o.out, "");
  ASSERT_FALSE(o.err.empty());
  EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "not one line: " << o.err;
  EXPECT_EQ(o.err.rfind("retrylab: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find(GetParam().flag), std::string::npos) << o.err;
}

INSTANTIATE_TEST_SUITE_P(
    Analytic, BadInputTest,
    testing::Values(BadInput{"aloha --rate -1", "--rate"}, BadInput{"aloha --rate nan", "--rate"},
                    BadInput{"aloha --rate abc", "--rate"}, BadInput{"aloha --goodput 0.2", "--goodput"},
                    BadInput{"aloha --goodput -0.01", "--goodput"},
                    BadInput{"aloha --rate 0.1 --goodput 0.1", "--goodput"}, BadInput{"aloha", "--rate"},
                    BadInput{"occ --rate -0.5", "--rate"}, BadInput{"occ --rate inf", "--rate"},
                    BadInput{"ps --load 1", "--load"}, BadInput{"ps --load 1.5", "--load"},
                    BadInput{"ps --load 0.5 --service 0", "--service"}, BadInput{"ps --load x", "--load"},
                    BadInput{"sleep --strategy full --retry 0", "--retry"},
                    BadInput{"sleep --strategy full --retry 1.5", "--retry"},
                    BadInput{"sleep --strategy full --retry 2 --cap 0.5", "--cap"},
                    BadInput{"sleep --strategy full --retry 2 --cap abc", "--cap"},
                    BadInput{"sleep --strategy full --retry 2 --base nan", "--base"},
                    BadInput{"sleep --strategy full --retry 2 --quantile 1.5", "--quantile"},
                    BadInput{"sleep --strategy jitter --retry 2", "--strategy"},
                    BadInput{"sleep --strategy window --retry 2", "--window"},
                    BadInput{"sleep --strategy decorrelated --retry 101 --cap none", "--retry"},
                    BadInput{"classic --model shared --strategy none --clients 3", "--model"},
                    BadInput{"classic --model free --strategy full --clients 3", "--strategy"},
                    BadInput{"classic --model free --strategy none --clients 0", "--clients"},
                    BadInput{"classic --model free --strategy nojitter --clients 3 --cap 0.5", "--cap"},
                    BadInput{"growth --sleep 0.5", "--sleep"}, BadInput{"growth --base -1", "--base"},
                    BadInput{"fluid-cap --clients 10 --rate 0.19", "--rate"},
                    BadInput{"fluid-cap --clients 0 --rate 0.05", "--clients"},
                    BadInput{"fluid-cap --clients 10 --rate 0.05 --strategy none", "--strategy"},
                    BadInput{"fluid-cap --clients 300", "--rate"}, BadInput{"amplification --failure 2", "--failure"},
                    BadInput{"amplification --layers 0", "--layers"},
                    BadInput{"amplification --attempts 0", "--attempts"}, BadInput{"hedge --delay -1", "--delay"},
                    BadInput{"hedge --service 0", "--service"}, BadInput{"hedge --quantile 1", "--quantile"},
                    BadInput{"budget --preset azure", "--preset"}, BadInput{"budget --successes -1", "--successes"},
                    BadInput{"budget --preset custom --capacity 500 --cost 5 --refund 1 --threshold 600",
                             "--threshold"},
                    BadInput{"budget --preset finagle --requests -1", "--requests"},
                    BadInput{"budget --preset finagle --capacity 5", "--capacity"},
                    BadInput{"budget --requests 5", "--requests"}, BadInput{"aloha --rate 1 --bogus 3", "--bogus"}));

TEST(AnalyticJson, Aloha) {
  const auto j = run_json("aloha --rate 0.5");
  expect_common_keys(j, "aloha");
  EXPECT_EQ(j.at("inputs").at("rate"), 0.5);
  EXPECT_EQ(j.at("value").get<double>(), retrylab::goodput(retrylab::PureAloha{0.5}));
  const auto inv = run_json("aloha --goodput 0.1");
  expect_common_keys(inv, "aloha");
  EXPECT_EQ(inv.at("low").get<double>(), retrylab::aloha_inverse(0.1).low);
  EXPECT_EQ(inv.at("high").get<double>(), retrylab::aloha_inverse(0.1).high);
}

TEST(AnalyticJson, OccAndPs) {
  const auto occ = run_json("occ --rate 3");
  expect_common_keys(occ, "occ");
  EXPECT_EQ(occ.at("value").get<double>(), 0.75);
  EXPECT_TRUE(occ.contains("success_probability"));
  const auto ps = run_json("ps --load 0.75");
  expect_common_keys(ps, "ps");
  EXPECT_EQ(ps.at("value").get<double>(), 4.0);  // 1/(1 − 0.75), exact in binary
  EXPECT_EQ(ps.at("mean_number").get<double>(), 3.0);
  EXPECT_EQ(ps.at("inputs").at("service"), 1.0);
}

TEST(AnalyticJson, SleepGivesQuantileAsValueAndMean) {
  const auto q = run_json("sleep --strategy equal --retry 4 --quantile 0.5");
  expect_common_keys(q, "sleep");
  EXPECT_EQ(q.at("value").get<double>(), 6.0);  // U(4, 8) median
  EXPECT_EQ(q.at("mean").get<double>(), 6.0);
  EXPECT_EQ(q.at("exact"), true);
  const auto m = run_json("sleep --strategy full --retry 3 --cap none");
  EXPECT_EQ(m.at("value").get<double>(), 2.0);  // U(0, 4) mean
  EXPECT_EQ(m.at("inputs").at("cap"), "none");
  const auto d = run_json("sleep --strategy decorrelated --retry 3 --quantile 0.9");
  EXPECT_EQ(d.at("exact"), false);
  EXPECT_LT(d.at("accuracy").get<double>(), 3e-7);
  const retrylab::SleepDistribution lib(retrylab::Backoff{retrylab::Strategy::decorrelated, 1, 1000, 0}, 3);
  EXPECT_EQ(d.at("value").get<double>(), lib.quantile(0.9));
  EXPECT_EQ(d.at("mean").get<double>(), lib.mean());
}

TEST(AnalyticJson, ClassicFinishesOrNot) {
  const auto f = run_json("classic --model free --strategy nojitter --clients 10 --cap 100");
  expect_common_keys(f, "classic");
  EXPECT_EQ(f.at("attempts_per_client").get<double>(), 5.5);
  EXPECT_EQ(f.at("makespan").get<double>(), 337.0);  // 10 + (1+2+4+...+64) + 100 + 100
  EXPECT_EQ(f.at("finishes"), true);
  const auto c = run_json("classic --model collision --strategy none --clients 10");
  EXPECT_TRUE(c.at("makespan").is_null());
  EXPECT_TRUE(c.at("attempts_per_client").is_null());
  EXPECT_EQ(c.at("finishes"), false);
}

TEST(AnalyticJson, GrowthFluidCapAmplificationBudget) {
  const auto g = run_json("growth");
  expect_common_keys(g, "growth");
  EXPECT_EQ(g.at("value").get<double>(), std::log(3.0) - 1.0);
  EXPECT_TRUE(g.contains("limit"));
  EXPECT_TRUE(run_json("growth --sleep 10").at("step_growth").is_number());
  const auto f = run_json("fluid-cap --clients 100 --rate 0.1");
  expect_common_keys(f, "fluid-cap");
  for (const char* key : {"cap", "upper_root", "required_mean_sleep", "mean_sleep_at_cap", "estimate"})
    EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_TRUE(f.at("error_band").is_object());
  const auto a = run_json("amplification --layers 4 --attempts 3 --failure 1");
  expect_common_keys(a, "amplification");
  EXPECT_EQ(a.at("value").get<double>(), 81.0);
  EXPECT_EQ(a.at("bound").get<double>(), 81.0);
  const auto b = run_json("budget");
  expect_common_keys(b, "budget");
  EXPECT_EQ(b.at("value").get<double>(), 100.0);  // AWS standard: 500/5
  EXPECT_EQ(run_json("budget --preset grpc").at("value").get<double>(), 5.0);
  // Finagle RetryBudget defaults: 10/s·10 s reserve + 0.2 per request.
  EXPECT_EQ(run_json("budget --preset finagle --requests 50").at("value").get<double>(), 110.0);
}

TEST(AnalyticOutput, TableAndCsv) {
  const Outcome table = run("ps --load 0.5");
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("value"), std::string::npos);
  EXPECT_NE(table.out.find("proofs/Ps.v: ps_mean_time"), std::string::npos);
  const Outcome csv = run("ps --load 0.5 --format csv");
  EXPECT_EQ(csv.status, 0);
  std::istringstream lines(csv.out);
  std::string head, row, extra;
  std::getline(lines, head);
  std::getline(lines, row);
  EXPECT_FALSE(std::getline(lines, extra)) << "csv has more than a header and one row";
  EXPECT_EQ(head.rfind("model,inputs.load,inputs.service,value", 0), 0u) << head;
  EXPECT_EQ(row.rfind("ps,0.5,1,2,", 0), 0u) << row;
}

TEST(AnalyticHelp, EverySubcommandListsItsFlags) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {"aloha", {"--rate", "--goodput", "--format", "--json"}},
      {"occ", {"--rate"}},
      {"ps", {"--load", "--service"}},
      {"hedge", {"--delay", "--service", "--quantile"}},
      {"sleep", {"--strategy", "--retry", "--base", "--cap", "--window", "--quantile", "=1000"}},
      {"classic", {"--model", "--strategy", "--clients", "--base", "--cap"}},
      {"growth", {"--sleep", "--base", "--cap"}},
      {"fluid-cap", {"--clients", "--rate", "--strategy", "--base"}},
      {"amplification", {"--layers", "--attempts", "--failure"}},
      {"budget", {"--preset", "--capacity", "--cost", "--refund", "--threshold", "--successes"}}};
  for (const auto& [sub, flags] : cases) {
    const Outcome o = run(sub + " --help");
    EXPECT_EQ(o.status, 0) << sub;
    for (const auto& flag : flags) EXPECT_NE(o.out.find(flag), std::string::npos) << sub << " " << flag;
  }
}

// fluid-cap needs the steady load: without --rate it says so in one line (exit 2); --rate 0 is a pure
// burst, where the estimate is the base (any sleep keeps ALOHA's goodput above a zero load).
TEST(AnalyticFluidCap, RateIsRequiredAndZeroIsAPureBurst) {
  const Outcome o = run("fluid-cap --clients 300");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.rfind("retrylab: --rate is required", 0), 0u) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  const auto pure = run_json("fluid-cap --clients 300 --rate 0 --base 2");
  EXPECT_EQ(pure.at("inputs").at("rate"), 0.0);
  EXPECT_EQ(pure.at("value").get<double>(), 2.0);
}

// The error band printed beside the estimate is the least and largest simulated / estimate over the
// measurements of api/fluid_cap_band.hpp for that strategy; nojitter (never drained) gets the reason.
TEST(AnalyticFluidCap, PrintsTheMeasuredBand) {
  for (const char* name : {"full", "equal", "decorrelated"}) {
    const retrylab::Strategy s = *retrylab::parse_strategy(name);
    double low = 1e300, high = 0.0;
    for (const auto& m : retrylab::api::fluid_cap_measurements)
      if (m.strategy == s)
        low = std::min(low, m.simulated / m.estimate), high = std::max(high, m.simulated / m.estimate);
    const auto j = run_json(std::string("fluid-cap --clients 300 --rate 0.05 --strategy ") + name);
    const auto& band = j.at("error_band");
    EXPECT_EQ(band.at("low").get<double>(), low) << name;
    EXPECT_EQ(band.at("high").get<double>(), high) << name;
    EXPECT_GT(low, 1.0) << name << ": every measured threshold lies above the estimate";
    EXPECT_TRUE(band.at("source").is_string());
  }
  const auto nj = run_json("fluid-cap --clients 300 --rate 0.05 --strategy nojitter");
  EXPECT_NE(nj.at("error_band").get<std::string>().find("no simulated threshold"), std::string::npos);
  const Outcome table = run("fluid-cap --clients 300 --rate 0.05");
  EXPECT_NE(table.out.find("error_band.low"), std::string::npos) << table.out;
}

// Fields [0, n) of a CSV line without quoted commas (the rows read below have none).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
  return f;
}

// The band's rows are the repository's committed measurements, not numbers typed in: each row's
// estimate is what fluid_cap() computes now, and its (simulated, estimate) pair is the one in the
// committed file it names (paper 1's burst_caps.csv / burst_long_caps.csv, or its validation.csv).
// When paper 1 or the estimator changes, this fails until api/fluid_cap_band.hpp is updated.
TEST(AnalyticFluidCap, BandRowsAreTheCommittedMeasurements) {
  const std::string paper = std::string(RETRYLAB_SOURCE_DIR) + "/papers/cap-is-doing-the-work/";
  auto lines_of = [](const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << path;
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) rows.push_back(csv_fields(line));
    return rows;
  };
  const auto burst = lines_of(paper + "burst_caps.csv"), longer = lines_of(paper + "burst_long_caps.csv"),
             checks = lines_of(paper + "validation/validation.csv");
  int paper_rows = 0, validation_rows = 0;
  for (const auto& m : retrylab::api::fluid_cap_measurements) {
    retrylab::FluidCap f;
    f.clients = m.clients;
    f.rate = 0.05;
    f.backoff = retrylab::Backoff{m.strategy, 1.0, retrylab::unbounded_cap, 0.0};
    EXPECT_NEAR(retrylab::fluid_cap(f).cap, m.estimate, 1e-9 * m.estimate) << m.clients;
    const std::string strategy(retrylab::to_string(m.strategy)), b = std::to_string(m.clients);
    bool found = false;
    for (const auto& r : m.horizon == 60000 ? burst : longer)  // model,strategy,load,B,threshold,/B,estimate
      if (r.size() > 6 && r[0] == "collision" && r[1] == strategy && r[2] == "0.05" && r[3] == b &&
          r[4] != "none of the grid" && std::stod(r[4]) == m.simulated && std::stod(r[6]) == m.estimate)
        found = true, ++paper_rows;
    for (const auto& r : checks)  // case,kind,parameters,closed_form,expected,observed
      if (r.size() > 5 && r[0] == "fluid-cap-" + strategy + "-B" + b && std::stod(r[4]) == m.estimate &&
          std::stod(r[5]) == m.simulated)
        found = true, ++validation_rows;
    EXPECT_TRUE(found) << strategy << " B=" << b << " horizon " << m.horizon << ": not in the committed files";
  }
  EXPECT_EQ(paper_rows + validation_rows, static_cast<int>(std::size(retrylab::api::fluid_cap_measurements)));
  EXPECT_EQ(validation_rows, 2);
}

// The model subcommands (cli/analytic_models_cmd.cpp): values equal to the library's, the estimate
// labelled as one, and bad input refused with exit status 2 and one line naming the flag.
TEST(AnalyticModels, MarkovSteadyBurst) {
  const auto m = run_json("markov --model free --clients 2 --cap 8");
  EXPECT_EQ(m.at("kind"), "exact");
  EXPECT_NEAR(m.at("makespan").get<double>(), 3.0, 1e-12);  // hand-solved: models_test.cpp
  EXPECT_NEAR(m.at("attempts_per_client").get<double>(), 1.5, 1e-12);
  const auto s = run_json("steady --model collision --strategy full --rate 0.1");
  EXPECT_EQ(s.at("kind"), "estimate");
  EXPECT_EQ(s.at("fixed_points").size(), 2u);
  const auto b = run_json("burst --model collision --strategy full --clients 100 --cap 1000");
  EXPECT_EQ(b.at("kind"), "estimate");
  EXPECT_TRUE(b.at("drained").get<bool>());
  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
           {"markov --model free --clients 9", "--clients"},
           {"markov --model shared --clients 2", "--model"},
           {"markov --model free --clients 2 --strategy full", "--strategy"},
           {"steady --model ps", "--model"},
           {"steady --cap none", "--cap"},
           {"steady --rate 1.5", "--rate"},
           {"burst --clients 1", "--clients"},
           {"burst --clients 10 --horizon -1", "--horizon"}}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.status, 2) << args;
    EXPECT_NE(o.err.find(flag), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
  }
}

}  // namespace

}  // namespace analytic_cli_test
