// Study spec parsing: a good file expands to the expected points; every kind of bad input is an
// error naming the key and its line (expected lines are those of the TOML texts written below).
#include <gtest/gtest.h>

#include <string>

#include "papers/spec.hpp"

namespace retrylab::papers {
namespace {

const char* const good = R"(
[study]
name = "t"
seed = 3

[sweep.a]
kind = "steady"
runs = 4
model = ["collision", "shared"]
strategy = "full"
rate = [0.1, 0.2, 0.3]
horizon = 100
thresholds = [10, 3000]
per_run = ["max_waiting"]
  [sweep.a.quick]
  runs = 2
  rate = [0.1]

[sweep.b]
kind = "frontier"
clients = 5
  [[sweep.b.grid]]
  strategy = ["full", "equal"]
  cap = [10, "none"]
  [[sweep.b.grid]]
  strategy = "window"
  window = [3, 6, 9]

[sweep.c]
kind = "sleep"
strategy = ["full", "decorrelated"]
retry_max = 4
draws = 100
)";

TEST(Spec, GoodFileExpandsGridsInFileOrderAtEachScale) {
  const StudySpec full = parse_study_text(good, "good.toml", "full");
  ASSERT_EQ(full.sweeps.size(), 3u);
  EXPECT_EQ(full.sweeps[0].name, "a");  // file order, not toml++'s sorted order
  EXPECT_EQ(full.sweeps[1].name, "b");
  EXPECT_EQ(full.sweeps[2].name, "c");
  EXPECT_EQ(full.sweeps[0].runs, 4);
  EXPECT_EQ(full.sweeps[0].seed, 3u);
  ASSERT_EQ(full.sweeps[0].points.size(), 6u);  // 2 models x 3 rates, last field fastest
  EXPECT_EQ(full.sweeps[0].points[0].scenario.model, Model::collision);
  EXPECT_DOUBLE_EQ(full.sweeps[0].points[1].scenario.rate, 0.2);
  EXPECT_EQ(full.sweeps[0].points[3].scenario.model, Model::shared);
  EXPECT_EQ(full.sweeps[1].points.size(), 4u + 3u);  // union of the two grid blocks
  EXPECT_TRUE(std::isinf(full.sweeps[1].points[1].scenario.backoff.cap));
  EXPECT_EQ(full.sweeps[1].points[4].scenario.backoff.strategy, Strategy::window);
  EXPECT_DOUBLE_EQ(full.sweeps[1].points[6].scenario.backoff.window, 9.0);
  EXPECT_EQ(full.sweeps[2].points.size(), 2u * 4u);  // strategies x retry k
  EXPECT_EQ(full.sweeps[2].points[3].retry, 4);

  const StudySpec quick = parse_study_text(good, "good.toml", "quick");
  EXPECT_EQ(quick.sweeps[0].runs, 2);
  EXPECT_EQ(quick.sweeps[0].points.size(), 2u);
  EXPECT_EQ(quick.source_hash, full.source_hash);
}

// Expects a SpecError whose text names `key` and `file:line`.
void expect_error(const std::string& text, const std::string& key, int line, const std::string& scale = "quick") {
  try {
    parse_study_text(text, "bad.toml", scale);
    ADD_FAILURE() << "no error for key " << key;
  } catch (const SpecError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_EQ(e.line(), line) << what;
    EXPECT_NE(what.find("bad.toml:" + std::to_string(line) + ":"), std::string::npos) << what;
  }
}

const std::string head = "[study]\nname = \"t\"\n[sweep.s]\nkind = \"grid\"\n";  // lines 1-4

TEST(Spec, UnknownKeysAreErrors) {
  expect_error(head + "runz = 3\n", "sweep.s.runz", 5);
  expect_error(head + "[sweep.s.quick]\nmodle = \"free\"\n", "sweep.s.quick.modle", 6);
  expect_error("[study]\nname = \"t\"\ncolour = 1\n[sweep.s]\n", "study.colour", 3);
  expect_error(head + "[[sweep.s.grid]]\nrunns = 1\n", "sweep.s.grid[0].runns", 6);
}

TEST(Spec, WrongTypesAreErrors) {
  expect_error(head + "runs = \"many\"\n", "sweep.s.runs", 5);
  expect_error(head + "clients = 2.5\n", "sweep.s.clients", 5);
  expect_error(head + "model = 3\n", "sweep.s.model", 5);
  expect_error(head + "rate = [0.1, \"x\"]\n", "sweep.s.rate[1]", 5);
  expect_error(head + "metrics = [\"latency\", \"speed\"]\n", "sweep.s.metrics[1]", 5);
}

TEST(Spec, OutOfRangeValuesAreErrors) {
  expect_error(head + "runs = 0\n", "sweep.s.runs", 5);
  expect_error(head + "cap = -1\n", "sweep.s.cap", 5);
  expect_error(head + "strategy = \"fancy\"\n", "sweep.s.strategy", 5);
  // Checked per point by the engine's own rules: cap below base, steady traffic without horizon.
  expect_error(head + "clients = 3\nbase = 8\ncap = [4, 16]\n", "sweep.s.cap", 7);
  expect_error(head + "rate = 0.1\n", "sweep.s", 3);
  // A bad value in the scale not being run is still an error.
  expect_error(head + "clients = 3\n[sweep.s.full]\nruns = -4\n", "sweep.s.full.runs", 7, "quick");
}

TEST(Spec, MalformedTomlNamesTheLine) {
  expect_error("[study]\nname = \"t\"\n\nx = = 3\n", "toml", 4);
  expect_error("[study]\nname = \"t\"\n", "sweep", 1);
}

TEST(Spec, ThresholdsAboveTheCollapseAreErrors) {
  expect_error(head.substr(0, head.size() - 14) +
                   "kind = \"steady\"\nrate = 0.1\nhorizon = 10\ncollapse = 50\nthresholds = [10, 60]\n",
               "sweep.s.thresholds", 3);
}

}  // namespace
}  // namespace retrylab::papers
