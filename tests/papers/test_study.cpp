// Running a study: golden outputs of a tiny study (exact bytes; regenerate with
// RETRYLAB_UPDATE_GOLDEN=1), the same bytes for 1 and 2 threads, byte-identical outputs after a
// kill at a random moment and --resume, the results store's partial-line handling, and rendering
// (files exist, valid SVG/PNG headers, gnuplot exit 0).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "papers/render.hpp"
#include "papers/spec.hpp"
#include "papers/store.hpp"
#include "papers/study.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef RETRYLAB_TEST_DIR
#error "RETRYLAB_TEST_DIR must name tests/papers"
#endif

namespace retrylab::papers::test_study {
namespace {

namespace fs = std::filesystem;

const fs::path test_dir = RETRYLAB_TEST_DIR;

using retrylab::test::slurp;

fs::path fresh_dir(const std::string& name) { return retrylab::test::fresh_dir("papers-" + name); }

using retrylab::test::all_files;

StudyOptions options(const fs::path& out, int threads, bool resume = false) {
  StudyOptions o;
  o.out = out;
  o.threads = threads;
  o.resume = resume;
  o.quiet = true;
  o.certificate_id = "test-certificate";
  return o;
}

StudySpec tiny() { return parse_study_file(test_dir / "tiny_study.toml", "quick"); }

TEST(Study, GoldenOutputsAndThreadIndependence) {
  const fs::path one = fresh_dir("golden1"), two = fresh_dir("golden2");
  run_study(tiny(), options(one, 1));
  run_study(tiny(), options(two, 2));
  const auto a = all_files(one), b = all_files(two);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) EXPECT_EQ(bytes, b.at(name)) << name << " differs between 1 and 2 threads";
  // Golden: the text outputs (tables and gnuplot scripts); SVG/PNG bytes belong to gnuplot's version.
  const int compared = retrylab::test::expect_goldens(a, test_dir / "golden", {".md", ".csv", ".tex", ".gp", ".jsonl"});
  if (!retrylab::test::update_golden()) {
    EXPECT_GE(compared, 20);
  }
}

// Runs the study in a child process and kills it with `sig` after `delay`; returns true if the
// child was still running when the signal arrived.
bool run_and_kill(const fs::path& out, int sig, std::chrono::microseconds delay, bool resume) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, as a job in a shell: the signal reaches its gnuplots too
    try {
      run_study(tiny(), options(out, 2, resume));
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  setpgid(pid, pid);  // either side may run first
  std::this_thread::sleep_for(delay);
  // The whole group, as Ctrl-C or a killed job: a gnuplot the run started could otherwise still be
  // writing its figure when the resume below writes the same one (a real resume comes later).
  kill(-pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return WIFSIGNALED(status);
}

TEST(Study, KilledAtARandomMomentThenResumedGivesTheSameBytes) {
  const fs::path ref = fresh_dir("ref");
  const auto t0 = std::chrono::steady_clock::now();
  run_study(tiny(), options(ref, 2));
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  const auto expected = all_files(ref);
  // Fixed seed for the kill moments: reproducible, spread over the whole run (simulation and rendering).
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<long> when(0, whole.count());
  int killed = 0;
  for (int sig : {SIGKILL, SIGTERM, SIGINT, SIGKILL, SIGKILL}) {
    const fs::path out = fresh_dir("killed");
    // A kill that comes after the run ended (this one ran faster than the reference, on a machine
    // whose load changed) is tried again at half the moment, so the kills land while the study runs.
    long at = when(rng);
    bool landed = false;
    for (int tries = 0; tries < 4 && !landed; ++tries, at /= 2)
      landed = run_and_kill(out, sig, std::chrono::microseconds(at), false);
    killed += landed ? 1 : 0;
    // A second kill during the resume, then a resume to the end.
    run_and_kill(out, SIGKILL, std::chrono::microseconds(when(rng) / 2), true);
    run_study(tiny(), options(out, 1, true));
    const auto got = all_files(out);
    ASSERT_EQ(got.size(), expected.size()) << "signal " << sig;
    for (const auto& [name, bytes] : expected) EXPECT_EQ(got.at(name), bytes) << name << " after signal " << sig;
  }
  EXPECT_GE(killed, 3) << "the kills should mostly land while the study runs";
}

TEST(Store, PartialLastLineIsCutOffOnResume) {
  const fs::path dir = fresh_dir("store");
  const nlohmann::json header = {{"h", 1}};
  {
    ResultsStore s(dir, header, false);
    s.append({{"sweep", "a"}, {"point", 0}, {"x", 1.5}});
    s.append({{"sweep", "a"}, {"point", 1}, {"x", 2.5}});
  }
  const std::string whole = slurp(dir / "results.jsonl");
  {  // a kill in the middle of the third line
    std::ofstream(dir / "results.jsonl", std::ios::app) << R"({"sweep":"a","point":2,"x":)";
  }
  ResultsStore s(dir, header, true);
  EXPECT_TRUE(s.has("a", 0));
  EXPECT_TRUE(s.has("a", 1));
  EXPECT_FALSE(s.has("a", 2));
  EXPECT_EQ(slurp(dir / "results.jsonl"), whole);
  s.append({{"sweep", "a"}, {"point", 2}, {"x", 3.5}});
  EXPECT_EQ(read_results(dir / "results.jsonl").size(), 3u);
  // A different header (other spec, scale or seed) refuses to resume.
  EXPECT_THROW(ResultsStore(dir, nlohmann::json{{"h", 2}}, true), InputError);
  // Without resume the file starts over.
  ResultsStore fresh(dir, header, false);
  EXPECT_FALSE(fresh.has("a", 0));
  EXPECT_EQ(slurp(dir / "results.jsonl"), header.dump() + "\n");
}

// --resume with a damaged record (no summary) reused it and the report failed on it (exit 3); a
// foreign record (a point the study does not have) was carried along. Both are refused (exit 2),
// naming the file; the undamaged file still resumes.
TEST(Store, ResumeRefusesDamagedAndForeignRecords) {
  const fs::path dir = fresh_dir("resume-damaged");
  run_study(tiny(), options(dir, 1));
  const std::string whole = slurp(dir / "results.jsonl");
  const auto refused = [&](const std::string& text, const std::string& needle) {
    std::ofstream(dir / "results.jsonl", std::ios::binary | std::ios::trunc) << text;
    try {
      run_study(tiny(), options(dir, 1, true));
      ADD_FAILURE() << "resumed: " << needle;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--resume");
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  std::string no_summary = whole;
  no_summary.replace(no_summary.find("\"summary\""), 9, "\"summery\"");
  refused(no_summary, "has no summary");
  std::string foreign = whole;
  const std::string sweep = nlohmann::json::parse(
      whole.substr(whole.find('\n') + 1, whole.find('\n', whole.find('\n') + 1) - whole.find('\n') - 1))["sweep"];
  foreign += nlohmann::json{{"sweep", sweep}, {"point", 9999}, {"canonical", "x"}}.dump() + "\n";
  refused(foreign, "records point 9999 of sweep \"" + sweep + "\", which this study does not have");
  std::ofstream(dir / "results.jsonl", std::ios::binary | std::ios::trunc) << whole;
  EXPECT_NO_THROW(run_study(tiny(), options(dir, 1, true)));
}

TEST(Render, FiguresAreValidSvgAndPngAndTablesHaveEveryFormat) {
  const fs::path dir = fresh_dir("render");
  Figure f{"probe",
           datablock("d", {{1, 2}, {2, 4}, {3, 9}}) +
               "set title \"probe\"\nplot $d using 1:2 with linespoints title \"x^2\"\n",
           400, 300};
  const auto files = render_figure(f, dir, {"cert-1"});
  ASSERT_EQ(files.size(), 3u);
  const std::string svg = slurp(dir / "probe.svg"), png = slurp(dir / "probe.png");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_NE(slurp(dir / "probe.gp").find("cert-1"), std::string::npos);
  // A script gnuplot rejects is an error carrying gnuplot's message, not a silent empty figure.
  EXPECT_THROW(render_figure(Figure{"broken", "plot $nothing using 1:2\n", 400, 300}, dir, {}), std::runtime_error);
  Table t{"tab", "A table", {"name", "value", "estimate"}, {{std::string("a_b"), 1.5, Estimate{2, 1, 3}}}, {"a note"}};
  write_table(t, dir, {"cert-1"});
  EXPECT_NE(slurp(dir / "tab.md").find("| a_b | 1.5 | 2 [1, 3] |"), std::string::npos);
  EXPECT_NE(slurp(dir / "tab.tex").find("\\toprule"), std::string::npos);
  EXPECT_NE(slurp(dir / "tab.tex").find("a\\_b"), std::string::npos);
  EXPECT_EQ(slurp(dir / "tab.csv"), "name,value,estimate,estimate lo,estimate hi,certificate\na_b,1.5,2,1,3,cert-1\n");
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().extension(), ".tmp") << e.path();
}

}  // namespace
}  // namespace retrylab::papers::test_study
