// The checker's rules beyond the first ones: a collision failure overlaps something, a free/shared
// success saw no commit, processor sharing's service and FIFO order, the arrivals; traces in ms
// (the header's time_unit and attempt_duration); in-memory rows (the same report as the file); and
// the power each statistical check states, held against planted deviations of exactly that size.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/trace.hpp"
#include "validation/statistics.hpp"
#include "validation/trace/power.hpp"
#include "validation/trace_check.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/trace_report.hpp"

namespace check_rules_test {

namespace {

using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::montecarlo::Scenario;
using retrylab::montecarlo::TimeUnit;
using retrylab::test::failed_checks;
using retrylab::test::find_check;
using retrylab::validation::check_trace;
using retrylab::validation::CheckVerdict;
using retrylab::validation::TraceCheck;
using retrylab::validation::TraceReport;

TraceReport check_text(const std::string& text) {
  std::istringstream in(text);
  return check_trace(in);
}

std::string header(const std::string& keys) {
  return "# retrylab-trace version=1\n# " + keys + "\nrun,client,arrival,start,end,outcome,retry,sleep,burst\n";
}

std::string field_of(const std::string& text) {
  try {
    check_text(text);
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

Scenario scenario(Model m, Strategy st, std::int64_t clients, double rate, double horizon) {
  Scenario s;
  s.model = m;
  s.backoff = {st, 1.0, 64.0, 0.0};
  s.traffic.clients = clients;
  s.traffic.rate = rate;
  s.measurement.horizon = horizon;
  return s;
}

std::string engine_trace(const Scenario& s, const std::string& name, const TimeUnit& u = {}) {
  static const std::filesystem::path dir = retrylab::test::fresh_dir("check_rules");
  const std::string path = (dir / name).string();
  retrylab::montecarlo::write_trace(s, 4, 3, path, u);
  return retrylab::test::slurp(path);
}

TEST(CheckRules, CollisionFailureOverlapsAnother) {
  const std::string h = header("model=collision strategy=none rate=0.5 horizon=100 retries=on");
  const std::string t = h +
                        "0,0,1,1,2,failure,0,,0\n"   // line 4: overlaps nothing
                        "0,0,1,2,3,success,1,0,0\n"  // starts as line 4 ends: no overlap
                        "0,1,5,5,6,failure,0,,0\n"   // lines 6, 7 overlap: both failures confirmed
                        "0,2,5.5,5.5,6.5,failure,0,,0\n"
                        "0,3,6.6,6.6,7.6,failure,0,,0\n"  // line 8: ends 7.6, stop 8: a partner could be in flight
                        "# run_end run=0 stop=horizon stop_time=8\n";
  const TraceReport r = check_text(t);
  const TraceCheck& c = find_check(r, "failure without overlap");
  EXPECT_EQ(c.lines, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(c.observed, "1 of 3 failures violate it");  // line 8 is not judged
  // A conflict window of 1.5 shows as a lonely failure: starts 1.2 apart
  const std::string wide = h + "0,0,1,1,2,success,0,,0\n0,1,2.2,2.2,3.2,failure,0,,0\n0,1,2.2,3.2,4.2,success,1,0,0\n";
  EXPECT_EQ(find_check(check_text(wide), "failure without overlap").lines, (std::vector<std::int64_t>{5}));
  // another client starting 1e-12 before the failure ends overlaps it within the times' precision
  const std::string touching = h +
                               "0,0,1,1,2,failure,0,,0\n0,1,1.999999999999,1.999999999999,2.999999999999,failure,0,,0\n"
                               "0,0,1,2,3,success,1,0,0\n0,1,1.999999999999,3,4,success,1,0.000000000001,0\n";
  EXPECT_EQ(find_check(check_text(touching), "failure without overlap").count, 0);
}

TEST(CheckRules, FirstCommitWinsBothWays) {
  // shared: client 1 succeeds at 3.2 although client 0 committed at 2, inside (0.5, 3.2)
  const std::string t = header("model=shared strategy=none clients=2 retries=on") +
                        "0,0,0,0,2,success,0,,1\n"
                        "0,1,0,0.5,3.2,success,0,,1\n";
  const TraceReport r = check_text(t);
  EXPECT_EQ(find_check(r, "success despite a commit").lines, (std::vector<std::int64_t>{5}));
  EXPECT_EQ(find_check(r, "success spacing").verdict, CheckVerdict::pass);  // 1.2 apart: spacing alone misses it
}

TEST(CheckRules, ProcessorSharingServiceAndOrder) {
  const std::string h = header("model=ps strategy=none clients=2 retries=on");
  // two attempts from 0 share the server: each ends at 2 having received one unit
  EXPECT_TRUE(check_text(h + "0,0,0,0,2,success,0,,1\n0,1,0,0,2,success,0,,1\n").passed());
  // ending at 1, each received 1/2: the rate was not divided
  const TraceReport half = check_text(h + "0,0,0,0,1,success,0,,1\n0,1,0,0,1,success,0,,1\n");
  EXPECT_EQ(find_check(half, "processor sharing").lines, (std::vector<std::int64_t>{4, 5}));
  // served one at a time (FIFO server): the first got 1/2, the second 3/2
  const TraceReport fifo =
      check_text(h + "0,0,0,0,1,success,0,,1\n0,1,0,0,2,success,0,,1\n# run_end run=0 stop=finished stop_time=2\n");
  EXPECT_EQ(find_check(fifo, "processor sharing").count, 2);
  // steady: line 5 started before line 4 but ended after it
  const std::string s = header("model=ps strategy=none rate=0.5 horizon=100 retries=on");
  const TraceReport order = check_text(s + "0,0,3,3,4.5,success,0,,0\n0,1,2.5,2.5,4.6,success,0,,0\n");
  EXPECT_EQ(find_check(order, "end in start order").lines, (std::vector<std::int64_t>{5}));
  // at a horizon the attempts still in flight have no row: a service above 1 after the last start
  // may be theirs (not judged), one below 1 cannot be (judged)
  const std::string cut =
      "0,0,0,0,1,success,0,,0\n0,1,8,8,9.5,success,0,,0\n# run_end run=0 stop=horizon stop_time=10\n";
  EXPECT_EQ(find_check(check_text(s + cut), "processor sharing").verdict, CheckVerdict::pass);
  const std::string short_cut =
      "0,0,0,0,1,success,0,,0\n0,1,8,8,8.5,success,0,,0\n# run_end run=0 stop=horizon stop_time=10\n";
  EXPECT_EQ(find_check(check_text(s + short_cut), "processor sharing").lines, (std::vector<std::int64_t>{5}));
}

TEST(CheckRules, Arrivals) {
  const std::string burst = header("model=ps strategy=none clients=2 retries=on");
  // a burst client at t = 1
  EXPECT_EQ(find_check(check_text(burst + "0,0,0,0,2,success,0,,1\n0,1,1,1,2.5,success,0,,1\n"), "arrivals").lines,
            (std::vector<std::int64_t>{5}));
  // a finished run with one burst client of two declared: named at the run's first line
  const TraceReport short_run =
      check_text(burst + "0,0,0,0,1,success,0,,1\n# run_end run=0 stop=finished stop_time=1\n");
  EXPECT_EQ(find_check(short_run, "arrivals").lines, (std::vector<std::int64_t>{4}));
  // a steady client in a pure burst, a burst client in pure steady traffic
  EXPECT_EQ(find_check(check_text(burst + "0,0,0,0,2,success,0,,1\n0,1,0,0,2,success,0,,1\n0,2,3,3,4,success,0,,0\n"),
                       "arrivals")
                .lines,
            (std::vector<std::int64_t>{6}));
  EXPECT_EQ(find_check(check_text(header("model=ps strategy=none rate=0.1 horizon=50 retries=on") +
                                  "0,0,0,0,1,success,0,,1\n"),
                       "arrivals")
                .count,
            1);
}

// A trace in ms with one attempt-duration = 10 ms holds the same attempts: the same checks, the
// same verdicts, the declared scenario the same once rescaled. Statistics: budget 0.001 per trace.
TEST(CheckRules, TracesInMilliseconds) {
  Scenario s = scenario(Model::free, Strategy::full, 0, 0.3, 400);
  s.client.timeout = 3;
  s.client.max_attempts = 5;
  for (const char* file : {"ms.csv", "ms.jsonl"}) {
    const std::string plain = engine_trace(s, file);
    const std::string ms = engine_trace(s, file, TimeUnit{"ms", 10});
    EXPECT_NE(ms.find(std::string(file).ends_with("csv") ? "# time_unit=ms\n# attempt_duration=10\n"
                                                         : "\"time_unit\":\"ms\",\"attempt_duration\":10"),
              std::string::npos);
    EXPECT_NE(ms.find(std::string(file).ends_with("csv") ? "# timeout=30\n" : "\"timeout\":30"), std::string::npos);
    const TraceReport a = check_text(plain), b = check_text(ms);
    EXPECT_EQ(retrylab::montecarlo::canonical(b.declared), retrylab::montecarlo::canonical(a.declared));
    EXPECT_EQ(b.unit, "ms");
    EXPECT_EQ(a.rows, b.rows);
    ASSERT_EQ(a.checks.size(), b.checks.size());
    for (std::size_t i = 0; i < a.checks.size(); ++i) {
      EXPECT_EQ(a.checks[i].verdict, b.checks[i].verdict) << a.checks[i].name;
      EXPECT_EQ(a.checks[i].count, b.checks[i].count) << a.checks[i].name;
    }
    EXPECT_TRUE(b.passed()) << failed_checks(b);
  }
  const std::string rows = "run,client,arrival,start,end,outcome,retry,sleep,burst\n0,0,0,0,10,success,0,,1\n";
  const std::string v1 = "# retrylab-trace version=1\n# model=free strategy=full clients=1 retries=on\n";
  EXPECT_EQ(field_of(v1 + "# time_unit=ms\n" + rows), "line 3: attempt_duration");
  EXPECT_EQ(field_of(v1 + "# time_unit=minutes\n" + rows), "line 3: time_unit");
  EXPECT_EQ(field_of(v1 + "# time_unit=ms\n# attempt_duration=0\n" + rows), "line 4: attempt_duration");
  EXPECT_EQ(field_of(v1 + "# attempt_duration=10\n" + rows), "line 3: attempt_duration");
  EXPECT_TRUE(check_text(v1 + "# time_unit=ms\n# attempt_duration=10\n" + rows).passed());
}

// The columns of a CSV trace, as a caller with arrays would hold them.
struct Columns {
  std::vector<std::int64_t> run, client, retry;
  std::vector<double> arrival, start, end, sleep;
  std::vector<std::uint8_t> success, burst;
  std::map<std::string, std::string> header;
  std::vector<retrylab::validation::TraceRunEnd> ends;
  retrylab::validation::TraceColumns view() const {
    return {run, client, retry, arrival, start, end, sleep, success, burst};
  }
};

Columns columns_of(const std::string& csv) {
  Columns c;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    if (line.rfind("# run_end", 0) == 0) {
      std::string tag, run, stop, time;
      f >> tag >> tag >> run >> stop >> time;  // "# run_end run=R stop=S stop_time=T"
      c.ends.push_back({std::stoll(run.substr(4)), stop.substr(5), std::stod(time.substr(10))});
    } else if (line[0] == '#') {
      const auto eq = line.find('=');
      if (eq != std::string::npos && line.find(' ', 2) == std::string::npos)
        c.header[line.substr(2, eq - 2)] = line.substr(eq + 1);
      if (line.rfind("# retrylab-trace version=", 0) == 0) c.header["version"] = line.substr(25);
    } else if (line.rfind("run,", 0) != 0) {
      std::vector<std::string> v;
      for (std::string x; std::getline(f, x, ',');) v.push_back(x);
      if (v.size() == 8) v.emplace_back();
      c.run.push_back(std::stoll(v[0]));
      c.client.push_back(std::stoll(v[1]));
      c.arrival.push_back(std::stod(v[2]));
      c.start.push_back(std::stod(v[3]));
      c.end.push_back(std::stod(v[4]));
      c.success.push_back(v[5] == "success");
      c.retry.push_back(std::stoll(v[6]));
      c.sleep.push_back(v[7].empty() ? std::nan("") : std::stod(v[7]));
      c.burst.push_back(v[8] == "1");
    }
  }
  return c;
}

TEST(CheckRules, InMemoryRowsGiveTheFilesReport) {
  for (const Scenario& s :
       {scenario(Model::shared, Strategy::equal, 40, 0, 0), scenario(Model::collision, Strategy::full, 0, 0.2, 300)}) {
    const std::string csv = engine_trace(s, "mem.csv", TimeUnit{"ms", 4});
    const TraceReport file = check_text(csv);
    const Columns c = columns_of(csv);
    const TraceReport mem = check_trace(c.header, c.view(), c.ends);
    EXPECT_EQ(mem.format, "rows");
    EXPECT_EQ(mem.rows, file.rows);
    EXPECT_EQ(mem.runs, file.runs);
    ASSERT_EQ(mem.checks.size(), file.checks.size());
    for (std::size_t i = 0; i < mem.checks.size(); ++i) {
      EXPECT_EQ(mem.checks[i].name, file.checks[i].name);
      EXPECT_EQ(mem.checks[i].observed, file.checks[i].observed) << mem.checks[i].name;
    }
  }
  // malformed input names the row (from 0) or the header key
  Columns c = columns_of(engine_trace(scenario(Model::free, Strategy::full, 5, 0, 0), "bad.csv"));
  c.sleep[2] = 0.5;  // row 2 is a first attempt (the burst starts together)
  try {
    check_trace(c.header, c.view(), c.ends);
    ADD_FAILURE() << "a sleep on a retry-0 row was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "row 2: sleep");
  }
  c.header.erase("model");
  try {
    check_trace(c.header, c.view(), c.ends);
    ADD_FAILURE() << "a header without model was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "header: model");
  }
}

// ---- power: planted deviations of exactly the stated size are caught at least as often as stated --

using retrylab::validation::trace::detectable;
using retrylab::validation::trace::PowerBasis;

// KS: a law whose CDF is off by the stated Delta (U(0, 1 - Delta) against U(0, 1): sup distance
// Delta at 1 - Delta). The bound is rigorous (DKW-Massart), so the rate is >= 0.9; 400 fixed seeds,
// and the test fails below 0.86: P(that | rate 0.9) = P(Binomial(400, 0.9) < 344) = 0.4%.
TEST(CheckPower, KsCatchesTheStatedDeviation) {
  for (std::int64_t n : {200, 2000}) {
    const double alpha = 1e-4;
    const double delta = detectable({PowerBasis::Kind::ks, n}, alpha);
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(0.0, 1.0 - delta);
    int caught = 0;
    for (int trial = 0; trial < 400; ++trial) {
      std::vector<double> x(static_cast<std::size_t>(n));
      for (auto& v : x) v = u(rng);
      caught += retrylab::validation::ks_test(x, [](double y) { return std::clamp(y, 0.0, 1.0); }).pvalue < alpha;
    }
    EXPECT_GE(caught, 344) << "n = " << n << ", delta = " << delta;
  }
}

// Count: a Poisson count whose rate is off by the stated fraction (both ways), against the exact
// test. Exact tails, so the rate is >= 0.9; same 400 trials and threshold as above.
TEST(CheckPower, CountCatchesTheStatedRate) {
  const double mu = 500, alpha = 1e-4;
  const double delta = detectable({PowerBasis::Kind::count, 0, 0, mu}, alpha);
  std::mt19937_64 rng(23);
  for (const double factor : {1 + delta, 1 - delta}) {
    std::poisson_distribution<std::int64_t> draw(mu * factor);
    int caught = 0;
    for (int trial = 0; trial < 400; ++trial)
      caught += retrylab::validation::trace::poisson_two_sided_p(draw(rng), mu) < alpha;
    EXPECT_GE(caught, 344) << "factor " << factor;
  }
}

// Mean: normal run means off by the stated fraction. The t power formula ignores the noncentral t,
// an approximation: planted at 1.1 times the stated size it must hold; at 0.5 times it must not
// (the stated size is not needlessly large): the caught rate there is about 0.1 (< 0.5 fails with
// probability < 1e-6).
TEST(CheckPower, MeanCatchesTheStatedDifference) {
  const std::int64_t runs = 20;
  const double alpha = 1e-4, sd = 0.1, expect = 1.0;
  const double se = sd / std::sqrt(static_cast<double>(runs));
  const double delta = detectable({PowerBasis::Kind::mean, runs, se, expect}, alpha);
  std::mt19937_64 rng(29);
  const auto rate = [&](double shift) {
    std::normal_distribution<double> draw(expect * (1 + shift), sd);
    int caught = 0;
    for (int trial = 0; trial < 400; ++trial) {
      double sum = 0, sq = 0;
      std::vector<double> x(runs);
      for (auto& v : x) sum += v = draw(rng);
      const double m = sum / runs;
      for (double v : x) sq += (v - m) * (v - m);
      const double t = std::fabs(m - expect) / (std::sqrt(sq / (runs - 1)) / std::sqrt(static_cast<double>(runs)));
      caught += retrylab::validation::t_two_sided_p(t, runs - 1.0) < alpha;
    }
    return caught;
  };
  EXPECT_GE(rate(1.1 * delta), 344);
  EXPECT_LT(rate(0.5 * delta), 200);
}

}  // namespace

}  // namespace check_rules_test
