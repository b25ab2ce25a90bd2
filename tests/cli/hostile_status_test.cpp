// Right status, nothing silent: inputs that ran, or were judged, where they must be refused with one
// line and exit 2 (a hedged trace given to check, a mistyped first profile row taken for a header,
// advise's negative --threads and a strategy named twice, --list-fields '', a window given to full
// jitter), "-0" read as 0, and advice that names only what can help.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/cli.hpp"
#include "tests/support/temp_dir.hpp"

namespace hostile_status_test {

namespace fs = std::filesystem;
using retrylab::test::Child;
using retrylab::test::run_child;

namespace {

void expect_refused(const std::vector<std::string>& args, const std::string& needle) {
  const Child c = run_child(args, 60.0);
  std::string shown;
  for (const auto& a : args) shown += " " + a;
  EXPECT_FALSE(c.timed_out) << shown;
  EXPECT_EQ(c.status, 2) << shown << "\n" << c.err;
  EXPECT_EQ(c.err.rfind("retrylab: ", 0), 0u) << shown << "\n" << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << shown << "\n" << c.err;
  EXPECT_NE(c.err.find(needle), std::string::npos) << shown << "\nwanted: " << needle << "\ngot: " << c.err;
}

}  // namespace

// docs/traces.md: check knows no hedging. Its own hedged trace was judged FAIL (exit 1).
TEST(HostileStatus, CheckRefusesAHedgedTrace) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-status-hedged");
  const std::string trace = (dir / "hedged.csv").string();
  const Child w = run_child({"simulate", "--model", "shared", "--strategy", "none", "--clients", "20", "--runs", "1",
                             "--hedge-attempts", "2", "--hedge-delay", "1", "--quiet", "--trace", trace});
  ASSERT_EQ(w.status, 0) << w.err;
  expect_refused({"check", trace}, "hedge_attempts is 2: retrylab check does not model hedging");
  // An unhedged trace of the same scenario is still checked.
  const std::string plain = (dir / "plain.csv").string();
  ASSERT_EQ(run_child({"simulate", "--model", "shared", "--strategy", "none", "--clients", "20", "--runs", "1",
                       "--quiet", "--trace", plain})
                .status,
            0);
  EXPECT_EQ(run_child({"check", plain}).status, 0);
}

// A first row "1O,5" (a letter O for a zero) was skipped as a header: the profile silently lost it.
TEST(HostileStatus, AMistypedFirstProfileRowIsNotAHeader) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-status-profile");
  const std::vector<std::string> sim = {"simulate", "--model", "none",    "--strategy", "none", "--clients",     "2",
                                        "--runs",   "1",       "--quiet", "--horizon",  "10",   "--load-profile"};
  for (const auto& [text, needle] : {std::pair{"1O,5\n2,5\n", "line 1: time must be a number (got 1O)"},
                                     std::pair{".5s,1\n1,2\n", "line 1: time must be a number (got .5s)"},
                                     std::pair{"time,7\n1,2\n", "line 1: time must be a number (got time)"}}) {
    const std::string f = (dir / "p.csv").string();
    std::ofstream(f, std::ios::binary) << text;
    std::vector<std::string> args = sim;
    args.push_back(f);
    expect_refused(args, needle);
  }
  const std::string ok = (dir / "ok.csv").string();
  std::ofstream(ok, std::ios::binary) << "time,rate\n0,0.1\n5,0.2\n";
  std::vector<std::string> args = sim;
  args.push_back(ok);
  const Child c = run_child(args);
  EXPECT_EQ(c.status, 0) << c.err;
}

// Both ran before: -1 threads, and full tuned twice.
TEST(HostileStatus, AdviseRefusesNegativeThreadsAndARepeatedStrategy) {
  expect_refused({"advise", "--clients", "10", "--failed-attempts", "free", "--threads", "-1", "--quiet"},
                 "--threads must be >= 0");
  expect_refused({"advise", "--clients", "10", "--failed-attempts", "free", "--strategies", "full,full", "--quiet"},
                 "--strategies must name each strategy once (got full twice)");
}

// --list-fields '' ran a simulation; sleep --window 5 with full jitter printed full jitter's sleeps
// as if the window were not there.
TEST(HostileStatus, AnEmptyListFieldsAndAWindowWithoutTheWindowStrategyAreRefused) {
  expect_refused({"simulate", "--list-fields", ""}, "--list-fields must be text, markdown or json (got )");
  expect_refused(
      {"analytic", "sleep", "--strategy", "full", "--base", "1", "--cap", "10", "--window", "5", "--retry", "3"},
      "--window applies to the window strategy only (got 5 with full)");
  EXPECT_EQ(run_child({"analytic", "sleep", "--strategy", "window", "--window", "5", "--retry", "3"}).status, 0);
}

// "-0" is 0: --rate -0 printed rate=-0 in the canonical string, a scenario apart from rate 0.
TEST(HostileStatus, MinusZeroIsZero) {
  const std::vector<std::string> base = {"simulate",  "--model", "collision", "--strategy", "full",
                                         "--clients", "5",       "--runs",    "1",          "--quiet",
                                         "--horizon", "10",      "--format",  "json",       "--rate"};
  std::vector<std::string> minus = base, zero = base;
  minus.push_back("-0");
  zero.push_back("0");
  const Child a = run_child(minus), b = run_child(zero);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out.find("rate=-0"), std::string::npos);
}

// The brooker preset sets collapse above its clients itself: its memory refusal advised lowering
// --collapse, which cannot help.
TEST(HostileStatus, BrookerIsNotAdvisedToLowerCollapse) {
  const Child c = run_child(
      {"simulate", "--model", "brooker", "--strategy", "full", "--runs", "10000000", "--max-memory", "0.001"});
  EXPECT_EQ(c.status, 2) << c.err;
  EXPECT_EQ(c.err.find("--collapse"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("lower --runs,"), std::string::npos) << c.err;
}

// Output over the file-size limit (ulimit -f) killed the process with SIGXFSZ and no message: the
// write now fails and is reported as any failed write is, one line, exit 1.
TEST(HostileStatus, AFileSizeLimitIsAFailedWriteNotASignal) {
  rlimit before{};
  ::getrlimit(RLIMIT_FSIZE, &before);
  rlimit small = before;
  small.rlim_cur = 1024;              // the field table in JSON is larger
  ::setrlimit(RLIMIT_FSIZE, &small);  // inherited by the child
  const Child c = run_child({"simulate", "--list-fields", "json"});
  ::setrlimit(RLIMIT_FSIZE, &before);
  EXPECT_EQ(c.signal, 0) << c.err;
  EXPECT_EQ(c.status, 1) << c.err;
  EXPECT_EQ(c.err.rfind("retrylab: cannot write to standard output", 0), 0u) << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
}

}  // namespace hostile_status_test
