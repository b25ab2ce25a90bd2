// Attempt traces: the engine's traces pass the checker (several models and strategies, CSV and
// JSON Lines), the file is deterministic, hand-made violations are found on the right lines,
// malformed traces name line and field, and the reader survives 10,000 fixed-seed mutations.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "analytic/error.hpp"
#include "montecarlo/trace.hpp"
#include "validation/trace_check.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace traces_test {

namespace {

using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::montecarlo::Scenario;
using retrylab::validation::check_trace;
using retrylab::validation::CheckVerdict;
using retrylab::validation::TraceReport;

// One folder per test process, emptied once when first used.
std::string temp_path(const std::string& name) {
  static const std::filesystem::path dir = retrylab::test::fresh_dir("traces");
  return (dir / name).string();
}

using retrylab::test::slurp;

std::string write(const Scenario& s, std::uint64_t seed, std::int64_t runs, const std::string& name) {
  const std::string path = temp_path(name);
  retrylab::montecarlo::write_trace(s, seed, runs, path);
  std::string text = slurp(path);
  std::filesystem::remove(path);
  return text;
}

TraceReport check_text(const std::string& text) {
  std::istringstream in(text);
  return check_trace(in);
}

const retrylab::validation::TraceCheck* find(const TraceReport& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return &c;
  return nullptr;
}

std::string failures(const TraceReport& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict == CheckVerdict::fail) s += c.name + ": " + c.observed + "\n";
  return s;
}

Scenario scenario(Model m, Strategy st, std::int64_t clients, double rate, double horizon, bool retries = true) {
  Scenario s;
  s.model = m;
  s.backoff = {st, 1.0, 1000.0, st == Strategy::window ? 20.0 : 0.0};
  s.traffic.clients = clients;
  s.traffic.rate = rate;
  s.measurement.horizon = horizon;
  s.client.retries = retries;
  return s;
}

// Engine traces pass. Statistical checks: per-trace false-alarm budget 0.001 (docs/traces.md), fixed
// seeds, so with 9 traces P(any false failure) <= 0.009 for a fresh seed; these seeds are fixed.
TEST(Traces, EngineTracesPass) {
  struct Case {
    Scenario s;
    const char* file;
  };
  Scenario steady_ps = scenario(Model::ps, Strategy::full, 0, 0.5, 1500);
  steady_ps.measurement.warmup = 50;
  Scenario off_free = scenario(Model::free, Strategy::full, 0, 0.5, 1500, false);
  off_free.measurement.warmup = 10;
  Scenario off_coll = scenario(Model::collision, Strategy::full, 0, 0.3, 1500, false);
  off_coll.measurement.warmup = 10;
  Scenario dec = scenario(Model::free, Strategy::decorrelated, 200, 0, 0);
  dec.backoff.cap = 4;
  const Case cases[] = {
      {scenario(Model::collision, Strategy::full, 100, 0, 0), "a.csv"},
      {scenario(Model::free, Strategy::equal, 100, 0.1, 400), "b.jsonl"},
      {scenario(Model::shared, Strategy::full, 80, 0, 0), "c.csv"},
      {scenario(Model::free, Strategy::window, 60, 0, 0), "d.jsonl"},
      {scenario(Model::free, Strategy::nojitter, 20, 0, 0), "e.csv"},  // classic test, exact
      {dec, "f.csv"},
      {steady_ps, "g.csv"},
      {off_free, "h.csv"},
      {off_coll, "i.jsonl"},
  };
  std::map<std::string, TraceReport> reports;  // by file: each trace written and checked once
  for (const auto& c : cases) {
    const TraceReport& r = reports[c.file] = check_text(write(c.s, 3, 4, c.file));
    EXPECT_TRUE(r.passed()) << c.file << "\n" << failures(r);
    EXPECT_EQ(r.runs, 4) << c.file;
    EXPECT_GT(r.rows, 0) << c.file;
  }
  // the closed-form statistics really ran where the traffic admits one (the same reports)
  const auto verdict = [&](const char* file, const std::string& check) {
    const auto* c = find(reports.at(file), check);
    return c == nullptr ? CheckVerdict::fail : c->verdict;
  };
  EXPECT_EQ(verdict("g.csv", "time in system (ps)"), CheckVerdict::pass);
  EXPECT_EQ(verdict("h.csv", "goodput (retries off)"), CheckVerdict::pass);
  EXPECT_EQ(verdict("e.csv", "classic test (exact)"), CheckVerdict::pass);
}

TEST(Traces, DeterministicAndCsvJsonAgree) {
  const Scenario s = scenario(Model::free, Strategy::full, 50, 0, 0);
  EXPECT_EQ(write(s, 5, 3, "x.csv"), write(s, 5, 3, "y.csv"));
  const TraceReport a = check_text(write(s, 5, 3, "x.csv"));
  const TraceReport b = check_text(write(s, 5, 3, "x.jsonl"));
  EXPECT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (std::size_t i = 0; i < a.checks.size(); ++i) EXPECT_EQ(a.checks[i].observed, b.checks[i].observed);
}

const std::string free_header =
    "# retrylab-trace version=1\n# model=free strategy=full base=1 cap=1000 clients=2 retries=on\n"
    "run,client,arrival,start,end,outcome,retry,sleep,burst\n";  // lines 1-3

TEST(Traces, HandMadeViolationsNameTheirLines) {
  // line 4-5: a tie where both fail (idle resource); line 6: retry 1 whose sleep breaks [0, w_1 = 1].
  const std::string t = free_header +
                        "0,0,0,0,1,failure,0,,1\n"
                        "0,1,0,0,1,failure,0,,1\n"
                        "0,0,0,3,4,success,1,2,1\n"
                        "0,1,0,1.5,2.5,success,1,0.5,1\n";  // out of end order: malformed (line 7)
  try {
    check_text(t);
    FAIL() << "out-of-order end not rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "line 7: end");
  }
  const std::string ok_order = free_header +
                               "0,0,0,0,1,failure,0,,1\n"
                               "0,1,0,0,1,failure,0,,1\n"
                               "0,1,0,1.5,2.5,success,1,0.5,1\n"
                               "0,0,0,3,4,success,1,2,1\n";
  const TraceReport r = check_text(ok_order);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(find(r, "failure on idle resource")->lines, (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(find(r, "sleep support")->lines, (std::vector<std::int64_t>{7}));
  EXPECT_EQ(find(r, "retry sequence")->verdict, CheckVerdict::pass);
  ASSERT_FALSE(find(r, "sleep support")->rows.empty());
  EXPECT_NE(find(r, "sleep support")->rows[0].find("0,0,0,3,4,success,1,2,1"), std::string::npos);
}

TEST(Traces, VanishedClientAndOverlap) {
  // collision: client 1 fails at 1 and never returns although the run finished; lines 4,5 overlap
  // and line 5 is a success.
  const std::string t =
      "# retrylab-trace version=1\n# model=collision strategy=none clients=2 retries=on\n"
      "run,client,arrival,start,end,outcome,retry,sleep,burst\n"
      "0,1,0,0,1,failure,0,,1\n"
      "0,0,0,0.5,1.5,success,0,,1\n"
      "# run_end run=0 stop=finished stop_time=1.5\n";
  const TraceReport r = check_text(t);
  EXPECT_EQ(find(r, "vanished clients")->lines, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(find(r, "overlapping success")->lines, (std::vector<std::int64_t>{5}));
  // the same client cut off by the horizon is not vanished
  const std::string cut =
      "# retrylab-trace version=1\n# model=collision strategy=full clients=1 retries=on\n"
      "run,client,arrival,start,end,outcome,retry,sleep,burst\n"
      "0,0,0,0,1,failure,0,,1\n"
      "# run_end run=0 stop=horizon stop_time=2.5\n";
  EXPECT_EQ(find(check_text(cut), "vanished clients")->count, 0);
}

TEST(Traces, MalformedNamesLineAndField) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "line 1: header"},
      {"# retrylab-trace version=1\n# model=free strategy=full retries=on\nrun,client\n", "line 3: header"},
      {"# retrylab-trace version=4\n# model=free strategy=full retries=on\n" +
           free_header.substr(free_header.find("run,")),
       "line 2: version"},
      {"# retrylab-trace version=1\n# model=lake strategy=full "
       "retries=on\nrun,client,arrival,start,end,outcome,retry,sleep\n",
       "line 2: model"},
      {free_header + "0,0,0,0,nan,failure,0,,1\n", "line 4: end"},
      {free_header + "0,0,0,0,1,maybe,0,,1\n", "line 4: outcome"},
      {free_header + "0,-1,0,0,1,failure,0,,1\n", "line 4: client"},
      {free_header + "1,0,0,0,1,failure,0,,1\n0,0,0,0,1,failure,0,,1\n", "line 5: run"},
      {"{\"retrylab_trace\":1,\"model\":\"free\",\"strategy\":\"full\",\"retries\":\"on\",\"clients\":2}\n{\"run\":0}"
       "\n",
       "line 2: client"},
      {"{\"retrylab_trace\":1,\"model\":\"free\",\"strategy\":\"full\",\"retries\":\"on\",\"rate\":1}\n",
       "line 1: horizon"},
  };
  for (const auto& [text, field] : cases) {
    try {
      check_text(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

// ---- server scenarios: version-2 headers, rules that hold and rules that do not --------

using retrylab::montecarlo::canonical;
using retrylab::montecarlo::ServiceDist;
using retrylab::montecarlo::trace_header;
using retrylab::montecarlo::TraceFormat;

TEST(ServerTraces, HeaderRecordsEveryServerOptionAndPlainHeadersKeepTheirBytes) {
  // Plain scenario: the version-1 header exactly as docs/traces.md shows it (same scenario).
  Scenario plain = scenario(Model::free, Strategy::full, 5, 0, 0);
  EXPECT_EQ(trace_header(plain, 1, 1, TraceFormat::csv),
            "# retrylab-trace version=1\n# model=free\n# strategy=full\n# base=1\n# cap=1000\n# window=0\n# clients=5\n"
            "# rate=0\n# horizon=10000000\n# warmup=0\n# collapse=3000\n# retries=on\n# time_unit=attempt-duration\n"
            "# seed=1\n# runs=1\n# order=end\nrun,client,arrival,start,end,outcome,retry,sleep,burst\n");
  EXPECT_EQ(trace_header(plain, 1, 1, TraceFormat::jsonl),
            "{\"retrylab_trace\":1,\"model\":\"free\",\"strategy\":\"full\",\"base\":1,\"cap\":1000,\"window\":0,"
            "\"clients\":5,\"rate\":0,\"horizon\":10000000,\"warmup\":0,\"collapse\":3000,\"retries\":\"on\","
            "\"time_unit\":\"attempt-duration\",\"seed\":1,\"runs\":1,\"order\":\"end\"}\n");
  // Every server option away from its default comes back from the header (CSV and JSON Lines):
  // the checker's declared scenario has the same canonical description, so the same RNG key.
  Scenario a = scenario(Model::shared, Strategy::equal, 30, 0, 0);
  a.resource.rows = 2;
  a.resource.service = ServiceDist::lognormal;
  a.resource.service_cv = 0.5;
  a.resource.delay = 0.125;
  a.resource.delay_dist = retrylab::montecarlo::DelayDist::exponential;
  a.admission.aimd = true;
  a.admission.aimd_params.initial = 3;
  a.admission.aimd_params.min = 2;
  a.admission.aimd_params.max = 9;
  a.admission.aimd_params.backoff = 0.75;
  a.admission.aimd_params.timeout = 4;
  a.admission.reject_cost = 0.05;
  a.admission.retry_after = 2;
  a.admission.retry_after_rule = retrylab::montecarlo::RetryAfterRule::uniform;
  a.client.ignore_retry_after = 0.25;
  a.client.mix = 0.2;
  a.client.mix_backoff = {Strategy::window, 1.0, retrylab::unbounded_cap, 3.0};
  a.client.timeout = 6;
  a.client.max_attempts = 5;
  Scenario b = scenario(Model::collision, Strategy::full, 20, 0, 0);
  b.resource.lock = true;
  b.admission.limit = 4;
  b.admission.overflow = retrylab::montecarlo::Overflow::queue;
  for (const Scenario& s : {a, b}) {
    for (const char* file : {"srv.csv", "srv.jsonl"}) {
      const std::string text = write(s, 2, 2, file);
      EXPECT_EQ(
          text.rfind(std::string(file).ends_with("csv") ? "# retrylab-trace version=2\n" : "{\"retrylab_trace\":2,", 0),
          0u);
      const TraceReport r = check_text(text);
      EXPECT_EQ(canonical(r.declared), canonical(s)) << file;
      EXPECT_TRUE(r.passed()) << file << "\n" << failures(r);
    }
  }
}

// Engine traces of server scenarios pass; the rules that do not hold there say so (n/a, with the
// reason), never "pass". Statistical checks: budget 0.001 per trace, fixed seeds.
TEST(ServerTraces, EngineServerTracesPassAndSayWhatDoesNotApply) {
  struct Case {
    Scenario s;
    const char* file;
    std::vector<std::string> not_applicable;
    std::vector<std::string> applied;  // must pass (checked something)
  };
  Scenario rows = scenario(Model::collision, Strategy::full, 60, 0, 0);
  rows.resource.rows = 4;
  Scenario lock = scenario(Model::free, Strategy::full, 40, 0.2, 300);
  lock.resource.lock = true;
  Scenario limit = scenario(Model::shared, Strategy::full, 60, 0, 0);
  limit.resource.lock = true;
  limit.admission.limit = 2;
  limit.admission.reject_cost = 0.05;
  limit.admission.retry_after = 3;
  Scenario delay = scenario(Model::free, Strategy::equal, 60, 0, 0);
  delay.resource.delay = 0.25;
  Scenario expo = scenario(Model::free, Strategy::full, 60, 0, 0);
  expo.resource.service = ServiceDist::exponential;
  Scenario limits = scenario(Model::shared, Strategy::full, 80, 0, 0);
  limits.client.timeout = 3;
  limits.client.max_attempts = 4;
  Scenario mix = scenario(Model::free, Strategy::decorrelated, 80, 0, 0);
  mix.client.mix = 0.1;
  Scenario coll_timeout = scenario(Model::collision, Strategy::full, 40, 0, 0);
  coll_timeout.client.timeout = 0.5;  // every attempt times out: collision stays exact (durations 0.5)
  coll_timeout.client.max_attempts = 3;
  Scenario off_rows = scenario(Model::collision, Strategy::full, 0, 1.0, 1500, false);
  off_rows.measurement.warmup = 10;
  off_rows.resource.rows = 4;
  const Case cases[] = {
      {rows,
       "r.csv",
       {"overlapping success"},
       {"attempt duration", "sleep support", "sleep distribution, all retries"}},
      {lock, "l.jsonl", {}, {"attempt duration", "success spacing", "retry sequence", "failure under the lock"}},
      {limit,
       "m.csv",
       {"failure on idle resource", "sleep distribution", "failure under the lock"},
       {"attempt duration", "success spacing", "sleep support"}},
      {delay,
       "d.csv",
       {"failure on idle resource"},
       {"attempt duration", "success spacing", "sleep distribution, all retries"}},
      {expo, "e.csv", {"attempt duration", "success spacing"}, {"failure on idle resource", "sleep support"}},
      {limits, "t.csv", {"failure on idle resource"}, {"attempt timeout", "retry limit", "sleep support"}},
      {mix, "x.jsonl", {"sleep distribution"}, {"sleep support", "success spacing"}},
      {coll_timeout, "c.csv", {}, {"attempt duration", "attempt timeout", "retry limit", "overlapping success"}},
      {off_rows, "o.csv", {}, {"goodput (retries off)"}},
  };
  for (const auto& c : cases) {
    const TraceReport r = check_text(write(c.s, 4, 4, c.file));
    EXPECT_TRUE(r.passed()) << c.file << "\n" << failures(r);
    for (const auto& name : c.not_applicable) {
      const auto* k = find(r, name);
      ASSERT_NE(k, nullptr) << c.file << ": " << name;
      EXPECT_EQ(k->verdict, CheckVerdict::not_applicable) << c.file << ": " << name;
      EXPECT_EQ(k->observed.rfind("not applicable: ", 0), 0u) << k->observed;
      EXPECT_TRUE(k->lines.empty());
    }
    for (const auto& name : c.applied) {
      const auto* k = find(r, name);
      ASSERT_NE(k, nullptr) << c.file << ": " << name;
      EXPECT_EQ(k->verdict, CheckVerdict::pass) << c.file << ": " << name << ": " << k->observed;
    }
  }
  // The limits trace really exercised its rules: some attempts timed out, some clients gave up.
  const std::string t = write(limits, 4, 4, "t2.csv");
  EXPECT_NE(t.find(",3,failure,"), std::string::npos);  // a 4th attempt (retry 3) failed: that client gave up
}

// Tampered server traces fail on the rule that still applies.
TEST(ServerTraces, TamperedTracesFailOnTheRuleThatStillApplies) {
  Scenario limits = scenario(Model::shared, Strategy::full, 80, 0, 0);
  limits.client.timeout = 3;
  limits.client.max_attempts = 4;
  const std::string real = write(limits, 4, 4, "tamper.csv");
  ASSERT_TRUE(check_text(real).passed());
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = real;
    const std::size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  // Declaring fewer attempts than clients made: their 4th attempts break the retry limit.
  const TraceReport fewer = check_text(replaced("# max_attempts=4\n", "# max_attempts=3\n"));
  EXPECT_EQ(find(fewer, "retry limit")->verdict, CheckVerdict::fail);
  // Declaring a shorter timeout than the one that cut attempts at 3: they outlast it.
  const TraceReport shorter = check_text(replaced("# timeout=3\n", "# timeout=2.5\n"));
  EXPECT_EQ(find(shorter, "attempt timeout")->verdict, CheckVerdict::fail);

  // Hand-made: equal jitter (b = 1: w_1 = 1, sleep in [0.5, 1]) with a fixed Retry-After of 5 that
  // honouring clients sleep instead when longer; limit 1 rejects (free, no cost: instant).
  const std::string header =
      "# retrylab-trace version=2\n# model=free strategy=equal clients=3 retries=on\n# limit=1\n# retry_after=5\n"
      "# max_attempts=2\n# timeout=4\nrun,client,arrival,start,end,outcome,retry,sleep,burst\n";  // lines 1-7
  const std::string rows =
      "0,1,0,0,0,failure,0,,1\n"       // 8: rejected at once (allowed: start <= end with instant rejections)
      "0,2,0,0,0,failure,0,,1\n"       // 9: rejected
      "0,0,0,0,1,success,0,,1\n"       // 10
      "0,2,0,0.2,5,failure,1,0.2,1\n"  // 11: sleep 0.2 < w_1/2 = 0.5 (Retry-After only lengthens); lasts 4.8 > timeout
                                       // 4
      "0,1,0,5,6,success,1,5,1\n"      // 12: slept the Retry-After (5 > w_1): allowed
      "0,2,0,8,9,success,2,3,1\n"  // 13: a 3rd attempt with max_attempts = 2; sleep 3 neither in [w_2/2, w_2] = [1, 2]
                                   // nor 5
      "# run_end run=0 stop=finished stop_time=9\n";
  const TraceReport r = check_text(header + rows);
  EXPECT_EQ(find(r, "time order")->verdict, CheckVerdict::pass);
  EXPECT_EQ(find(r, "retry sequence")->verdict, CheckVerdict::pass) << find(r, "retry sequence")->observed;
  EXPECT_EQ(find(r, "sleep support")->lines, (std::vector<std::int64_t>{11, 13}));
  EXPECT_EQ(find(r, "attempt timeout")->lines, (std::vector<std::int64_t>{11}));
  EXPECT_EQ(find(r, "retry limit")->lines, (std::vector<std::int64_t>{13}));
  EXPECT_EQ(find(r, "failure on idle resource")->verdict, CheckVerdict::not_applicable);
  EXPECT_EQ(find(r, "success spacing")->verdict, CheckVerdict::pass);
}

TEST(ServerTraces, MalformedServerFieldsNameLineAndField) {
  const std::string v2 = "# retrylab-trace version=2\n# model=free strategy=full clients=2 retries=on\n";
  const std::string cols = "run,client,arrival,start,end,outcome,retry,sleep,burst\n";
  const std::pair<std::string, std::string> cases[] = {
      {v2 + "# rows=0\n" + cols, "line 3: rows"},
      {v2 + "# rows=four\n" + cols, "line 3: rows"},
      {v2 + "# service=weibull\n" + cols, "line 3: service"},
      {v2 + "# lock=maybe\n" + cols, "line 3: lock"},
      {v2 + "# timeout=-1\n" + cols, "line 3: timeout"},
      {v2 + "# max_attempts=x\n" + cols, "line 3: max_attempts"},
      {v2 + "# limit=2\n# reject_cost=7\n" + cols, "line 4: reject_cost"},
      {v2 + "# reject_cost=0.1\n" + cols, "line 3: reject_cost"},
      {v2 + "# mix=0.5\n# mix_strategy=none\n# mix_base=-1\n" + cols, "line 5: mix_base"},
      {"# retrylab-trace version=1\n# model=free strategy=full clients=2 retries=on\n# rows=4\n" + cols,
       "line 3: rows"},
      {"{\"retrylab_trace\":2,\"model\":\"free\",\"strategy\":\"full\",\"retries\":\"on\",\"clients\":2,\"rows\":"
       "\"four\"}\n",
       "line 1: rows"},
      {"{\"retrylab_trace\":2,\"model\":\"free\",\"strategy\":\"full\",\"retries\":\"off\",\"clients\":2,\"timeout\":3}"
       "\n",
       "line 1: timeout"},
  };
  for (const auto& [text, field] : cases) {
    try {
      check_text(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

// 10,000 mutations of valid traces (CSV and JSON Lines, version 1 and 2), seed 20261130: every one either checks
// (verdicts) or throws InputError; anything else (another exception, a crash, an ASan report) fails.
TEST(Traces, FuzzReaderSurvivesMutations) {
  const Scenario s = scenario(Model::free, Strategy::decorrelated, 12, 0.05, 60);
  Scenario server = s;  // a version-2 header with server keys of every kind (numbers, names, on/off, none)
  server.resource.lock = true;
  server.admission.limit = 2;
  server.admission.retry_after = 1.5;
  server.client.mix = 0.25;
  server.client.mix_backoff.cap = retrylab::unbounded_cap;
  server.client.timeout = 4;
  server.client.max_attempts = 6;
  const std::string seeds[] = {write(s, 1, 2, "fz.csv"), write(s, 1, 2, "fz.jsonl"), write(server, 1, 2, "fzs.csv"),
                               write(server, 1, 2, "fzs.jsonl")};
  const char* tokens[] = {"nan",
                          "inf",
                          "-1",
                          "1e999",
                          "9223372036854775808",
                          "",
                          ",",
                          "\n",
                          "{",
                          "[[[[",
                          "\"",
                          "#",
                          "# run_end run=0 stop=finished stop_time=1",
                          "success",
                          "failure",
                          "0",
                          "1e-320",
                          "\r",
                          "\0"};
  std::mt19937_64 rng(20261130);
  std::int64_t accepted = 0, rejected = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string t = seeds[i % 4];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 7) {
        case 0: t[at] = static_cast<char>(rng() % 256); break;                                  // byte flip
        case 1: t.erase(at, 1 + rng() % 40); break;                                             // delete
        case 2: t.insert(at, tokens[rng() % std::size(tokens)]); break;                         // token
        case 3: t.resize(at); break;                                                            // truncate
        case 4: t.insert(at, t.substr(rng() % t.size(), rng() % 200)); break;                   // duplicate
        case 5: t.insert(at, std::string(1 + rng() % 8, "0123456789.-e,"[rng() % 14])); break;  // digits
        case 6: {                                                                               // swap two lines
          const std::size_t a = t.rfind('\n', at), b = t.find('\n', at);
          if (a != std::string::npos && b != std::string::npos) std::swap(t[a], t[b]);
          break;
        }
      }
    }
    try {
      (void)check_text(t);
      ++accepted;
    } catch (const InputError&) {
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "mutation " << i << " threw a non-InputError: " << e.what();
    }
  }
  EXPECT_EQ(accepted + rejected, 10000);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0);
}

}  // namespace

}  // namespace traces_test
