// Study spec parsing: a good file expands to the expected points; every kind of bad input is an
// error naming the key and its line (expected lines are those of the TOML texts written below).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <string>

#include "papers/spec.hpp"

namespace retrylab::papers::test_spec {
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
  EXPECT_DOUBLE_EQ(full.sweeps[0].points[1].scenario.traffic.rate, 0.2);
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

// A second seed: replica_seed runs every sweep again as NAME@2 (after every primary, same points,
// its own seed), except those that say replicate = false; --seed keeps the two seeds apart.
TEST(Spec, ReplicaSeedRunsEverySweepAgainUnderASecondSeed) {
  std::string text = good;
  text.replace(text.find("seed = 3"), 8, "seed = 3\nreplica_seed = 4");
  text.replace(text.find("kind = \"sleep\""), 14, "kind = \"sleep\"\nreplicate = false");
  const StudySpec s = parse_study_text(text, "r.toml", "full");
  ASSERT_EQ(s.sweeps.size(), 5u);
  EXPECT_EQ(s.sweeps[3].name, "a@2");
  EXPECT_EQ(s.sweeps[3].replica_of, "a");
  EXPECT_EQ(s.sweeps[3].seed, 4u);
  EXPECT_EQ(s.sweeps[4].name, "b@2");
  EXPECT_EQ(s.sweeps[3].points.size(), s.sweeps[0].points.size());
  EXPECT_EQ(canonical(s.sweeps[4].points[2], s.sweeps[4].kind), canonical(s.sweeps[1].points[2], s.sweeps[1].kind));
  EXPECT_EQ(replica_of(s, "c"), nullptr);  // replicate = false
  ASSERT_NE(replica_of(s, "a"), nullptr);
  StudySpec reseeded = s;
  reseed(reseeded, 10);
  EXPECT_EQ(reseeded.sweeps[0].seed, 10u);
  EXPECT_EQ(reseeded.sweeps[3].seed, 11u);
  // One seed twice is not two seeds.
  std::string same = good;
  same.replace(same.find("seed = 3"), 8, "seed = 3\nreplica_seed = 3");
  try {
    parse_study_text(same, "same.toml", "full");
    ADD_FAILURE() << "a replica_seed equal to a sweep's seed was accepted";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("study.replica_seed must differ from sweep a's seed 3"), std::string::npos)
        << e.what();
  }
  std::string bad = text;
  bad.replace(bad.find("replicate = false"), 17, "replicate = 1");
  EXPECT_THROW(parse_study_text(bad, "bad.toml", "full"), SpecError);
}

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

// What a sweep's report reads is required when the spec is read, not found missing after every point
// ran: the checks table reads goodput (sojourn under ps), the classic table attempts per client and
// makespan, a threshold below the collapse the per-run peak backlog.
TEST(Spec, WhatAReportReadsIsRequiredBeforeTheRun) {
  const std::string checks = "[study]\nname = \"t\"\n[sweep.s]\nkind = \"checks\"\nretries = \"off\"\nhorizon = 100\n";
  expect_error(checks + "model = \"collision\"\nrate = 0.2\nmetrics = [\"sojourn\"]\n", "sweep.s.metrics", 3);
  expect_error(checks + "model = [\"free\", \"ps\"]\nrate = 0.2\nmetrics = [\"goodput\"]\n", "sweep.s.metrics", 3);
  EXPECT_NO_THROW(
      parse_study_text(checks + "model = \"ps\"\nrate = 0.2\nmetrics = [\"sojourn\"]\n", "ok.toml", "quick"));
  EXPECT_NO_THROW(parse_study_text(
      checks + "model = [\"free\", \"ps\"]\nrate = 0.2\nmetrics = [\"goodput\", \"sojourn\"]\n", "ok.toml", "quick"));
  const std::string classic = "[study]\nname = \"t\"\n[sweep.s]\nkind = \"classic\"\nclients = 3\nhorizon = 1000\n";
  expect_error(classic + "metrics = [\"latency\", \"makespan\"]\n", "sweep.s.metrics", 3);
  const std::string steady =
      "[study]\nname = \"t\"\n[sweep.s]\nkind = \"steady\"\nrate = 0.1\nhorizon = 10\ncollapse = 50\n";
  expect_error(steady + "thresholds = [10, 50]\n", "sweep.s.per_run", 3);
  EXPECT_NO_THROW(parse_study_text(steady + "thresholds = [50]\n", "ok.toml", "quick"));
}

// A study or sweep name becomes a path (out/NAME/SCALE, NAME.md, ...): anything but a plain file
// name is refused, on one line that says the allowed form and shows the name (control characters
// as \xNN).
TEST(Spec, NamesThatCouldLeaveTheOutputFolderAreErrors) {
  const std::string sweep = "[sweep.s]\nkind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nclients = 2\n";
  for (const char* name : {"../x", "a/b", "a\\\\b", "..", ".hidden", "-rf", "", "a\\u0000b", "a\\nb", "a\\rb",
                           "a\\u0001", "a\\u007f", "a b", "a.b"}) {
    const std::string text = fmt::format("[study]\nname = \"{}\"\n", name) + sweep;
    expect_error(text, "study.name", 2);
    try {
      parse_study_text(text, "bad.toml", "quick");
    } catch (const SpecError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.find('\r'), std::string::npos) << what;
      EXPECT_NE(what.find("letters, digits, '_' or '-', not starting with '-'"), std::string::npos) << what;
    }
  }
  for (const char* name : {"../x", "a/b", "a\\\\b", "..", ".hidden", "-rf", "", "a\\u0000b", "a\\nb", "a\\u001b"}) {
    const std::string text = fmt::format("[study]\nname = \"t\"\n[sweep.\"{}\"]\nkind = \"grid\"\nclients = 2\n", name);
    expect_error(text, "sweep", 3);
    try {
      parse_study_text(text, "bad.toml", "quick");
    } catch (const SpecError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("names must be plain file names"), std::string::npos) << e.what();
    }
  }
  // Plain names still parse, '-' and '_' inside them included.
  EXPECT_EQ(parse_study_text("[study]\nname = \"my-study_2\"\n" + sweep, "ok.toml", "quick").name, "my-study_2");
}

// Two outputs of one study may not have the same file name, ignoring case: a sweep named like a
// file another sweep derives from its name (steady's NAME_latency, burst's NAME_caps, ...), or like
// one of the study's own files (README.md, results.jsonl, figure1.*, published.*, ...).
TEST(Spec, SweepsWhoseFilesWouldCollideAreErrors) {
  const std::string grid = "kind = \"grid\"\nmodel = \"free\"\nstrategy = \"full\"\nclients = 2\n";  // 4 lines
  const std::string steady =
      "kind = \"steady\"\nmodel = \"free\"\nstrategy = \"full\"\nrate = 0.1\nhorizon = 10\n";  // 5 lines
  const std::string head = "[study]\nname = \"t\"\n";
  expect_error(head + "[sweep.a]\n" + steady + "[sweep.a_latency]\n" + grid, "sweep.a_latency", 9);
  expect_error(head + "[sweep.a_Latency]\n" + grid + "[sweep.a]\n" + steady, "sweep.a", 8);
  expect_error(head + "[sweep.Ab]\n" + grid + "[sweep.ab]\n" + grid, "sweep.ab", 8);
  for (const char* reserved :
       {"README", "readme", "results", "Results", "figure1", "published", "published_summary", "validation", "study"})
    expect_error(head + fmt::format("[sweep.{}]\n", reserved) + grid, fmt::format("sweep.{}", reserved), 3);
  try {
    parse_study_text(head + "[sweep.a]\n" + steady + "[sweep.A_LATENCY]\n" + grid, "bad.toml", "quick");
    ADD_FAILURE() << "no error";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("which sweep a writes"), std::string::npos) << e.what();
  }
  // Distinct names pass.
  EXPECT_EQ(
      parse_study_text(head + "[sweep.a]\n" + steady + "[sweep.a_lat]\n" + grid, "ok.toml", "quick").sweeps.size(), 2u);
}

}  // namespace
}  // namespace retrylab::papers::test_spec
