// The series sweep kind (papers/spec_series.hpp, papers/series_kind.hpp) and load_profile in study
// specs: a spec expands to one point per policy, bad keys are SpecErrors naming key and line, a
// profile's CSV file stays inside the spec's folder; a point's record is a pure function of (sweep,
// index) (1 and 2 threads, a resumed run: the same bytes), and its series summed over the bins gives
// the runs' totals. Recovery needs goodput and the backlog back and staying there: the committed
// series of the hedged policy's growing backlog is not recovered. Deterministic (fixed seeds), about 3 s.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "montecarlo/series.hpp"
#include "papers/kinds.hpp"
#include "papers/series_kind.hpp"
#include "papers/spec.hpp"
#include "papers/spec_series.hpp"
#include "papers/study.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace retrylab::papers::test_series_kind {
namespace {

namespace fs = std::filesystem;

// Lines 1-23 (the sweep), then bin (24) and three policies (25-32); "retry forever" is point 0.
const std::string head = R"([study]
name = "t"
seed = 7

[sweep.s]
kind = "series"
unit = "s"
attempt_duration = 0.01
runs = 3
model = "none"
strategy = "full"
base = 0.01
cap = 1
rate = 200
horizon = 20
warmup = 1
service = "exponential"
limit = 10
overflow = "queue"
timeout = 0.1
max_attempts = 3
outage_start = 5
outage_end = 10
)";
const std::string policies = R"(bin = 1
  [[sweep.s.policies]]
  name = "retry forever"
  max_attempts = 0
  [[sweep.s.policies]]
  name = "3 attempts"
  [[sweep.s.policies]]
  name = "budget, 'quoted' | <b>"
  budget = "aws-standard"
)";

void expect_error(const std::string& text, const std::string& key, int line) {
  try {
    parse_study_text(text, "bad.toml", "quick");
    ADD_FAILURE() << "no error for key " << key;
  } catch (const SpecError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_EQ(e.line(), line) << what;
  }
}

TEST(SeriesSpec, OnePointPerPolicyInFileOrder) {
  const StudySpec spec = parse_study_text(head + policies, "good.toml", "full");
  ASSERT_EQ(spec.sweeps.size(), 1u);
  const SweepSpec& sw = spec.sweeps[0];
  EXPECT_EQ(sw.kind, SweepKind::series);
  ASSERT_EQ(sw.points.size(), 3u);
  EXPECT_EQ(sw.points[0].label, "retry forever");
  EXPECT_EQ(sw.points[0].scenario.client.max_attempts, 0);
  EXPECT_EQ(sw.points[1].scenario.client.max_attempts, 3);  // the sweep's value
  EXPECT_EQ(sw.points[2].label, "budget, 'quoted' | <b>");
  EXPECT_EQ(sw.points[2].scenario.traffic.rate, 2.0);  // 200 per s, 0.01 s per attempt-duration
  EXPECT_DOUBLE_EQ(sw.series.bin, 100.0);              // 1 s in attempt-durations
  EXPECT_DOUBLE_EQ(sw.series.event_start, 500.0);      // the outage window, as no event is given
  EXPECT_DOUBLE_EQ(sw.series.event_end, 1000.0);
  EXPECT_DOUBLE_EQ(sw.series.recover_over, 500.0);  // 5 bins by default
  EXPECT_EQ(output_stems(sw), (std::vector<std::string>{"s", "s_tail", "s_series", "s_goodput", "s_backlog",
                                                        "s_server_queue", "s_latency"}));
}

TEST(SeriesSpec, LoadProfileIsSetOnEveryPointInTheSweepsUnit) {
  std::string text = head + policies;
  text.replace(text.find("rate = 200\n"), 11, "load_profile = \"step:0:200,8:400,12:200\"\n");
  const StudySpec spec = parse_study_text(text, "good.toml", "quick");
  for (const auto& p : spec.sweeps[0].points) {
    EXPECT_EQ(p.scenario.traffic.load_profile, montecarlo::LoadProfile::parse("step:0:2,800:4,1200:2"));
    EXPECT_NE(canonical(p, SweepKind::series).find("load_profile=step:"), std::string::npos);
  }
}

StudyOptions options(const fs::path& out, int threads, bool resume = false) {
  StudyOptions o;
  o.out = out;
  o.threads = threads;
  o.quiet = true;
  o.resume = resume;
  o.certificate_id = "test-certificate";
  return o;
}

// The record's scenario object is in the sweep's unit, its load profile too (the canonical string,
// the RNG key, stays in attempt-durations).
TEST(SeriesSpec, TheRecordShowsTheLoadProfileInTheSweepsUnit) {
  std::string text = head + policies;
  text.replace(text.find("rate = 200\n"), 11, "load_profile = \"step:0:200,8:400,12:200\"\n");
  const StudySpec spec = parse_study_text(text, "good.toml", "quick");
  const nlohmann::json rec =
      run_whole_point(spec.sweeps[0], 1, options(retrylab::test::fresh_dir("series-record"), 2), {});
  EXPECT_EQ(rec.at("scenario").at("load_profile"), "step:0:200,8:400,12:200");
  EXPECT_NE(rec.at("canonical").get<std::string>().find("load_profile=step:0:2,800:4,1200:2"), std::string::npos);
  EXPECT_EQ(rec.at("policy"), "3 attempts");
}

TEST(SeriesSpec, BadKeysAreErrorsNamingTheKey) {
  // The load profile is a text field, given once per sweep: not in a policy, not as a grid axis.
  expect_error(head + policies + "  load_profile = \"0:1\"\n",
               "sweep.s.policies[2].load_profile must be given once per sweep", 33);
  expect_error(head + "grid = { load_profile = [\"0:1\", \"0:2\"] }\n" + policies,
               "sweep.s.grid.load_profile[0] must be given once per sweep", 24);
  expect_error(head + policies + "  retries_max = 3\n", "sweep.s.policies[2].retries_max", 33);
  expect_error(head + "  [[sweep.s.policies]]\n  name = \"a\"\n", "sweep.s.bin", 5);
  expect_error(head + "bin = 1\n  [[sweep.s.policies]]\n  max_attempts = 1\n", "sweep.s.policies[0].name", 25);
  expect_error(head + "bin = 1\n  [[sweep.s.policies]]\n  name = \"a\"\n  [[sweep.s.policies]]\n  name = \"a\"\n",
               "sweep.s.policies[1].name", 27);
  expect_error(head + "bin = 1\n", "sweep.s.policies", 5);
  expect_error(head + "bin = 0\n", "sweep.s.bin", 24);
  expect_error(head + "bin = 1\nevent = [15, 30]\n" + policies.substr(8), "sweep.s.event", 25);
  expect_error(head + "bin = 1\n  [[sweep.s.policies]]\n  name = \"a\"\n  max_attempts = [1, 2]\n",
               "sweep.s.policies[0].max_attempts", 27);
  std::string bad_budget = head + policies;
  bad_budget.replace(bad_budget.find("\"aws-standard\""), 14, "\"aws\"");
  expect_error(bad_budget, "sweep.s.policies[2].budget", 32);
  std::string attempt_unit = head + policies;
  attempt_unit.replace(attempt_unit.find("unit = \"s\""), 10, "unit = \"attempt\"");
  expect_error(attempt_unit, "sweep.s.unit", 7);
}

// A load profile's candidates are drawn at its maximum rate and thinned: the draws are work. Here
// each point draws about 6e10 (3 runs x 2,000 attempt-durations x 1e7 per attempt-duration), under
// the limit of 1e11 for one sweep's point, and two such points together go over it for the study.
TEST(SeriesSpec, AStudysWorkCountsTheProfilesThinnedDraws) {
  std::string text = head;
  text.replace(text.find("rate = 200\n"), 11, "load_profile = \"step:0:1,2:1000000000,2.0001:1\"\n");
  text.replace(text.find("outage_start = 5\noutage_end = 10\n"), 33, "event = [2, 2.0001]\n");
  const std::string one = text + "bin = 1\n  [[sweep.s.policies]]\n  name = \"a\"\n";
  EXPECT_NO_THROW(parse_study_text(one, "one.toml", "quick"));
  try {
    parse_study_text(one + "  [[sweep.s.policies]]\n  name = \"b\"\n", "two.toml", "quick");
    ADD_FAILURE() << "two points of 6e10 thinned draws each were not refused";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("for a whole study"), std::string::npos) << e.what();
  }
}

// 300 policies ran every point before the figure failed: refused at read time, naming the key.
TEST(SeriesSpec, ThePoliciesAreBoundedAtReadTime) {
  std::string many = "bin = 1\n";
  for (std::int64_t i = 0; i <= max_series_policies; ++i)
    many += fmt::format("  [[sweep.s.policies]]\n  name = \"p{}\"\n", i);
  expect_error(head + many, "sweep.s.policies must be at most 8 tables (got 9)", 25);
  std::string eight = "bin = 1\n";
  for (std::int64_t i = 0; i < max_series_policies; ++i)
    eight += fmt::format("  [[sweep.s.policies]]\n  name = \"p{}\"\n", i);
  EXPECT_EQ(parse_study_text(head + eight, "ok.toml", "quick").sweeps[0].points.size(), 8u);
}

TEST(SeriesSpec, ALoadProfileFileStaysInsideTheSpecsFolder) {
  const fs::path dir = retrylab::test::fresh_dir("series-profile");
  std::string text = head + policies;
  text.replace(text.find("rate = 200\n"), 11, "load_profile = \"trace.csv\"\n");
  std::ofstream(dir / "study.toml") << text;
  std::ofstream(dir / "trace.csv") << "time,rate\n0,200\n10,400\n20,200\n";
  const StudySpec spec = parse_study_file(dir / "study.toml", "quick");
  EXPECT_EQ(spec.sweeps[0].points[0].scenario.traffic.load_profile,
            montecarlo::LoadProfile::linear({{0, 2}, {1000, 4}, {2000, 2}}));
  for (const char* bad : {"../trace.csv", "/etc/trace.csv", "sub/../../trace.csv"}) {
    std::string t = head + policies;
    t.replace(t.find("rate = 200\n"), 11, std::string("load_profile = \"") + bad + "\"\n");
    std::ofstream(dir / "bad.toml") << t;
    try {
      parse_study_file(dir / "bad.toml", "quick");
      ADD_FAILURE() << "no error for " << bad;
    } catch (const SpecError& e) {
      EXPECT_NE(std::string(e.what()).find("sweep.s.load_profile"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("inside the spec's folder"), std::string::npos) << e.what();
    }
  }
}

TEST(SeriesStudy, RecordsArePureFunctionsOfSweepAndIndex) {
  const StudySpec spec = parse_study_text(head + policies, "t.toml", "quick");
  const fs::path one = retrylab::test::fresh_dir("series-1"), two = retrylab::test::fresh_dir("series-2"),
                 resumed = retrylab::test::fresh_dir("series-resumed");
  run_study(spec, options(one, 1));
  run_study(spec, options(two, 2));
  // A run killed after its first point: the header and one record, then --resume.
  {
    std::ifstream in(one / "results.jsonl");
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    std::ofstream(resumed / "results.jsonl") << header << "\n" << first << "\n";
  }
  const auto outcome = run_study(spec, options(resumed, 2, true));
  EXPECT_EQ(outcome.points_resumed, 1);
  const auto a = retrylab::test::all_files(one), b = retrylab::test::all_files(two),
             c = retrylab::test::all_files(resumed);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), c.size());
  for (const auto& [name, bytes] : a) {
    EXPECT_EQ(bytes, b.at(name)) << name << " differs between 1 and 2 threads";
    EXPECT_EQ(bytes, c.at(name)) << name << " differs after a resume";
  }
  for (const char* f : {"s.md", "s.csv", "s.tex", "s_series.csv", "s_goodput.svg", "s_backlog.png"})
    EXPECT_TRUE(a.count(f)) << f << " was not written";
  // The policy's name reaches gnuplot only quoted ('' for ').
  EXPECT_NE(a.at("s_goodput.gp").find("'budget, ''quoted'' | <b>'"), std::string::npos);
}

// A policy's name is any text: it reaches Markdown, CSV and gnuplot only escaped (docs/study-spec.md
// "Names and text"), and no file is named after it.
TEST(SeriesStudy, HostilePolicyNamesAreEscapedInEveryOutput) {
  std::string text = head + "bin = 1\n";
  text += "  [[sweep.s.policies]]\n  name = \"=1+2\"\n";
  text += "  [[sweep.s.policies]]\n  name = \"a|b`c`\\nset output '/tmp/x' @m\"\n";
  const StudySpec spec = parse_study_text(text, "t.toml", "quick");
  const fs::path out = retrylab::test::fresh_dir("series-hostile");
  run_study(spec, options(out, 2));
  const auto files = retrylab::test::all_files(out);
  EXPECT_NE(files.at("s.csv").find("\n'=1+2,"), std::string::npos);  // no formula for a spreadsheet
  EXPECT_NE(files.at("s_series.csv").find(",'=1+2,"), std::string::npos);
  EXPECT_NE(files.at("s.md").find("a\\|b\\`c\\` set output"), std::string::npos);  // one cell, one line
  const std::string& gp = files.at("s_goodput.gp");
  EXPECT_NE(gp.find("set title 'a|b`c` set output ''/tmp/x'' @m'"), std::string::npos);
  EXPECT_EQ(gp.find("\nset output"), std::string::npos);
  for (const auto& [name, bytes] : files) EXPECT_EQ(name.find("=1+2"), std::string::npos) << name;
}

TEST(SeriesStudy, SeriesSummedOverBinsGivesTheRunsTotals) {
  const StudySpec spec = parse_study_text(head + policies, "t.toml", "quick");
  const SweepSpec& sw = spec.sweeps[0];
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sw.points.size()); ++i) {
    const nlohmann::json r = run_extension_point(sw, i, 2, {});
    EXPECT_EQ(r, run_extension_point(sw, i, 1, {})) << "point " << i;
    double offered = 0, lost = 0;
    for (const auto& x : r.at("series").at("offered").at("mean")) offered += x.get<double>();
    for (const auto& x : r.at("series").at("lost").at("mean")) lost += x.get<double>();
    const double requests = r.at("summary").at("requests").at("mean").get<double>();
    EXPECT_GT(requests, 1000.0);
    EXPECT_NEAR(offered, requests, 1e-9 * requests) << "point " << i;
    EXPECT_NEAR(lost, r.at("summary").at("lost").at("mean").get<double>(), 1e-9 * requests) << "point " << i;
    EXPECT_EQ(r.at("t").size(), 20u);  // 20 s in bins of 1 s
  }
}

// During a total outage nothing succeeds; before it, goodput is the offered rate (200 per s, within
// 20% over 3 runs of 4 s: a Poisson count of 2,400 is 4 sd away at 20%, a false failure far below
// 1e-4).
TEST(SeriesStudy, GoodputBeforeAndDuringTheOutage) {
  const StudySpec spec = parse_study_text(head + policies, "t.toml", "quick");
  const nlohmann::json r = run_extension_point(spec.sweeps[0], 1, 2, {});
  const auto& s = r.at("summary");
  EXPECT_NEAR(s.at("goodput_before").at("mean").get<double>(), 200.0, 40.0);
  EXPECT_EQ(s.at("goodput_during").at("mean").get<double>(), 0.0);
  EXPECT_EQ(r.at("policy"), "3 attempts");
}

// The spike sweep of papers/incident as it was committed before requests were counted once
// (tests/papers/data/incident_spike_series.csv: mean series over 20 runs, bins of 1 s, event 40-50 s,
// warm-up 10 s, recover_within 0.1 over 5 s; times here in attempt-durations of 10 ms). Its table
// called the hedged policy "recovered 20/20 in 0 s" on goodput alone, while its backlog grew from 7
// clients to 22,841. Deterministic: the numbers are the file's.
struct Committed {
  std::vector<double> successes, backlog;
};
Committed committed_series(const std::string& policy) {
  std::ifstream in(std::string(RETRYLAB_TEST_DIR) + "/data/incident_spike_series.csv");
  Committed c;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == 't') continue;
    const auto a = line.find(','), b = line.find(',', a + 1), d = line.find(',', b + 1);
    if (line.substr(a + 1, b - a - 1) != policy) continue;
    c.successes.push_back(std::stod(line.substr(b + 1, d - b - 1)));
    c.backlog.push_back(std::stod(line.substr(d + 1)));
  }
  return c;
}
double mean_over(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double sum = 0.0;
  for (std::size_t k = from; k < to; ++k) sum += v[k];
  return sum / static_cast<double>(to - from);
}

TEST(SeriesRecovery, AGrowingBacklogIsNotRecovered) {
  const SeriesSettings set{
      .bin = 100.0, .event_start = 4000.0, .event_end = 5000.0, .recover_within = 0.1, .recover_over = 500.0};
  const Committed hedged = committed_series("hedged");
  ASSERT_EQ(hedged.successes.size(), 120u);
  const double goodput_before = mean_over(hedged.successes, 10, 40) / set.bin;  // per attempt-duration
  const double backlog_before = mean_over(hedged.backlog, 10, 40);
  EXPECT_GT(hedged.backlog.back(), 20000.0);
  EXPECT_TRUE(std::isnan(recovery_time(hedged.successes, hedged.backlog, set, goodput_before, backlog_before)));
  // On goodput alone (its backlog held at the level before) the same series "recovers" at once: the
  // backlog is what tells.
  const std::vector<double> flat(hedged.backlog.size(), backlog_before);
  EXPECT_EQ(recovery_time(hedged.successes, flat, set, goodput_before, backlog_before), 0.0);
  // The token-bucket policy drains its backlog and stays there: recovered, later than on goodput
  // alone (its committed 13.25 s) since the backlog must be back too.
  const Committed bucket = committed_series("aws-standard");
  const double t = recovery_time(bucket.successes, bucket.backlog, set, mean_over(bucket.successes, 10, 40) / set.bin,
                                 mean_over(bucket.backlog, 10, 40));
  ASSERT_TRUE(std::isfinite(t));
  EXPECT_GE(t * 0.01, 13.0);
  EXPECT_LE(t * 0.01, 60.0);
}

// Recovery must last: a run back for a while and then down again, or back only in its last window
// but one, has not recovered; one back from the first bin after the event has, at 0.
TEST(SeriesRecovery, BackAndStayingThere) {
  const SeriesSettings set{
      .bin = 1.0, .event_start = 10.0, .event_end = 20.0, .recover_within = 0.1, .recover_over = 3.0};
  std::vector<double> ok(40, 10.0), waiting(40, 5.0);
  EXPECT_EQ(recovery_time(ok, waiting, set, 10.0, 5.0), 0.0);
  for (std::size_t k = 30; k < 40; ++k) ok[k] = 5.0;  // down again from 30
  EXPECT_TRUE(std::isnan(recovery_time(ok, waiting, set, 10.0, 5.0)));
  ok.assign(40, 10.0);
  for (std::size_t k = 20; k < 25; ++k) waiting[k] = 50.0;  // clients waiting back from 25
  EXPECT_EQ(recovery_time(ok, waiting, set, 10.0, 5.0), 5.0);
  waiting[39] = std::nan("");  // the run stopped in its last bin
  EXPECT_TRUE(std::isnan(recovery_time(ok, waiting, set, 10.0, 5.0)));
  // The tolerance: within 10% of goodput (9 is the bound) and 10% + one client of the backlog (6.5).
  waiting.assign(40, 6.5);
  ok.assign(40, 9.0);
  EXPECT_EQ(recovery_time(ok, waiting, set, 10.0, 5.0), 0.0);
  waiting.assign(40, 6.6);
  EXPECT_TRUE(std::isnan(recovery_time(ok, waiting, set, 10.0, 5.0)));
}

// The e-folding time: exact on an exponential drain (its log is a line), measured from the peak when
// the level first keeps rising after the event, and undefined for a level that grows or is back
// within 5 bins.
TEST(SeriesRecovery, DecayTimeOfADrainingLevel) {
  const SeriesSettings set{
      .bin = 1.0, .event_start = 10.0, .event_end = 20.0, .recover_within = 0.1, .recover_over = 3.0};
  std::vector<double> q(60, 5.0);
  for (std::size_t k = 20; k < 60; ++k) q[k] = 5.0 + 1000.0 * std::exp(-(static_cast<double>(k) + 0.5 - 20.0) / 8.0);
  EXPECT_NEAR(decay_time(q, set, 5.0), 8.0, 1e-9);
  for (std::size_t k = 20; k < 24; ++k) q[k] = 100.0 * static_cast<double>(k - 19);  // rising to a peak at 24
  for (std::size_t k = 24; k < 60; ++k) q[k] = 5.0 + 1000.0 * std::exp(-(static_cast<double>(k) + 0.5 - 24.0) / 8.0);
  EXPECT_NEAR(decay_time(q, set, 5.0), 8.0, 1e-9);
  for (std::size_t k = 20; k < 60; ++k) q[k] = 10.0 * static_cast<double>(k);  // growing
  EXPECT_TRUE(std::isnan(decay_time(q, set, 5.0)));
  q.assign(60, 5.0);
  for (std::size_t k = 20; k < 24; ++k) q[k] = 100.0;  // back within 4 bins
  EXPECT_TRUE(std::isnan(decay_time(q, set, 5.0)));
}

}  // namespace
}  // namespace retrylab::papers::test_series_kind
