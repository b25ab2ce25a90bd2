// What a newcomer types, answered (docs/cli.md "Units", "Warnings", "Mistyped flags"): the analytic
// commands with times take --unit and --attempt-duration and print the same numbers rescaled; a
// scenario whose numbers are almost surely not meant (a load at or above the resource's capacity, a
// horizon shorter than one attempt, a cap that lets the backoff never grow) runs with a warning on
// stderr and in the JSON "warnings", and an ordinary one with none; a mistyped flag or command is
// named with its nearest spelling. Exact comparisons: with the unit s and an attempt of 0.5 s every
// conversion is a multiplication by a power of two, exact in binary. About 2 s.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "montecarlo/hash.hpp"
#include "tests/support/cli.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using retrylab::test::Child;
using retrylab::test::run_cli;

nlohmann::json json_of(const std::string& args) {
  const Child c = run_cli(args + " --json");
  EXPECT_EQ(c.status, 0) << args << ": " << c.err;
  return c.status == 0 ? nlohmann::json::parse(c.out) : nlohmann::json();
}

// Exit 2, one stderr line, containing `text`.
void expect_refused(const std::string& args, const std::string& text) {
  const Child c = run_cli(args);
  EXPECT_EQ(c.status, 2) << args;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << args << " -> " << c.err;
  EXPECT_NE(c.err.find(text), std::string::npos) << args << " -> " << c.err;
}

TEST(AnalyticUnits, SteadyBurstAndFluidCapAnswerInMilliseconds) {
  for (const char* args :
       {"analytic steady", "analytic burst --clients 100", "analytic fluid-cap --clients 100 --rate 0"}) {
    const nlohmann::json j = json_of(std::string(args) + " --unit ms --attempt-duration 20");
    EXPECT_EQ(j["unit"], "ms") << args;
    EXPECT_EQ(j["attempt_duration"], 20.0) << args;
  }
}

TEST(AnalyticUnits, SecondsAreAttemptDurationsRescaled) {
  const std::string s = " --unit s --attempt-duration 0.5";
  // fluid-cap: 0.1 per s is 0.05 per attempt-duration; the cap is a time.
  const nlohmann::json a = json_of("analytic fluid-cap --clients 200 --rate 0.05 --base 2");
  const nlohmann::json b = json_of("analytic fluid-cap --clients 200 --rate 0.1 --base 1" + s);
  EXPECT_EQ(b["cap"].get<double>(), a["cap"].get<double>() * 0.5);
  EXPECT_EQ(b["upper_root"].get<double>(), a["upper_root"].get<double>() / 0.5);
  EXPECT_EQ(b["inputs"]["rate"], 0.1);  // as given
  EXPECT_EQ(b["inputs"]["base"], 1.0);
  // burst: a drain time; steady: loads per s and a passage time.
  const nlohmann::json c = json_of("analytic burst --clients 100 --cap 256");
  const nlohmann::json d = json_of("analytic burst --clients 100 --cap 128" + s);
  ASSERT_TRUE(c["drained"].get<bool>());
  EXPECT_EQ(d["drain_time"].get<double>(), c["drain_time"].get<double>() * 0.5);
  EXPECT_EQ(d["inputs"]["horizon"],
            c["inputs"]["horizon"].get<double>() * 0.5);  // a default: attempt-durations, shown in s
  EXPECT_EQ(d["inputs"]["rate"], c["inputs"]["rate"].get<double>() / 0.5);
  const nlohmann::json e = json_of("analytic steady --rate 0.125 --cap 64");
  const nlohmann::json f = json_of("analytic steady --rate 0.25 --cap 32" + s);
  EXPECT_EQ(f["fold_load"].get<double>(), e["fold_load"].get<double>() / 0.5);
  EXPECT_EQ(f["passage_time"].get<double>(), e["passage_time"].get<double>() * 0.5);
  ASSERT_FALSE(e["fixed_points"].empty());
  EXPECT_EQ(f["fixed_points"][0]["attempt_rate"].get<double>(),
            e["fixed_points"][0]["attempt_rate"].get<double>() / 0.5);
  EXPECT_EQ(f["fixed_points"][0]["backlog"], e["fixed_points"][0]["backlog"]);  // a count
}

TEST(AnalyticUnits, RefusedAsSimulateRefusesThem) {
  expect_refused("analytic steady --unit ms", "--attempt-duration is required with --unit ms");
  expect_refused("analytic burst --clients 10 --unit h --attempt-duration 2", "--unit must be attempt, ms or s");
  expect_refused("analytic amplification --unit ms --attempt-duration 20",
                 "--unit is not a flag of retrylab analytic amplification");
}

TEST(SanityWarnings, ALoadAboveCapacityIsSaid) {
  const Child c = run_cli(
      "simulate --model collision --strategy full --rate 50 --unit ms --attempt-duration 20 --horizon 400 --runs 2 "
      "--quiet --json");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.err.find("retrylab: warning: --rate 50 per ms is at or above the resource's capacity"), std::string::npos)
      << c.err;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(c.err.find(j["warnings"][0].get<std::string>()), std::string::npos);
}

TEST(SanityWarnings, AShortHorizonAndACapThatNeverGrows) {
  const Child h = run_cli("simulate --model collision --strategy full --rate 0.1 --horizon 0.5 --runs 2 --quiet");
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.err.find("--horizon 0.5 attempt-durations is shorter than one attempt"), std::string::npos) << h.err;
  const Child d = run_cli(
      "simulate --model collision --clients 20 --strategy decorrelated --base 10 --cap 20 --runs 2 --quiet --json");
  EXPECT_EQ(d.status, 0);
  EXPECT_NE(d.err.find("--cap 20 attempt-durations is at or below the first retry's window (30"), std::string::npos)
      << d.err;
  EXPECT_EQ(nlohmann::json::parse(d.out)["warnings"].size(), 1u);
}

TEST(SanityWarnings, NoneForAnOrdinaryRun) {
  const Child c = run_cli(
      "simulate --model collision --strategy full --clients 50 --rate 0.1 --horizon 500 --runs 2 --quiet --json");
  EXPECT_EQ(c.status, 0);
  EXPECT_EQ(c.err, "");
  EXPECT_FALSE(nlohmann::json::parse(c.out).contains("warnings"));
}

TEST(Suggestions, AMistypedFlagOrCommandNamesTheNearest) {
  expect_refused("simulate --capp 5", "--capp is not a flag of retrylab simulate; did you mean --cap?");
  expect_refused("simulate --cap=5 --runz 3", "--runz is not a flag of retrylab simulate; did you mean --runs?");
  expect_refused("analytic stedy", "unknown command \"stedy\" for retrylab analytic; did you mean steady?");
  expect_refused("simulat --clients 5", "unknown command \"simulat\" for retrylab; did you mean simulate?");
  expect_refused("advise --clients 5 --failed-attempt collide", "did you mean --failed-attempts?");
  // Nothing near: named, without a guess.
  expect_refused("simulate --zzzzzzzz 1", "--zzzzzzzz is not a flag of retrylab simulate (");
}

// The series figure's stamp names this build's passing certificate when the certificate folder has
// one (a certificate written here for the executable's bytes, as validation/certificate.cpp hashes
// them), and says there is none otherwise; a load profile's stretch above capacity is shaded.
TEST(SeriesPlot, StampsThisBuildsCertificateAndShadesASpike) {
  std::ifstream exe(RETRYLAB_EXE, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(exe)), std::istreambuf_iterator<char>());
  const std::string build = fmt::format("{:016x}", retrylab::montecarlo::fnv1a64(bytes));
  const std::filesystem::path none = retrylab::test::fresh_dir("plot-stamp-none");
  const std::filesystem::path some = retrylab::test::fresh_dir("plot-stamp-some");
  std::ofstream(some / "cert.json") << nlohmann::json{{"id", build + "-quick-1"},
                                                      {"version", "x"},
                                                      {"build_id", build},
                                                      {"scale", "quick"},
                                                      {"seed", 1},
                                                      {"passed", true},
                                                      {"cases", {{{"name", "a"}, {"passed", true}}}}};
  const std::string args =
      "simulate --model shared --strategy full --load-profile step:0:0.3,100:1.5,150:0.3 "
      "--horizon 400 --runs 2 --series 10 --quiet --plot ";
  for (const auto& [dir, stamp] : {std::pair{none, std::string("no validation certificate")},
                                   std::pair{some, "validation certificate " + build + "-quick-1"}}) {
    ::setenv("RETRYLAB_CERTIFICATE_DIR", dir.c_str(), 1);
    const Child c = run_cli(args + (dir / "p.svg").string());
    ::unsetenv("RETRYLAB_CERTIFICATE_DIR");
    ASSERT_EQ(c.status, 0) << c.err;
    const std::string gp = retrylab::test::slurp((dir / "p.gp").string());
    EXPECT_NE(gp.find(stamp), std::string::npos) << gp.substr(0, 400);
    EXPECT_EQ(gp.find("no validation certificate") != std::string::npos, dir == none);
    EXPECT_NE(gp.find("set object 2 rect from 100,graph 0 to 150,graph 1"), std::string::npos);
  }
}

}  // namespace
