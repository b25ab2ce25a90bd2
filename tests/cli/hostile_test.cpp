// Hostile input and failing disks, each reproducer of the hostile-CLI report as a regression test:
// exit 2 (bad input) or 1 (a failed write) with exactly one line on stderr naming the field, file or
// limit; nothing written outside --out; nothing replaced that is not a regular file. Also a
// rapidcheck property: random short argument vectors never crash, hang or exit other than 0, 1, 2.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/sleep.hpp"
#include "montecarlo/atomic_file.hpp"
#include "montecarlo/scenario.hpp"
#include "tests/support/cli.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace hostile_test {

namespace fs = std::filesystem;
using retrylab::test::Child;
using retrylab::test::run_child;

namespace {

using Args = std::vector<std::string>;

fs::path fresh_dir(const std::string& name) { return retrylab::test::fresh_dir("hostile-" + name); }

// Exit `status`, and stderr is one line "retrylab: ..." holding `needle`.
void expect_refused(const Args& args, int status, const std::string& needle, const std::string& stdout_path = "") {
  const Child c = run_child(args, 30.0, stdout_path);
  std::string shown;
  for (const auto& a : args) shown += " '" + a + "'";
  EXPECT_FALSE(c.timed_out) << shown;
  EXPECT_EQ(c.status, status) << shown << "\n" << c.err;
  EXPECT_EQ(c.err.rfind("retrylab: ", 0), 0u) << shown << "\n" << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << shown << "\n" << c.err;
  EXPECT_NE(c.err.find(needle), std::string::npos) << shown << "\nwanted: " << needle << "\ngot: " << c.err;
}

const Args sim = {"simulate", "--model", "free", "--strategy", "full", "--quiet"};
Args with(Args a, const Args& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

}  // namespace

// ---- 1, 2: resources and hangs refused up front --------------------------------------------
TEST(Hostile, ResourcesAreRefusedUpFront) {
  expect_refused(with(sim, {"--clients", "1", "--runs", "100000000"}), 2, "--max-memory");
  expect_refused(with(sim, {"--rate", "1e15", "--horizon", "100", "--collapse", "1000000000"}), 2, "--horizon");
  expect_refused(with(sim, {"--rate", "0.5", "--horizon", "1e300"}), 2, "--horizon is too long to simulate");
  expect_refused({"simulate", "--model", "none", "--strategy", "none", "--clients", "10", "--failure-prob", "1",
                  "--horizon", "1e12"},
                 2, "--horizon is too long to simulate");
  expect_refused(with(sim, {"--clients", "5", "--max-memory", "0"}), 2, "--max-memory");
  expect_refused({"run", "/dev/zero"}, 2, "SPEC must be a regular TOML file");
  // Within the limits the same scenario runs.
  const Child ok = run_child(with(sim, {"--clients", "5", "--runs", "3", "--json"}));
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// ---- 3, 4: spec errors at once, sweep names that would escape --out ---------------------------
class HostileSpec : public testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir("spec"); }
  void TearDown() override { fs::remove_all(dir_); }
  // Refused with exit 2 naming `needle`, and nothing written anywhere under dir_ but the spec.
  void refused(const std::string& sweeps, const std::string& needle) {
    write(dir_ / "s.toml", "[study]\nname = \"h\"\n" + sweeps);
    fs::create_directories(dir_ / "a" / "b");
    expect_refused({"run", (dir_ / "s.toml").string(), "--out", (dir_ / "a" / "b" / "out").string()}, 2, needle);
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.is_regular_file() && e.path().filename() != "s.toml") files.push_back(e.path().string());
    EXPECT_TRUE(files.empty()) << files.front();
  }
  fs::path dir_;
};

TEST_F(HostileSpec, ReportNeedsAreCheckedBeforeAnyRun) {
  refused("[sweep.b]\nkind = \"burst\"\nmodel = \"free\"\nstrategy = \"full\"\nclients = 10\nmetrics = [\"latency\"]\n",
          "sweep.b.metrics must include \"drained\"");
  refused(
      "[sweep.s]\nkind = \"steady\"\nmodel = \"free\"\nstrategy = \"full\"\nrate = 0.1\nhorizon = 10\nthresholds = "
      "[5]\n",
      "sweep.s.per_run must include \"max_waiting\"");
  std::string bases;
  for (int i = 1; i <= 61; ++i) bases += (i > 1 ? ", " : "") + std::to_string(i);
  refused("[sweep.k]\nkind = \"sleep\"\nstrategy = \"full\"\nbase = [" + bases + "]\ncap = \"none\"\n",
          "at most 60 fit its figure");
  std::string rates, clients;
  for (int i = 0; i < 400; ++i) rates += (i ? ", " : "") + fmt::format("{}", 0.001 * (i + 1));
  for (int i = 0; i < 300; ++i) clients += (i ? ", " : "") + std::to_string(i + 1);
  refused("[sweep.g]\nkind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nhorizon = 10\nrate = [" + rates +
              "]\nclients = [" + clients + "]\n",
          "above the limit 100000");
  refused("[sweep.r]\nkind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nrate = 0.5\nhorizon = 1e300\n",
          "too long to simulate");
  // The work limit counts attempts: ten clients whose every attempt fails for 1e12 attempt-durations.
  refused(
      "[sweep.f]\nkind = \"grid\"\nmodel = \"none\"\nstrategy = \"none\"\nclients = 10\nfailure_prob = "
      "1\nhorizon = 1e12\n",
      "attempts, above the limit");
  // The study is bounded as a whole: two sweeps of 60,000 points each.
  std::string many;
  for (int i = 0; i < 300; ++i) many += (i ? ", " : "") + std::to_string(i + 1);
  const std::string big = "kind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nhorizon = 10\nclients = [" + many +
                          "]\nbase = [" + many.substr(0, many.find(", 201")) + "]\ncap = \"none\"\n";
  refused("[sweep.g1]\n" + big + "[sweep.g2]\n" + big, "sweep.g2 brings the study's quick scale to 1.2e+05 points");
}

TEST_F(HostileSpec, SweepNamesArePlainFileNames) {
  for (const char* name : {"a/b", "../../escaped", "", ".hidden", "a b", "-rf", "a\\nb", "a\\u0001"})
    refused(fmt::format("[sweep.\"{}\"]\nkind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nclients = 2\n", name),
            "names must be plain file names");
}

// The study's name is the default output folder: a plain file name too. And no two outputs of a
// study share a file name, ignoring case (docs/study-spec.md, "Names and text").
TEST_F(HostileSpec, StudyNamesAndCollidingOutputsAreRefused) {
  const std::string grid = "kind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nclients = 2\n";
  for (const char* name : {"../x", "-rf", "a\\nb", ".."}) {
    write(dir_ / "n.toml", fmt::format("[study]\nname = \"{}\"\n[sweep.s]\n{}", name, grid));
    expect_refused({"run", (dir_ / "n.toml").string()}, 2, "study.name must be a plain file name");
  }
  EXPECT_FALSE(fs::exists("x")) << "a folder was made for a refused study name";
  fs::remove(dir_ / "n.toml");  // refused() wants the spec it writes alone in dir_
  refused(
      "[sweep.a]\nkind = \"steady\"\nmodel = \"free\"\nstrategy = \"full\"\nrate = 0.1\nhorizon = "
      "10\n[sweep.A_latency]\n" +
          grid,
      "which sweep a writes");
  refused("[sweep.readme]\n" + grid, "which the study itself writes");
}

// ---- 5, 6: no silent defaults, no accepted conflicts --------------------------------------
TEST(Hostile, EmptyAndMalformedNumbersNameTheFlag) {
  for (const char* flag : {"--seed", "--rate", "--warmup", "--threads", "--horizon", "--base", "--clients"})
    expect_refused(with(sim, {"--clients", "3", flag, ""}), 2, std::string(flag) + " must not be empty");
  expect_refused(with(sim, {"--clients", "3", "--horizon", "0"}), 2, "--horizon must be a finite number > 0");
  for (const char* seed : {"-1", "18446744073709551616", "1e23", "0x10", " 1"})
    expect_refused(with(sim, {"--clients", "3", "--seed", seed}), 2,
                   "--seed must be a decimal integer in [0, 18446744073709551615]");
  expect_refused(with(sim, {"--clients", "3", "--base", "0x10"}), 2, "--base must be a finite number");
  expect_refused(with(sim, {"--clients", "3", "--rate", "nan"}), 2, "--rate must be a finite number");
  expect_refused(with(sim, {"--clients", "3", "--base", "1e999"}), 2, "--base must be a finite number");
  expect_refused({"analytic", "sleep", "--strategy", "full", "--retry", "0x2"}, 2, "--retry must be a decimal integer");
  expect_refused({"analytic", "budget", "--preset", "custom"}, 2, "--capacity is required with --preset custom");
  expect_refused({"analytic", "budget", "--preset", "custom", "--capacity", "10", "--cost", "1"}, 2,
                 "--refund is required");
  expect_refused({"run", "x.toml", "--out", ""}, 2, "--out must not be empty");
  expect_refused({"validate", "--out", ""}, 2, "--out must not be empty");
  // The largest seed is a seed, not an error.
  EXPECT_EQ(run_child(with(sim, {"--clients", "3", "--runs", "1", "--seed", "18446744073709551615"})).status, 0);
  const Child custom = run_child(
      {"analytic", "budget", "--preset", "custom", "--capacity", "10", "--cost", "1", "--refund", "0", "--json"});
  EXPECT_EQ(custom.status, 0) << custom.err;
}

TEST(Hostile, ConflictingFlagsAreRefused) {
  expect_refused(with(sim, {"--clients", "3", "--json", "--format", "csv"}), 2, "--format excludes --json");
  expect_refused({"reproduce", "papers/x", "--validate", "--no-validate"}, 2, "--validate excludes --no-validate");
  expect_refused({"bogus"}, 2, "unknown command \"bogus\"");
}

// ---- 7: check validates every field ---------------------------------------------------------
class HostileTrace : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir("trace");
    const Child c = run_child(with(sim, {"--clients", "3", "--runs", "2", "--trace", (dir_ / "t.csv").string()}));
    ASSERT_EQ(c.status, 0) << c.err;
    std::ifstream in(dir_ / "t.csv");
    for (std::string l; std::getline(in, l);) lines_.push_back(l);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t find(const std::string& prefix, std::size_t from = 0) const {
    for (std::size_t i = from; i < lines_.size(); ++i)
      if (lines_[i].rfind(prefix, 0) == 0) return i;
    ADD_FAILURE() << "no line starting " << prefix;
    return 0;
  }
  // The trace with `edit` applied, checked: exit `status` naming `needle`.
  void check(const std::function<void(std::vector<std::string>&)>& edit, int status, const std::string& needle) {
    auto l = lines_;
    edit(l);
    std::string text;
    for (const auto& x : l) text += x + "\n";
    write(dir_ / "e.csv", text);
    if (status == 0) {
      const Child c = run_child({"check", (dir_ / "e.csv").string()});
      EXPECT_EQ(c.status, 0) << c.err << c.out;
    } else {
      expect_refused({"check", (dir_ / "e.csv").string()}, status, needle);
    }
  }
  fs::path dir_;
  std::vector<std::string> lines_;
};

TEST_F(HostileTrace, MalformedRowsAndHeadersAreExit2WithLineAndField) {
  const std::size_t first_row = find("run,client") + 1, second_row = first_row + 1;
  check([](auto&) {}, 0, "");  // the trace as written passes
  check([&](auto& l) { l[second_row] = l[second_row].substr(0, l[second_row].rfind(',')); }, 2,
        fmt::format("line {}: burst is missing", second_row + 1));
  check(
      [&](auto& l) {
        l[first_row - 1] = "run,client,arrival,start,end,outcome,retry,sleep";
        l[second_row] += "";  // rows still have 9 fields: the 9th is one too many under 8 columns
      },
      2, fmt::format("line {}: row has too many fields", first_row + 1));
  for (const char* runs : {"abc", "-3", "0"})
    check([&](auto& l) { l[find("# runs=")] = std::string("# runs=") + runs; }, 2, "runs must be an integer >= 1");
  check([&](auto& l) { l[find("# runs=")] = "# runs=5"; }, 2, "runs is 5 in the header but the trace ends 2 runs");
  check([&](auto& l) { l[find("# runs=")] = "# runs=1"; }, 2, "run must be below the header's runs=1");
  check(
      [&](auto& l) {
        std::string& r = l[first_row];  // "0,0,0,0,1,success,0,,1": give retry 0 a sleep
        const auto p = r.rfind(",,");
        r = r.substr(0, p) + ",0.5," + r.substr(p + 2);
      },
      2, fmt::format("line {}: sleep must be empty on a retry-0 row", first_row + 1));
  check([&](auto& l) { l[find("# run_end run=0")] = "# run_end run=0 stop=finished stop_time=0.5"; }, 2,
        "stop_time must be >= the end");
  check([&](auto& l) { l.resize(first_row); }, 2, "no attempt rows: nothing to check");
}

// ---- 9: special files, failing writes -------------------------------------------------------
TEST(Hostile, TraceNeverReplacesANonRegularFile) {
  const fs::path d = fresh_dir("special");
  write(d / "real.csv", "keep");
  fs::create_symlink(d / "real.csv", d / "link.csv");
  ASSERT_EQ(::mkfifo((d / "fifo.csv").c_str(), 0644), 0);
  for (const char* name : {"link.csv", "fifo.csv"})
    expect_refused(with(sim, {"--clients", "3", "--trace", (d / name).string()}), 2,
                   "--trace must be a new or regular file");
  EXPECT_TRUE(fs::is_symlink(d / "link.csv"));
  EXPECT_TRUE(fs::is_fifo(d / "fifo.csv"));
  EXPECT_EQ(retrylab::test::slurp(d / "real.csv"), "keep");
  expect_refused(with(sim, {"--clients", "3", "--trace", (d / "no" / "t.csv").string()}), 2,
                 "--trace must name a file in an existing folder");
  fs::remove_all(d);
}

TEST(Hostile, StdoutWriteErrorsAreExit1) {
  expect_refused(with(sim, {"--clients", "3", "--runs", "2", "--json"}), 1, "cannot write to standard output",
                 "/dev/full");
  expect_refused({"simulate", "--help"}, 1, "cannot write to standard output", "/dev/full");
  expect_refused({"analytic", "sleep", "--strategy", "full", "--retry", "3"}, 1, "cannot write to standard output",
                 "/dev/full");
}

TEST(Hostile, UnwritableOutIsExit2ForEveryCommand) {
  const fs::path d = fresh_dir("out");
  write(d / "file", "x");
  const std::string bad = (d / "file" / "sub").string();  // a folder below a regular file: never creatable
  expect_refused({"validate", "--cases", "none", "--out", bad}, 2, "--out must be a folder retrylab can write");
  write(d / "s.toml",
        "[study]\nname = \"h\"\n[sweep.a]\nkind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nclients = 2\n");
  expect_refused({"run", (d / "s.toml").string(), "--out", bad}, 2, "--out must be a folder retrylab can write");
  fs::remove_all(d);
}

// A full disk, simulated by RLIMIT_FSIZE (writes past it fail with EFBIG): the write is reported
// naming the file, the old target keeps its bytes, and no temporary is left.
TEST(Hostile, AFailedWriteLeavesNoTruncatedFile) {
  const fs::path d = fresh_dir("full");
  write(d / "t.csv", "old");
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    retrylab::write_file_atomic(d / "t.csv", std::string(100000, 'x'));
  } catch (const retrylab::OutputError& e) {
    threw = std::string(e.what()).find((d / "t.csv").string()) != std::string::npos;
  }
  // The CLI child inherits the limit: a trace too large for the "disk" is exit 1 naming the file.
  const Child c = run_child(with(sim, {"--clients", "200", "--runs", "5", "--trace", (d / "t.csv").string()}));
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
  EXPECT_TRUE(threw);
  EXPECT_EQ(c.status, 1) << c.err;
  EXPECT_NE(c.err.find("cannot write " + (d / "t.csv").string()), std::string::npos) << c.err;
  EXPECT_EQ(retrylab::test::slurp(d / "t.csv"), "old");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(d)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);  // no temporary left beside it
  fs::remove_all(d);
}

// ---- 10: help states the real limits --------------------------------------------------------
TEST(Hostile, HelpStatesTheLimitsTheChecksUse) {
  const Child s = run_child({"simulate", "--help"});
  ASSERT_EQ(s.status, 0);
  namespace mc = retrylab::montecarlo;
  for (const std::string& want : {fmt::format("[0, {}]", mc::max_clients), fmt::format("[1, {}]", mc::max_collapse),
                                  fmt::format("[1, {}]", mc::max_rows), fmt::format("[0, {}]", mc::max_limit),
                                  fmt::format("[0, {:g}]", mc::max_service_cv), fmt::format("[1, {}]", mc::max_limit),
                                  std::string("--max-memory")})
    EXPECT_NE(s.out.find(want), std::string::npos) << want;  // the field table prints each range
  const Child a = run_child({"analytic", "sleep", "--help"});
  EXPECT_NE(a.out.find(fmt::format("[1, {}]", retrylab::max_sleep_retry)), std::string::npos);
  const Child r = run_child({"run", "--help"});
  EXPECT_NE(r.out.find("RETRYLAB_CERTIFICATE_DIR"), std::string::npos);
  // And the checks agree with the help: one past each stated limit is refused.
  expect_refused(with(sim, {"--clients", std::to_string(mc::max_clients + 1)}), 2,
                 fmt::format("--clients must be an integer in [0, {}]", mc::max_clients));
  expect_refused(with(sim, {"--clients", "3", "--rows", std::to_string(mc::max_rows + 1)}), 2, "--rows");
  expect_refused({"analytic", "sleep", "--strategy", "full", "--retry", std::to_string(retrylab::max_sleep_retry + 1)},
                 2, "--retry must be an integer in");
}

// ---- the property: random short argument vectors ------------------------------------------
// 200 vectors of 1-8 tokens (fixed seed via RC_PARAMS in CMake) drawn from subcommands, flags and
// hostile values; `validate` and `--validate` are left out (they run the catalogue, a minute).
RC_GTEST_PROP(HostileProperty, RandomArgumentsExitWith0_1Or2, ()) {
  static const std::vector<std::string> tokens = {"simulate",
                                                  "analytic",
                                                  "check",
                                                  "run",
                                                  "reproduce",
                                                  "sleep",
                                                  "budget",
                                                  "aloha",
                                                  "--model",
                                                  "free",
                                                  "collision",
                                                  "shared",
                                                  "ps",
                                                  "brooker",
                                                  "--strategy",
                                                  "full",
                                                  "none",
                                                  "nojitter",
                                                  "window",
                                                  "--clients",
                                                  "--rate",
                                                  "--horizon",
                                                  "--runs",
                                                  "--seed",
                                                  "--base",
                                                  "--cap",
                                                  "--window",
                                                  "--format",
                                                  "--json",
                                                  "csv",
                                                  "--trace",
                                                  "/dev/null",
                                                  "--out",
                                                  "/nonexistent/x",
                                                  "--retry",
                                                  "--preset",
                                                  "custom",
                                                  "--help",
                                                  "",
                                                  "-1",
                                                  "0",
                                                  "1",
                                                  "3",
                                                  "0.5",
                                                  "0x10",
                                                  "nan",
                                                  "inf",
                                                  "1e308",
                                                  "1e-320",
                                                  "18446744073709551616",
                                                  "none",
                                                  "--threads",
                                                  "--collapse",
                                                  "--rows",
                                                  "--limit",
                                                  "--aimd",
                                                  "on",
                                                  "--timeout",
                                                  "--max-attempts",
                                                  "--resume",
                                                  "--scale",
                                                  "quick",
                                                  "papers/x",
                                                  "=",
                                                  "--",
                                                  "-",
                                                  "--quiet",
                                                  "\xff"};
  const auto n = *rc::gen::inRange<std::size_t>(1, 9);
  Args args;
  for (std::size_t i = 0; i < n; ++i) args.push_back(*rc::gen::elementOf(tokens));
  const fs::path cwd = fs::temp_directory_path() / fmt::format("retrylab_prop_{}", ::getpid());
  fs::create_directories(cwd);
  const Child c = run_child(args, 20.0, "", cwd.string());
  std::string shown;
  for (const auto& a : args) shown += " '" + a + "'";
  RC_ASSERT_FALSE(c.timed_out);
  RC_ASSERT(c.signal == 0);
  RC_ASSERT(c.status == 0 || c.status == 1 || c.status == 2);
  if (c.status == 2) RC_ASSERT(std::count(c.err.begin(), c.err.end(), '\n') >= 1);
  RC_TAG(c.status);
  (void)shown;
}

}  // namespace hostile_test
