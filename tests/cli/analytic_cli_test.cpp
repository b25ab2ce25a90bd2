// `retrylab analytic` as a user sees it: exit status, one-line errors naming the flag, the JSON keys of
// cli.md, and values identical to the library's (the CLI is a thin layer: it must not compute).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/aloha.hpp"
#include "analytic/classic.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"

namespace {

struct Outcome {
  int status;
  std::string out;
  std::string err;
};

// Runs `retrylab analytic <args>` through the shell (args are fixed test strings, no quoting needed).
Outcome run(const std::string& args) {
  // One file per process: ctest -j runs several of these test processes at once.
  const std::string err_path = testing::TempDir() + "retrylab_analytic_cli_stderr_" + std::to_string(getpid()) + ".txt";
  const std::string command = std::string(RETRYLAB_EXE) + " analytic " + args + " 2>" + err_path;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "", "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  std::ifstream err_file(err_path);
  std::stringstream err;
  err << err_file.rdbuf();
  std::remove(err_path.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out, err.str()};
}

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
                    BadInput{"aloha --goodput -0.01", "--goodput"}, BadInput{"aloha --rate 0.1 --goodput 0.1", "--goodput"},
                    BadInput{"aloha", "--rate"}, BadInput{"occ --rate -0.5", "--rate"},
                    BadInput{"occ --rate inf", "--rate"}, BadInput{"ps --load 1", "--load"},
                    BadInput{"ps --load 1.5", "--load"}, BadInput{"ps --load 0.5 --service 0", "--service"},
                    BadInput{"ps --load x", "--load"}, BadInput{"sleep --strategy full --retry 0", "--retry"},
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
                    BadInput{"fluid-cap --clients 0", "--clients"},
                    BadInput{"fluid-cap --clients 10 --strategy none", "--strategy"},
                    BadInput{"amplification --failure 2", "--failure"}, BadInput{"amplification --layers 0", "--layers"},
                    BadInput{"amplification --attempts 0", "--attempts"},
                    BadInput{"budget --preset azure", "--preset"}, BadInput{"budget --successes -1", "--successes"},
                    BadInput{"budget --preset custom --capacity 500 --cost 5 --refund 1 --threshold 600", "--threshold"},
                    BadInput{"budget --preset finagle --requests -1", "--requests"},
                    BadInput{"budget --preset finagle --capacity 5", "--capacity"},
                    BadInput{"budget --requests 5", "--requests"},
                    BadInput{"aloha --rate 1 --bogus 3", "--bogus"}));

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
  const auto a = run_json("amplification --layers 4 --attempts 3 --failure 1");
  expect_common_keys(a, "amplification");
  EXPECT_EQ(a.at("value").get<double>(), 81.0);
  EXPECT_EQ(a.at("bound").get<double>(), 81.0);
  const auto b = run_json("budget");
  expect_common_keys(b, "budget");
  EXPECT_EQ(b.at("value").get<double>(), 100.0);  // AWS standard: 500/5
  EXPECT_EQ(run_json("budget --preset grpc").at("value").get<double>(), 5.0);
  // Finagle RetryBudget defaults: 10/s·10 s reserve + 0.2 per request (issue 7).
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

}  // namespace
