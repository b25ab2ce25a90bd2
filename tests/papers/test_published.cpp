// papers/intervals.hpp against known values, and papers/published.hpp on a small hand-made results
// store: the measures, the verdicts on one seed and on two, the exact search of K and the one K for
// the paper, a setting's one reading, the grid-edge flag (and no backoff as the zero-sleep limit
// instead), a statement off the quick grid, and the refusal of a bad statements file or of a number
// of the paper's text with neither statement nor reason. Deterministic (no simulation). The rule
// itself is tested in test_verdict.cpp.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "analytic/error.hpp"
#include "papers/intervals.hpp"
#include "papers/published.hpp"

namespace test_published {

namespace fs = std::filesystem;
using namespace retrylab::papers;
using nlohmann::json;

namespace {

TEST(Intervals, WilsonAndClopperPearsonMatchTheirClosedForms) {
  const Estimate w = intervals::wilson(0, 20);  // upper = z²/(n+z²)
  const double z = 1.959963984540054;
  EXPECT_EQ(w.lo, 0.0);
  EXPECT_NEAR(w.hi, z * z / (20 + z * z), 1e-12);
  const Estimate cp = intervals::clopper_pearson(0, 20);  // upper = 1 − (α/2)^(1/n)
  EXPECT_EQ(cp.lo, 0.0);
  EXPECT_NEAR(cp.hi, 1.0 - std::pow(0.025, 1.0 / 20.0), 1e-10);
  const Estimate all = intervals::clopper_pearson(20, 20);
  EXPECT_NEAR(all.lo, std::pow(0.025, 1.0 / 20.0), 1e-10);
  EXPECT_EQ(all.hi, 1.0);
}

TEST(Intervals, PoissonIsGarwoodsExactInterval) {
  const Estimate zero = intervals::poisson_mean(0, 1);  // upper = −ln(0.025)
  EXPECT_EQ(zero.lo, 0.0);
  EXPECT_NEAR(zero.hi, -std::log(0.025), 1e-9);
  const Estimate ten = intervals::poisson_mean(10, 2);  // published table: [4.7954, 18.3904] for k = 10
  EXPECT_NEAR(ten.mean, 5.0, 1e-12);
  EXPECT_NEAR(ten.lo, 4.7954 / 2, 1e-4);
  EXPECT_NEAR(ten.hi, 18.3904 / 2, 1e-4);
}

TEST(Intervals, SkewedMeansGetPositiveBoundsAndFractionsStayInTheUnitInterval) {
  // A latency whose normal interval would be [−8.8, 63] (steady_latency, collision, load 0.5).
  const Estimate l = intervals::log_scale(27.12, 76.6, 20);
  EXPECT_GT(l.lo, 0.0);
  EXPECT_LT(l.lo, 27.12);
  EXPECT_GT(l.hi, 27.12);
  const Estimate f = intervals::logit_scale(0.001, 0.0009, 5);
  EXPECT_GT(f.lo, 0.0);
  EXPECT_LT(f.hi, 1.0);
  EXPECT_LT(f.lo, 0.001);
  EXPECT_EQ(intervals::log_scale(4.0, 0.0, 20).lo, 4.0);  // all runs equal: no spread to show
}

TEST(Intervals, MetricsAreClassifiedByWhatTheyMeasure) {
  using Q = intervals::Quantity;
  EXPECT_EQ(intervals::quantity_of("drained"), Q::fraction_of_runs);
  EXPECT_EQ(intervals::quantity_of("unfinished"), Q::count);
  EXPECT_EQ(intervals::quantity_of("top_failure_fraction"), Q::fraction_mean);
  EXPECT_EQ(intervals::quantity_of("drain_time"), Q::positive);
  // An overdispersed count (sd² > mean) gets the wider of the Poisson and log-scale intervals.
  const json e = {{"mean", 0.1}, {"sd", 0.379}, {"n", 40}};
  const Estimate c = intervals::for_metric("unfinished", e);
  const Estimate p = intervals::poisson_mean(4, 40);
  EXPECT_GE(c.lo, 0.0);
  EXPECT_LE(c.lo, p.lo);
  EXPECT_GE(c.hi, p.hi);
}

// A tiny study folder: sweeps "classic", "steady" and "burst" with hand-made records; with
// `replica`, each also as its replica NAME@2 (the second seed) with the records given for it.
struct Folder {
  fs::path dir = fs::temp_directory_path() / ("retrylab_published_" + std::to_string(::getpid()));
  StudySpec spec;
  std::ofstream out;
  std::map<std::string, int> points;
  Folder() {
    fs::create_directories(dir);
    for (const char* n : {"classic", "steady", "burst"}) {
      SweepSpec s;
      s.name = n;
      spec.sweeps.push_back(s);
    }
    out.open(dir / "results.jsonl");
    out << json{{"retrylab_results", 1}, {"study", "t"}}.dump() << "\n";
    rec("classic", "model=free strategy=full base=1 cap=1000 clients=100",
        {{"attempts_per_client", m(7.41, 0.5)}, {"makespan", m(470, 40)}});
    rec("classic", "model=free strategy=window base=1 cap=1000 window=50 clients=100",
        {{"latency", m(300, 30)}, {"makespan", m(600, 40)}});
    rec("classic", "model=free strategy=window base=1 cap=1000 window=100 clients=100",
        {{"latency", m(200, 30)}, {"makespan", m(600, 40)}});
    // Steady: at rate 0.1, 15 of 20 runs peak at 500 waiting and 5 at 100; at 0.2 all reach 3000.
    steady("steady", 500, 20);
    rec("burst", "model=collision strategy=full clients=300 cap=250", {{"drained", d(0)}});
    rec("burst", "model=collision strategy=full clients=300 cap=500", {{"drained", d(20)}});
    // No backoff: the zero-sleep limit of the window search; and free bursts for ratio_to_best.
    rec("classic", "model=free strategy=none base=1 cap=1000 window=0 clients=100",
        {{"latency", m(50.5, 0)}, {"makespan", m(100, 0)}});
    rec("burst", "model=free strategy=none clients=100 cap=1000", {{"drain_time", m(300, 0)}});
    rec("burst", "model=free strategy=full clients=100 cap=125", {{"drain_time", m(600, 60)}});
    rec("burst", "model=free strategy=full clients=100 cap=250", {{"drain_time", m(750, 60)}});
  }
  ~Folder() { fs::remove_all(dir); }
  static json m(double mean, double sd) { return json{{"mean", mean}, {"sd", sd}, {"n", 20}}; }
  static json d(int k) { return json{{"count", k}, {"fraction", k / 20.0}, {"n", 20}}; }
  void rec(const std::string& sweep, const std::string& scen, const json& summary, const json& per_run = nullptr) {
    json r = {{"sweep", sweep}, {"point", points[sweep]++}, {"scenario", scen},
              {"runs", 20},     {"summary", summary},       {"certificate", "c"}};
    if (!per_run.is_null()) r["per_run"] = per_run;
    out << r.dump() << "\n";
  }
  // A steady sweep's two loads: at 0.1, `high` runs peak at `peak` waiting and the rest at 100.
  void steady(const std::string& sweep, int peak, int high) {
    json low = json::array(), top = json::array();
    for (int i = 0; i < 20; ++i) low.push_back(i < high ? peak : 100), top.push_back(3000);
    rec(sweep, "model=shared strategy=full rate=0.1 collapse=3000", {}, {{"max_waiting", low}});
    rec(sweep, "model=shared strategy=full rate=0.2 collapse=3000", {}, {{"max_waiting", top}});
  }
  // Declares the replica NAME@2 of a sweep (its records are written with rec(NAME + "@2", ...)).
  void replica(const std::string& name) {
    SweepSpec s;
    s.name = name + "@2";
    s.replica_of = name;
    spec.sweeps.push_back(s);
  }
  PublishedReport report(const std::string& toml) {
    out.flush();
    std::ofstream(dir / "published.toml") << toml;
    return compute_report(dir / "published.toml", spec, dir);
  }
  std::vector<PublishedRow> run(const std::string& toml) { return report(toml).rows; }
};

TEST(Published, VerdictsFollowThePrintedPrecisionAndTheInterval) {
  Folder f;
  const auto rows = f.run(R"(
[[statement]]
id = "a"
published = "7.4"
sweep = "classic"
metric = "attempts_per_client"
where = { strategy = "full" }
[[statement]]
id = "b"
published = "7.6"
sweep = "classic"
metric = "attempts_per_client"
where = { strategy = "full" }
[[statement]]
id = "c"
published = "9"
sweep = "classic"
metric = "attempts_per_client"
where = { strategy = "full" }
[[statement]]
id = "d"
published = "1"
untested = "no sweep"
)");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].verdict, "holds");         // 7.41 rounds to 7.4
  EXPECT_EQ(rows[1].verdict, "within noise");  // 7.41 is not 7.6, but the intervals of both reach it
  EXPECT_EQ(rows[2].verdict, "differs");
  EXPECT_NE(rows[2].reason.find("one seed only"), std::string::npos) << rows[2].reason;
  EXPECT_NE(rows[2].reason.find("no other reading is defined for it"), std::string::npos) << rows[2].reason;
  EXPECT_EQ(rows[3].verdict, "not tested");
  EXPECT_TRUE(std::isnan(rows[0].replica.mean));  // no replica sweep: one seed
}

TEST(Published, TwoSeedsDifferOnlyWhenBothDo) {
  Folder f;
  f.replica("classic");
  // The second seed agrees with the published 9 (within its interval); the first does not.
  f.rec("classic@2", "model=free strategy=full base=1 cap=1000 clients=100",
        {{"attempts_per_client", Folder::m(8.9, 0.5)}, {"makespan", Folder::m(470, 40)}});
  const std::string toml = R"(
[[statement]]
id = "c"
published = "9"
sweep = "classic"
metric = "attempts_per_client"
where = { strategy = "full" }
)";
  const auto rows = f.run(toml);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].reproduced.mean, 7.41);
  EXPECT_DOUBLE_EQ(rows[0].replica.mean, 8.9);
  EXPECT_EQ(rows[0].verdict, "within noise");
  EXPECT_NE(rows[0].reason.find("the seeds disagree: differs on the first, holds on the second"), std::string::npos)
      << rows[0].reason;
}

TEST(Published, TheCollapseThresholdKIsSearchedExactlyAndOneKChosenForThePaper) {
  Folder f;
  // Statement "a": every run collapses at 0.1 when its peak (500) reaches K: K from 1 to 500
  // reproduces it, every K above collapses first at 0.2 (0 of 20 at 0.1: differs). Statement "b" on
  // a sweep whose peaks are 800: K from 1 to 800. Statement "c" says 0.2: K from 501 up.
  SweepSpec s2;
  s2.name = "steady2";
  f.spec.sweeps.push_back(s2);
  f.steady("steady2", 800, 20);
  const auto rep = f.report(R"(
[[statement]]
id = "a"
published = "0.1"
within = 0.001
sweep = "steady"
measure = "collapse_load"
search = ["k"]
[[statement]]
id = "b"
published = "0.1"
within = 0.001
sweep = "steady2"
measure = "collapse_load"
search = ["k"]
[[statement]]
id = "c"
published = "0.2"
within = 0.001
sweep = "steady"
measure = "collapse_load"
search = ["k"]
)");
  ASSERT_EQ(rep.rows.size(), 3u);
  EXPECT_EQ(rep.rows[0].reproduced.mean, 0.2);  // at the stated K = 3000
  EXPECT_EQ(rep.rows[0].settings, "K from 1 to 500");
  EXPECT_EQ(rep.rows[1].settings, "K from 1 to 800");
  EXPECT_EQ(rep.rows[2].settings, "K from 501 to 3000");
  // One K for the paper: K from 501 to 800 reproduces b and c at once, K from 1 to 500 a and b; of
  // the two the one nearer the stated K = 3000 is the paper's, and the other is named.
  ASSERT_EQ(rep.readings.size(), 1u);
  EXPECT_NE(rep.readings[0].find("K from 501 to 800 reproduces 2 of the 3"), std::string::npos) << rep.readings[0];
  EXPECT_NE(rep.readings[0].find("it fails a"), std::string::npos) << rep.readings[0];
  EXPECT_NE(rep.readings[0].find("K from 1 to 500 reproduces as many"), std::string::npos) << rep.readings[0];
  EXPECT_EQ(rep.rows[0].verdict, "differs");
  EXPECT_NE(rep.rows[0].reason.find("the collapse threshold K would need K from 1 to 500, not the paper's one reading"),
            std::string::npos)
      << rep.rows[0].reason;
  EXPECT_EQ(rep.rows[1].verdict, "holds under a reading");
  EXPECT_EQ(rep.rows[2].verdict, "holds");
}

TEST(Published, AReadingOfASettingCountsOnlyAsThePapersOneReading) {
  Folder f;
  // Two drain-time statements and one reading each: the 99% time reproduces both, so it is the
  // paper's reading; a third statement is reproduced by neither.
  f.rec("burst", "model=collision strategy=full clients=1000 cap=4000",
        {{"drain_time", Folder::m(17000, 1000)}, {"drain_time_p99", Folder::m(15000, 1000)}});
  const auto rep = f.report(R"(
[[statement]]
id = "a"
published = "15,000"
sweep = "burst"
metric = "drain_time"
where = { clients = 1000 }
  [[statement.reading]]
  label = "99%"
  setting = "the drain definition"
  metric = "drain_time_p99"
[[statement]]
id = "b"
published = "300"
sweep = "burst"
metric = "drain_time"
where = { strategy = "none" }
  [[statement.reading]]
  label = "99%"
  setting = "the drain definition"
  metric = "drain_time"
[[statement]]
id = "c"
published = "25,000"
sweep = "burst"
metric = "drain_time_p99"
where = { clients = 1000 }
  [[statement.reading]]
  label = "99%"
  setting = "the drain definition"
  metric = "drain_time_p99"
)");
  ASSERT_EQ(rep.rows.size(), 3u);
  EXPECT_EQ(rep.rows[0].verdict, "holds under a reading");
  EXPECT_EQ(rep.rows[1].verdict, "holds");
  EXPECT_EQ(rep.rows[2].verdict, "differs");
  ASSERT_EQ(rep.readings.size(), 1u);
  EXPECT_NE(rep.readings[0].find("99% reproduces 2 of the 3"), std::string::npos) << rep.readings[0];
  EXPECT_NE(rep.readings[0].find("it fails c"), std::string::npos) << rep.readings[0];
}

TEST(Published, CapThresholdAndBestPointFlagTheGridEdge) {
  Folder f;
  const auto rows = f.run(R"(
[[statement]]
id = "cap"
published = "500"
sweep = "burst"
measure = "cap_threshold"
where = { clients = 300 }
[[statement]]
id = "best"
published = "200"
sweep = "classic"
measure = "best"
metric = "latency"
where = { strategy = "window" }
)");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].reproduced.mean, 500);
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_EQ(rows[1].reproduced.mean, 200);
  EXPECT_NE(rows[1].reason.find("edge: window 100"), std::string::npos) << rows[1].reason;
}

TEST(Published, NoBackoffIsTheSearchsPhysicalLimitNotAGridEdge) {
  Folder f;
  const auto rows = f.run(R"(
[[statement]]
id = "best"
published = "50.5"
sweep = "classic"
measure = "best"
metric = "latency"
where = { strategy = ["window", "none"] }
)");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].reproduced.mean, 50.5);
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_NE(rows[0].reason.find("no backoff (no sleep at all: the physical limit"), std::string::npos)
      << rows[0].reason;
  EXPECT_EQ(rows[0].reason.find("edge"), std::string::npos) << rows[0].reason;
}

TEST(Published, RatioToBestDividesByTheLowestOfTheOverPoints) {
  Folder f;
  const auto rows = f.run(R"(
[[statement]]
id = "fastest"
published = "1"
compare = "below"
sweep = "burst"
measure = "ratio_to_best"
metric = "drain_time"
where = { model = "free", strategy = "none" }
over = { model = "free", strategy = "full" }
[[statement]]
id = "largest"
published = "0.5"
measure = "max_of"
of = ["fastest"]
)");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].reproduced.mean, 0.5);  // 300 over the faster full-jitter cap's 600
  EXPECT_LT(rows[0].reproduced.hi, 1.0);
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_NE(rows[0].reason.find("strategy full, cap 125"), std::string::npos) << rows[0].reason;
  EXPECT_DOUBLE_EQ(rows[1].reproduced.mean, 0.5);
  EXPECT_EQ(rows[1].verdict, "holds");
}

TEST(Published, AStatementOffTheQuickGridIsNotTestedThereButAnErrorAtFullScale) {
  Folder f;
  const std::string toml = R"(
[[statement]]
id = "cap1000"
published = "0%"
sweep = "burst"
metric = "drained"
where = { model = "collision", clients = 300, cap = 1000 }
)";
  f.spec.scale = "quick";
  const auto rows = f.run(toml);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "not tested");
  EXPECT_NE(rows[0].reason.find("quick scale's grid has no point"), std::string::npos) << rows[0].reason;
  f.spec.scale = "full";
  EXPECT_THROW(f.run(toml), retrylab::InputError);  // at full scale it is a mistake in the file
}

TEST(Published, ABadStatementIsRefusedNamingItsKey) {
  Folder f;
  EXPECT_THROW(f.run("[[statement]]\nid = \"x\"\npublished = \"7.4\"\nsweep = \"classic\"\nmesure = \"value\"\n"),
               retrylab::InputError);
  EXPECT_THROW(f.run("[[statement]]\nid = \"x\"\npublished = \"about seven\"\nsweep = \"classic\"\n"),
               retrylab::InputError);
  EXPECT_THROW(f.run("[[statement]]\nid = \"x\"\npublished = \"7\"\nsweep = \"nope\"\nmetric = \"latency\"\n"),
               retrylab::InputError);
  EXPECT_THROW(f.run("[[statement]]\nid = \"x\"\npublished = \"7\"\nsweep = \"classic\"\nsearch = [\"q\"]\n"),
               retrylab::InputError);
  // check_statements catches an unknown sweep without any results, as reproduce does before running.
  std::ofstream(f.dir / "published.toml")
      << "[[statement]]\nid = \"x\"\npublished = \"7\"\nsweep = \"classic\"\n"
         "metric = \"latency\"\n  [[statement.reading]]\n  label = \"l\"\n  sweep = \"nope\"\n";
  EXPECT_THROW(check_statements(f.dir / "published.toml", f.spec), retrylab::InputError);
  std::ofstream(f.dir / "published.toml")
      << "[[statement]]\nid = \"x\"\npublished = \"7\"\nsweep = \"classic\"\nmetric = \"latency\"\n";
  EXPECT_NO_THROW(check_statements(f.dir / "published.toml", f.spec));
}

// Every number of the paper's text is listed with its statements or a reason: one with neither, or
// naming a statement the file does not have, is refused when the file is read.
TEST(Published, ANumberOfThePapersTextNeedsAStatementOrAReason) {
  Folder f;
  const std::string head = "[[statement]]\nid = \"x\"\npublished = \"7\"\nsweep = \"classic\"\nmetric = \"latency\"\n";
  std::ofstream(f.dir / "published.toml") << head << "[[number]]\ntext = \"7\"\nat = \"took 7\"\nstatement = \"x\"\n"
                                          << "[[number]]\ntext = \"2015\"\nat = \"in 2015\"\nskip = \"citation\"\n";
  EXPECT_NO_THROW(check_statements(f.dir / "published.toml", f.spec));
  std::ofstream(f.dir / "published.toml") << head << "[[number]]\ntext = \"3\"\nat = \"3 times\"\n";
  try {
    check_statements(f.dir / "published.toml", f.spec);
    ADD_FAILURE() << "a number with neither statement nor reason was accepted";
  } catch (const retrylab::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has neither a statement nor a reason"), std::string::npos) << e.what();
  }
  std::ofstream(f.dir / "published.toml") << head << "[[number]]\ntext = \"3\"\nstatement = \"y\"\n";
  EXPECT_THROW(check_statements(f.dir / "published.toml", f.spec), retrylab::InputError);
}

}  // namespace

namespace {

// A table whose first row has no estimate in a column that later rows estimate: the CSV header
// still names the column's lo and hi, and every row has as many fields as the header.
TEST(Tables, AnEstimateColumnIsKnownFromAnyRowNotOnlyTheFirst) {
  const fs::path dir = fs::temp_directory_path() / ("retrylab_table_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Table t{"t",
          "t",
          {"name", "latency"},
          {{std::string("a"), std::string("none finished")}, {std::string("b"), Estimate{2, 1, 3}}},
          {}};
  write_table(t, dir, {"c"});
  std::ifstream in(dir / "t.csv");
  std::string head, first, second;
  std::getline(in, head);
  std::getline(in, first);
  std::getline(in, second);
  fs::remove_all(dir);
  EXPECT_EQ(head, "name,latency,latency lo,latency hi,certificate");
  EXPECT_EQ(first, "a,none finished,,,c");
  EXPECT_EQ(second, "b,2,1,3,c");
}

}  // namespace

}  // namespace test_published
