// Failure kinds in attempt traces (version 3, docs/traces.md): the engine writes each failure's kind
// when the scenario's kinds matter (and only then: other traces keep versions 1 and 2), its traces
// pass `check` with the kind rules applied, hand-made and tampered traces fail on the line that
// breaks them (a retry after a kind not retried, a kind no declared option produces, a client that
// vanished next to one whose request ended), a version-2 trace declaring retry_on is read with those
// rules n/a, malformed kinds name their line, and in-memory columns give the file's verdicts.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/trace.hpp"
#include "validation/trace_check.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/trace_report.hpp"

namespace kinds_test {

namespace {

using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::montecarlo::FailureKind;
using retrylab::montecarlo::Scenario;
using retrylab::test::failed_checks;
using retrylab::test::find_check;
using retrylab::validation::check_trace;
using retrylab::validation::CheckVerdict;
using retrylab::validation::TraceReport;

std::string write(const Scenario& s, std::uint64_t seed, std::int64_t runs, const std::string& name) {
  static const std::filesystem::path dir = retrylab::test::fresh_dir("trace_kinds");
  const std::string path = (dir / name).string();
  retrylab::montecarlo::write_trace(s, seed, runs, path);
  return retrylab::test::slurp(path);
}

TraceReport check_text(const std::string& text) {
  std::istringstream in(text);
  return check_trace(in);
}

// Steady traffic on free; a third of the attempts fail injected as fatal, and the client retries
// only retryable failures (collisions are retryable): both kinds appear, fatal ones end requests.
Scenario fatal_injected() {
  Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.rate = 0.3;
  s.measurement.horizon = 2000;
  s.failures.failure_prob = 0.3;
  s.failures.failure_kind = FailureKind::fatal;
  s.client.retry_on = 1;  // retryable
  return s;
}

// A four-slot limit that rejects with 429 (throttled), the client retrying only retryable failures,
// with a retry limit: rejections are throttled and end their requests, collisions of the admitted
// attempts are retryable.
Scenario throttled_rejections() {
  Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = 80;
  s.admission.limit = 4;
  s.admission.reject_kind = FailureKind::throttled;
  s.client.retry_on = 1;
  s.client.max_attempts = 4;
  return s;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(TraceKinds, EngineWritesVersion3AndItPasses) {
  for (const Scenario& s : {fatal_injected(), throttled_rejections()}) {
    for (const char* file : {"k.csv", "k.jsonl"}) {
      const std::string text = write(s, 7, 3, file);
      const bool json = std::string(file).ends_with(".jsonl");
      EXPECT_NE(text.find(json ? "{\"retrylab_trace\":3," : "# retrylab-trace version=3\n"), std::string::npos);
      if (!json) {
        EXPECT_NE(text.find("\nrun,client,arrival,start,end,outcome,retry,sleep,burst,kind\n"), std::string::npos);
      }
      const std::string other = s.failures.failure_prob > 0 ? "fatal" : "throttled";
      EXPECT_GT(count(text, json ? "\"kind\":\"" + other + "\"" : "," + other + "\n"), 10u) << file;
      EXPECT_GT(count(text, json ? "\"kind\":\"retryable\"" : ",retryable\n"), 10u) << file;
      EXPECT_EQ(count(text, json ? "\"outcome\":\"success\"" : ",success,"),
                count(text, json ? "\"kind\":null" : ",\n"))
          << file;  // a success has no kind
      const TraceReport r = check_text(text);
      EXPECT_TRUE(r.passed()) << file << "\n" << failed_checks(r);
      for (const char* rule : {"failure kind", "kind not retried"})
        EXPECT_EQ(find_check(r, rule).verdict, CheckVerdict::pass)
            << file << ": " << rule << ": " << find_check(r, rule).observed;
      // applied (not n/a): every client left failed at a stop had a kind it retries (often none is)
      EXPECT_NE(find_check(r, "vanished clients").verdict, CheckVerdict::not_applicable) << file;
      // the kind rule saw every failure; the requests that ended on a kind not retried were judged
      EXPECT_EQ(find_check(r, "kind not retried").observed.rfind("0 of ", 0), 0u);
      EXPECT_EQ(find_check(r, "kind not retried").observed.find("0 of 0 "), std::string::npos);
    }
  }
}

TEST(TraceKinds, OtherTracesKeepTheirVersionAndBytes) {
  Scenario s = fatal_injected();
  s.failures.failure_kind = FailureKind::retryable;
  s.client.retry_on = 0;  // kinds at their defaults: version 2 (failure_prob is a server option)
  const std::string v2 = write(s, 7, 1, "v2.csv");
  EXPECT_EQ(v2.rfind("# retrylab-trace version=2\n", 0), 0u);
  EXPECT_NE(v2.find("\nrun,client,arrival,start,end,outcome,retry,sleep,burst\n"), std::string::npos);
  EXPECT_EQ(v2.find("retryable"), std::string::npos);
  s.failures.failure_prob = 0;
  EXPECT_EQ(write(s, 7, 1, "v1.csv").rfind("# retrylab-trace version=1\n", 0), 0u);
}

const std::string v3_header =
    "# retrylab-trace version=3\n# model=free strategy=full clients=1 retries=on\n# failure_prob=0.5\n"
    "# failure_kind=fatal\n# retry_on=retryable\nrun,client,arrival,start,end,outcome,retry,sleep,burst,kind\n";  // 1-6

TEST(TraceKinds, RetryAfterAKindNotRetriedAndImpossibleKindsFail) {
  // line 7: fatal, not retried, so line 8 (its retry) breaks the rule
  const TraceReport r = check_text(v3_header +
                                   "0,0,0,0,1,failure,0,,1,fatal\n"
                                   "0,0,0,1.5,2.5,success,1,0.5,1,\n"
                                   "# run_end run=0 stop=finished stop_time=2.5\n");
  EXPECT_EQ(find_check(r, "kind not retried").lines, (std::vector<std::int64_t>{8}));
  EXPECT_EQ(find_check(r, "failure kind").verdict, CheckVerdict::pass);
  EXPECT_EQ(find_check(r, "retry sequence").verdict, CheckVerdict::pass);
  // throttled: no declared option produces it (failure_kind=fatal, no limit)
  const TraceReport t = check_text(v3_header +
                                   "0,0,0,0,1,failure,0,,1,throttled\n"
                                   "# run_end run=0 stop=drained stop_time=1\n");
  EXPECT_EQ(find_check(t, "failure kind").lines, (std::vector<std::int64_t>{7}));
  EXPECT_EQ(find_check(t, "vanished clients").count, 0);  // throttled is not retried either: its request ended
  // a version-3 trace without failures still reports the rule (nothing to check)
  const TraceReport none = check_text(v3_header +
                                      "0,0,0,0,1,success,0,,1,\n"
                                      "# run_end run=0 stop=finished stop_time=1\n");
  EXPECT_EQ(find_check(none, "failure kind").verdict, CheckVerdict::skipped);
}

TEST(TraceKinds, VanishedClientBesideOneWhoseRequestEnded) {
  std::string header = v3_header;
  header.replace(header.find("clients=1"), 9, "clients=2");
  const TraceReport r = check_text(header +
                                   "0,0,0,0,1,failure,0,,1,fatal\n"      // 7: ended (fatal)
                                   "0,1,0,0,1,failure,0,,1,retryable\n"  // 8: should have retried
                                   "# run_end run=0 stop=drained stop_time=1\n");
  const auto& v = find_check(r, "vanished clients");
  EXPECT_EQ(v.lines, (std::vector<std::int64_t>{8}));
  EXPECT_EQ(v.observed, "1 of 1 clients left failed at a run's end violate it");
  EXPECT_NE(v.expected.find("retry_on=retryable"), std::string::npos);
}

// A version-2 trace declaring retry_on (as retrylab wrote before version 3): read, and the rules that
// need each failure's kind say n/a instead of calling its ended requests vanished clients.
TEST(TraceKinds, Version2WithRetryOnIsReadWithTheKindRulesNotApplicable) {
  const std::string v3 = write(fatal_injected(), 7, 2, "old.csv");
  std::istringstream in(v3);
  std::string line, v2;
  while (std::getline(in, line)) {
    if (line == "# retrylab-trace version=3") line = "# retrylab-trace version=2";
    if (!line.empty() && line[0] != '#') line = line.substr(0, line.rfind(','));  // drop the kind column
    v2 += line + "\n";
  }
  const TraceReport r = check_text(v2);
  EXPECT_TRUE(r.passed()) << failed_checks(r);
  for (const char* rule : {"vanished clients", "kind not retried"}) {
    EXPECT_EQ(find_check(r, rule).verdict, CheckVerdict::not_applicable) << rule;
    EXPECT_NE(find_check(r, rule).observed.find("version 3"), std::string::npos) << find_check(r, rule).observed;
  }
  for (const auto& c : r.checks) EXPECT_NE(c.name, "failure kind");
}

TEST(TraceKinds, MalformedKindsNameLineAndField) {
  const std::string v2_kinds =
      "# retrylab-trace version=2\n# model=free strategy=full clients=1 retries=on\n"
      "run,client,arrival,start,end,outcome,retry,sleep,burst,kind\n";
  const std::string v3_plain =
      "# retrylab-trace version=3\n# model=free strategy=full clients=1 retries=on\n"
      "run,client,arrival,start,end,outcome,retry,sleep,burst\n";
  const std::string json =
      "{\"retrylab_trace\":3,\"model\":\"free\",\"strategy\":\"full\",\"retries\":\"on\","
      "\"clients\":1}\n";
  const std::pair<std::string, std::string> cases[] = {
      {v2_kinds, "line 2: header"},
      {v3_plain, "line 2: header"},
      {v3_header + "0,0,0,0,1,failure,0,,1,\n", "line 7: kind"},
      {v3_header + "0,0,0,0,1,failure,0,,1,boom\n", "line 7: kind"},
      {v3_header + "0,0,0,0,1,success,0,,1,retryable\n", "line 7: kind"},
      {v3_header + "0,0,0,0,1,failure,0,,1\n", "line 7: kind"},  // a field short
      {json + "{\"run\":0,\"client\":0,\"arrival\":0,\"start\":0,\"end\":1,\"outcome\":\"failure\",\"retry\":0,"
              "\"sleep\":null,\"burst\":true}\n",
       "line 2: kind"},
      {json + "{\"run\":0,\"client\":0,\"arrival\":0,\"start\":0,\"end\":1,\"outcome\":\"failure\",\"retry\":0,"
              "\"sleep\":null,\"burst\":true,\"kind\":7}\n",
       "line 2: kind"},
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

// The in-memory entry point with a kind column gives the file's verdicts and observations.
TEST(TraceKinds, ColumnsGiveTheFilesVerdicts) {
  const TraceReport file = check_text(v3_header +
                                      "0,0,0,0,1,failure,0,,1,fatal\n"
                                      "0,0,0,1.5,2.5,success,1,0.5,1,\n"
                                      "# run_end run=0 stop=finished stop_time=2.5\n");
  const std::vector<std::int64_t> run{0, 0}, client{0, 0}, retry{0, 1};
  const std::vector<double> arrival{0, 0}, start{0, 1.5}, end{1, 2.5}, sleep{std::nan(""), 0.5};
  const std::vector<std::uint8_t> success{0, 1}, burst{1, 1},
      kind{2, retrylab::validation::trace_no_kind};  // fatal, none
  const std::map<std::string, std::string> header{
      {"version", "3"},  {"model", "free"},       {"strategy", "full"},      {"clients", "1"},
      {"retries", "on"}, {"failure_prob", "0.5"}, {"failure_kind", "fatal"}, {"retry_on", "retryable"}};
  const retrylab::validation::TraceColumns columns{run, client, retry,   arrival, start,
                                                   end, sleep,  success, burst,   kind};
  const std::vector<retrylab::validation::TraceRunEnd> ends{{0, "finished", 2.5}};
  const TraceReport rows = retrylab::validation::check_trace(header, columns, ends);
  ASSERT_EQ(rows.checks.size(), file.checks.size());
  for (std::size_t i = 0; i < rows.checks.size(); ++i) {
    EXPECT_EQ(rows.checks[i].name, file.checks[i].name);
    EXPECT_EQ(rows.checks[i].verdict, file.checks[i].verdict) << rows.checks[i].name;
    EXPECT_EQ(rows.checks[i].observed, file.checks[i].observed) << rows.checks[i].name;
  }
  EXPECT_EQ(find_check(rows, "kind not retried").lines, (std::vector<std::int64_t>{1}));  // row index
  // the kind column without version 3, and version 3 without it, are refused
  auto plain = header;
  plain["version"] = "2";
  EXPECT_THROW((void)retrylab::validation::check_trace(plain, columns, ends), InputError);
  auto no_kind = columns;
  no_kind.kind = {};
  EXPECT_THROW((void)retrylab::validation::check_trace(header, no_kind, ends), InputError);
}

}  // namespace kinds_test
