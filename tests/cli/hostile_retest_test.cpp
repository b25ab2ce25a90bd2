// The hostile retest's reproducers (a few thousand random and mutated argument vectors, study specs,
// traces, policy files and load profiles against the release binary and the Python module), each a
// regression test: a load profile whose thinning would run for days is refused up front, and an
// error that quotes what was typed or read stays one line whatever control characters it holds.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/cli.hpp"
#include "tests/support/temp_dir.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define RETRYLAB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RETRYLAB_UNDER_ASAN 1
#endif
#endif

namespace hostile_retest_test {

namespace fs = std::filesystem;
using retrylab::test::Child;
using retrylab::test::run_child;

namespace {

using Args = std::vector<std::string>;

std::string shown(const Args& args) {
  std::string s;
  for (const auto& a : args) s += " '" + a + "'";
  return s;
}

// Exit 2, within the timeout, and stderr is exactly one line "retrylab: ..." holding `needle`.
void expect_one_line_refusal(const Args& args, const std::string& needle, double timeout_s = 30.0) {
  const Child c = run_child(args, timeout_s);
  EXPECT_FALSE(c.timed_out) << shown(args);
  EXPECT_EQ(c.status, 2) << shown(args) << "\n" << c.err;
  EXPECT_EQ(c.err.rfind("retrylab: ", 0), 0u) << shown(args) << "\n" << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << shown(args) << "\n" << c.err;
  EXPECT_EQ(std::count_if(c.err.begin(), c.err.end(),
                          [](char ch) { return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7f; }),
            0)
      << shown(args) << "\n"
      << c.err;
  EXPECT_NE(c.err.find(needle), std::string::npos) << shown(args) << "\nwanted: " << needle << "\ngot: " << c.err;
}

}  // namespace

// A profile's arrivals are drawn at its peak rate and thinned: a spike of 10^9 per attempt-duration
// for a nanosecond is half an arrival over the run, but 10^15 candidate draws over a horizon of
// 10^6 (days of one core, while the work estimate counted only the half arrival). Refused at once,
// naming the profile; a modest spike still runs.
TEST(HostileRetest, AThinnedSpikeIsBoundedByTheWorkLimit) {
  const Args spike = {
      "simulate", "--model", "none",   "--retries", "off", "--load-profile", "step:0:0,1:1e9,1.000000001:0",
      "--runs",   "1",       "--quiet"};
  Args long_run = spike;
  long_run.insert(long_run.end(), {"--horizon", "1e6"});
  expect_one_line_refusal(long_run, "--load-profile is too costly to simulate", 10.0);
  Args shared = long_run;
  shared[2] = "shared";
  expect_one_line_refusal(shared, "draws, above the limit", 10.0);
  Args short_run = spike;  // a spike of 1000 for 0.001: 10^5 draws over 100
  short_run[6] = "step:0:0,1:1000,1.001:0";
  short_run.insert(short_run.end(), {"--horizon", "100", "--json"});
  const Child ok = run_child(short_run, 30.0);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// Messages quote the value typed or the file's text; a newline, carriage return, escape or other
// control character in it becomes a space, so the refusal is still one line (a log reader, a
// terminal or a wrapper script that takes the first line sees all of it).
TEST(HostileRetest, AnErrorQuotingControlCharactersIsOneLine) {
  const Args sim = {"simulate", "--model", "none", "--strategy", "full", "--quiet"};
  const auto with = [&](Args more) {
    Args a = sim;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  expect_one_line_refusal(with({"--failure-prob", "a\nb"}), "--failure-prob must be in [0, 1] (got a b)");
  expect_one_line_refusal(with({"--horizon", "100", "--load-profile", "0:0.01,100:0.05\n0:0.01,100:0.05"}),
                          "--load-profile must be one of");
  expect_one_line_refusal(with({"--horizon", "100", "--load-profile", "sine:100:0.05\r\x1b[2Jx"}),
                          "--load-profile must be one of");
  expect_one_line_refusal(with({"--clients", "5", "--unit", "m\ns"}), "--unit");
  expect_one_line_refusal(with({"--clients", "5", "--policy", "no\nsuch.toml"}), "--policy");
  expect_one_line_refusal({"check", "no\nsuch\ttrace.csv"}, "TRACE must be a readable file");
  expect_one_line_refusal({"simulate\n", "--model", "none"}, "simulate");

  // Read from a file: a CSV profile's bad cell and a trace's bad cell, each with a control character.
  const fs::path dir = retrylab::test::fresh_dir("hostile-retest-lines");
  const fs::path profile = dir / "profile.csv";
  std::ofstream(profile, std::ios::binary) << "time,rate\n0,0.1\n5,0.2\x1c\x0b"
                                           << "\n";
  expect_one_line_refusal(with({"--horizon", "100", "--load-profile", profile.string()}), "line 3");
  const fs::path spec = dir / "study.toml";
  std::ofstream(spec, std::ios::binary) << "[study]\nname = \"a\nb\"\n";
  expect_one_line_refusal({"run", spec.string(), "--out", (dir / "out").string()}, "study.toml");
}

// A profile or policy "file" that never ends (/dev/zero: no newline, no end) was read whole and ran
// out of memory; a folder given as a policy read as an empty AWS config. Both are refused at once.
TEST(HostileRetest, EndlessFilesAndFoldersAreRefusedNotRead) {
  const Args sim = {"simulate", "--model", "collision", "--strategy", "full", "--clients", "3", "--quiet"};
  const auto with = [&](Args more) {
    Args a = sim;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  // A device is refused before a byte is read (it was read up to the size bound before).
  expect_one_line_refusal(with({"--horizon", "100", "--load-profile", "/dev/zero"}), "is a character device", 20.0);
  expect_one_line_refusal(with({"--policy", "/dev/zero"}), "is a character device", 20.0);
  expect_one_line_refusal({"policy", "show", "/dev/zero"}, "is a character device", 20.0);
  const fs::path dir = retrylab::test::fresh_dir("hostile-retest-folders");
  expect_one_line_refusal(with({"--policy", dir.string()}), "is a folder");
  expect_one_line_refusal({"policy", "show", dir.string()}, "is a folder");
  expect_one_line_refusal(with({"--horizon", "100", "--load-profile", dir.string() + "/"}), "is a folder");
}

// --threads above what the system will start (100,000 for 50,000 runs) aborted with "terminate called
// without an active exception": at most max_worker_threads are asked for, and a refusal leaves the
// threads that did start to share the runs. Threads never change the output. The child runs with its
// address space limited to 2 GiB (each thread reserves an 8 MiB stack), so the system refuses threads
// on any machine; not under ASan, whose shadow memory needs far more address space.
TEST(HostileRetest, MoreThreadsThanTheSystemGivesStillRun) {
  const Args sim = {"simulate", "--model", "collision", "--strategy", "full",  "--clients",
                    "2",        "--runs",  "5000",      "--quiet",    "--json"};
  Args many = sim;
  many.insert(many.end(), {"--threads", "100000"});
  Args two = sim;
  two.insert(two.end(), {"--threads", "2"});
  rlimit before{};
  ::getrlimit(RLIMIT_AS, &before);
#ifndef RETRYLAB_UNDER_ASAN
  rlimit small = before;
  small.rlim_cur = rlim_t{2} << 30;
  ::setrlimit(RLIMIT_AS, &small);  // inherited by the child
#endif
  const Child a = run_child(many, 120.0);
  ::setrlimit(RLIMIT_AS, &before);
  const Child b = run_child(two, 120.0);
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
}

// simulate --plot with a newline in its name ran every run, wrote the gnuplot script under that name,
// then failed with exit 1; advise --plot refused it up front. Now simulate does too: exit 2, no file.
TEST(HostileRetest, APlotNameWithAControlCharacterIsRefusedBeforeTheRuns) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-retest-plot");
  const std::string name = (dir / "a\nb.svg").string();
  expect_one_line_refusal({"simulate", "--model", "none", "--strategy", "full", "--rate", "0.05", "--horizon", "1000",
                           "--series", "100", "--runs", "2", "--quiet", "--plot", name},
                          "--plot must not hold a control character");
  EXPECT_TRUE(fs::is_empty(dir));
}

}  // namespace hostile_retest_test
#undef RETRYLAB_UNDER_ASAN  // this file's: not the next file's in a unity batch (RETRYLAB_UNITY)
