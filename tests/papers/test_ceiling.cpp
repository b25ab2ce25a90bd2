// Reports of paper 3 (papers/raising-the-ceiling): burst sweeps over server configurations
// get a "server" column and one line and figure panel per configuration (lines of different
// configurations are never merged); a sweep that records lost_fraction (client retry limits) gets the
// lost-fraction columns in its cost and burst tables; a steady sweep over several strategies and
// configurations gets the NAME_by_server table, one over configurations only the NAME_ceiling figure;
// every output has the same bytes on 1 and 2 threads.
// Paper 1 and 2 outputs are pinned by the golden tests of test_study.cpp and test_paper2.cpp.
// About 2 s (two runs of a tiny study, gnuplot included).
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "papers/spec.hpp"
#include "papers/study.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace retrylab::papers::test_ceiling {
namespace {

namespace fs = std::filesystem;

const char* const spec_text = R"(
[study]
name = "ceiling"
seed = 17

[sweep.b]
kind = "burst"
runs = 3
model = "shared"
strategy = "full"
clients = 20
rate = 0.05
cap = [50, 400]
horizon = 2000
metrics = ["drained", "drain_time", "drain_time_p99", "collapsed", "unfinished", "lost_fraction"]
  [[sweep.b.grid]]
  limit = 1000000000
  [[sweep.b.grid]]
  lock = true
  [[sweep.b.grid]]
  limit = 1000000000
  timeout = 5
  max_attempts = 3

[sweep.s]
kind = "steady"
runs = 3
model = "shared"
strategy = ["equal", "full"]
rate = [0.1, 0.5]
horizon = 500
collapse = 100
metrics = ["latency", "collapsed", "goodput", "reject_fraction", "latency_p99", "queue_wait", "lost_fraction"]
  [[sweep.s.grid]]
  limit = 1000000000
  [[sweep.s.grid]]
  limit = 1000000000
  timeout = 5
  max_attempts = 3

[sweep.c]
kind = "steady"
runs = 2
model = "shared"
strategy = "full"
rate = [0.1, 0.9]
horizon = 300
collapse = 50
metrics = ["latency", "collapsed", "goodput"]
  [[sweep.c.grid]]
  limit = 1000000000
  [[sweep.c.grid]]
  lock = true
)";

using retrylab::test::slurp;

// Text outputs (tables, gnuplot scripts, results store) by file name.
std::map<std::string, std::string> text_outputs(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto ext = e.path().extension().string();
    if (ext == ".md" || ext == ".csv" || ext == ".tex" || ext == ".gp" || ext == ".jsonl")
      out[e.path().filename().string()] = slurp(e.path());
  }
  return out;
}

fs::path run(int threads) {
  const fs::path out = retrylab::test::fresh_path("papers-ceiling-" + std::to_string(threads));
  StudyOptions o;
  o.out = out;
  o.threads = threads;
  o.quiet = true;
  o.certificate_id = "test-certificate";
  run_study(parse_study_text(spec_text, "ceiling.toml", "quick"), o);
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

class Ceiling : public ::testing::Test {
 protected:
  // Both runs once for the suite; an exception is kept and fails every test (never a skip).
  static void SetUpTestSuite() {
    try {
      one_ = new fs::path(run(1));
      two_ = new fs::path(run(2));
    } catch (const std::exception& e) {
      error_ = new std::string(e.what());
    }
  }
  static void TearDownTestSuite() {
    for (fs::path* p : {one_, two_})
      if (p) fs::remove_all(*p);
    delete one_;
    delete two_;
    delete error_;
  }
  void SetUp() override {
    ASSERT_TRUE(error_ == nullptr && one_ && two_) << (error_ ? *error_ : std::string("no run"));
  }
  static fs::path* one_;
  static fs::path* two_;
  static std::string* error_;
};
fs::path* Ceiling::one_ = nullptr;
fs::path* Ceiling::two_ = nullptr;
std::string* Ceiling::error_ = nullptr;

TEST_F(Ceiling, SameBytesOnOneAndTwoThreads) {
  const auto a = text_outputs(*one_), b = text_outputs(*two_);
  ASSERT_GE(a.size(), 10u);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, text] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_EQ(text, b.at(name)) << name;
  }
}

TEST_F(Ceiling, BurstTablesHaveAServerColumnAndALineperConfiguration) {
  const std::string caps = slurp(*one_ / "b_caps.md");
  EXPECT_NE(caps.find("| model | strategy | server | steady load | burst B | cap threshold |"), std::string::npos)
      << caps;
  EXPECT_NE(caps.find("| lost fraction at threshold |"), std::string::npos) << caps;
  // Three configurations, one burst size: three lines, not one merged line.
  EXPECT_EQ(count(caps, "\n| shared | full | "), 3u) << caps;
  // With the lock every admitted attempt runs alone and succeeds (montecarlo/engine.hpp), so
  // every burst client succeeds on its first attempt: every run drains at the smallest cap (50).
  EXPECT_NE(caps.find("| shared | full | FIFO lock | 0.05 | 20 | 50 |"), std::string::npos) << caps;
  const std::string drain = slurp(*one_ / "b_drain.md");
  EXPECT_NE(drain.find("| model | strategy | server | steady load | burst B | cap | drained |"), std::string::npos)
      << drain;
  EXPECT_NE(drain.find("| unfinished | lost fraction |"), std::string::npos) << drain;
  EXPECT_EQ(count(drain, "\n| shared | full | "), 6u) << drain;  // 3 configurations x 2 caps
  // One figure panel per configuration.
  const std::string gp = slurp(*one_ / "b_drained.gp");
  EXPECT_NE(gp.find("shared | full | load 0.05 | FIFO lock"), std::string::npos);
  EXPECT_NE(gp.find("shared | full | load 0.05 | none (limit 10^9, never reached)"), std::string::npos);
  EXPECT_NE(gp.find("set multiplot layout 1,3"), std::string::npos);
}

TEST_F(Ceiling, SteadyCostTableHasTheLostColumns) {
  const std::string cost = slurp(*one_ / "s_cost.md");
  EXPECT_NE(cost.find("| model | strategy | server | sustainable load | last load with lost fraction ≤ 1% | load | "
                      "collapsed | goodput | "
                      "rejected fraction | lost fraction | mean latency | p99 latency | queue wait |"),
            std::string::npos)
      << cost;
  EXPECT_NE(cost.find("Last load with lost fraction ≤ 1%:"), std::string::npos) << cost;
  // Without a retry limit no client gives up: lost_fraction is exactly 0 in every run where a client
  // succeeded (montecarlo/result.hpp), and at load 0.1 over 500 units some client always succeeds.
  const std::string csv = slurp(*one_ / "s_cost.csv");
  EXPECT_NE(csv.find("full,\"none (limit 10^9, never reached)\","), std::string::npos) << csv;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  int baseline_rows = 0;
  while (std::getline(in, line)) {
    if (line.find("never reached)\",") == std::string::npos || line.find("timeout") != std::string::npos) continue;
    // Columns: model, strategy, server, sustainable load, last load with lost fraction <= 1%, load, collapsed,
    // goodput, rejected fraction, lost fraction, ...: the server label is quoted, so split after it.
    const auto rest = line.substr(line.find("\",") + 2);
    std::istringstream cells(rest);
    std::string cell;
    std::vector<std::string> c;
    while (std::getline(cells, cell, ',')) c.push_back(cell);
    ASSERT_GE(c.size(), 7u) << line;
    if (c[2] == "0.1") {
      EXPECT_EQ(c[6], "0") << line;
      ++baseline_rows;
    }
  }
  EXPECT_EQ(baseline_rows, 2) << csv;  // equal and full at load 0.1
  // The ceiling figure: only for one model and strategy over several configurations (sweep c, not s).
  EXPECT_FALSE(fs::exists(*one_ / "s_ceiling.gp"));
  ASSERT_TRUE(fs::exists(*one_ / "c_ceiling.gp"));
  const std::string cg = slurp(*one_ / "c_ceiling.gp");
  EXPECT_NE(cg.find("set ytics ('none (limit 10^9, never reached)' 0, 'FIFO lock' 1)"), std::string::npos) << cg;
  EXPECT_EQ(cg.find("at most 1% of requests lost"), std::string::npos);  // c records no lost_fraction
  // Several strategies and configurations: the side-by-side thresholds table.
  const std::string by = slurp(*one_ / "s_by_server.md");
  EXPECT_NE(by.find("| model | strategy | none (limit 10^9, never reached) |"), std::string::npos) << by;
}

}  // namespace
}  // namespace retrylab::papers::test_ceiling
