// Paper 2's sweep kinds (brooker, amplification, budget, idempotency, breaker): spec parsing (good
// files expand to the expected points, bad input is a SpecError naming key and line), and a tiny
// golden study of every kind (exact bytes of tables, scripts and results; the same bytes for 1 and
// 2 threads; regenerate with RETRYLAB_UPDATE_GOLDEN=1). About 2 s.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "montecarlo/controls.hpp"
#include "papers/kinds.hpp"
#include "papers/spec.hpp"
#include "papers/study.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef RETRYLAB_TEST_DIR
#error "RETRYLAB_TEST_DIR must name tests/papers"
#endif

namespace retrylab::papers::test_paper2 {
namespace {

namespace fs = std::filesystem;

const char* const good = R"(
[study]
name = "t"
seed = 5

[sweep.b]
kind = "brooker"
unit = "ms"
attempt_duration = 1
runs = 3
model = "free"
strategy = ["full", "decorrelated"]
clients = [10, 20]
service = "round-trip"
delay = 10
delay_dist = "normal"
  [sweep.b.quick]
  clients = 10

[sweep.a]
kind = "amplification"
layers = [1, 4]
attempts = 3
failure = [1.0, 0.5]

[sweep.d]
kind = "budget"
unit = "ms"
attempt_duration = 10
model = "none"
strategy = "full"
base = 10
cap = 1000
rate = 0.5
horizon = 1000
outage_start = 100
outage_end = 400
max_attempts = 3
budget = ["none", "aws-standard"]
service = "lognormal"
service_cv = 1
idempotency = "per-attempt"
settle = true
  [[sweep.d.grid]]
  breaker = "hystrix"
  outage_fraction = [1.0, 0.5]
  [[sweep.d.grid]]
  breaker = "resilience4j"
  outage_fraction = [1.0, 0.5]
  limit = 7
)";

TEST(Paper2Spec, GoodFileExpandsEveryKind) {
  const StudySpec full = parse_study_text(good, "good.toml", "full");
  ASSERT_EQ(full.sweeps.size(), 3u);
  const auto& b = full.sweeps[0];
  EXPECT_EQ(b.kind, SweepKind::brooker);
  EXPECT_EQ(b.unit, "ms");
  EXPECT_EQ(b.attempt_duration, 1.0);
  ASSERT_EQ(b.points.size(), 4u);  // strategy x clients, last field fastest
  EXPECT_EQ(b.points[1].scenario.backoff.strategy, Strategy::full);
  EXPECT_EQ(b.points[1].scenario.traffic.clients, 20);
  EXPECT_EQ(b.points[2].scenario.backoff.strategy, Strategy::decorrelated);
  EXPECT_EQ(b.points[0].scenario.resource.delay_sd, 0.0);
  EXPECT_EQ(b.points[0].scenario.resource.service, montecarlo::ServiceDist::round_trip);
  EXPECT_EQ(b.points[0].scenario.client.attempt_ms, 1.0);  // a sweep in ms keeps the controls' clock
  EXPECT_EQ(canonical(b.points[0], b.kind), montecarlo::canonical(b.points[0].scenario));

  const auto& a = full.sweeps[1];
  ASSERT_EQ(a.points.size(), 4u);
  EXPECT_EQ(a.points[2].layered.layers, 4);
  EXPECT_EQ(a.points[2].layered.failure, 1.0);
  EXPECT_EQ(a.points[3].layered.failure, 0.5);
  EXPECT_EQ(canonical(a.points[3], a.kind), montecarlo::canonical(a.points[3].layered));

  const auto& d = full.sweeps[2];
  ASSERT_EQ(d.points.size(), 8u);  // two grid blocks of max_attempts x outage_fraction x budget
  EXPECT_EQ(d.attempt_duration, 10.0);
  const auto& p0 = d.points[0].scenario;
  EXPECT_EQ(p0.model, Model::none);
  EXPECT_EQ(p0.traffic.rate, 5.0);  // 0.5 per ms, 10 ms per attempt-duration
  EXPECT_EQ(p0.failures.outage_start, 10.0);
  EXPECT_EQ(p0.failures.outage_end, 40.0);
  EXPECT_EQ(p0.failures.outage_fraction, 1.0);
  EXPECT_TRUE(std::isinf(p0.client.timeout));
  EXPECT_EQ(p0.resource.service, montecarlo::ServiceDist::lognormal);
  EXPECT_EQ(p0.client.idempotency, montecarlo::Idempotency::per_attempt);
  EXPECT_EQ(montecarlo::budget_preset_names[p0.client.budget.preset], "none");
  EXPECT_EQ(montecarlo::budget_preset_names[d.points[1].scenario.client.budget.preset], "aws-standard");
  EXPECT_EQ(d.points[2].scenario.failures.outage_fraction, 0.5);
  EXPECT_EQ(montecarlo::breaker_preset_names[p0.client.breaker.preset], "hystrix");
  EXPECT_EQ(montecarlo::breaker_preset_names[d.points[4].scenario.client.breaker.preset], "resilience4j");
  EXPECT_EQ(d.points[4].scenario.admission.limit, 7);
  EXPECT_EQ(p0.admission.limit, 0);
  EXPECT_EQ(p0.client.attempt_ms, 10.0);
  for (const auto& sw : full.sweeps) EXPECT_TRUE(is_extension_kind(sw.kind)) << sw.name;

  const StudySpec quick = parse_study_text(good, "good.toml", "quick");
  EXPECT_EQ(quick.sweeps[0].points.size(), 2u);
}

TEST(Paper2Spec, NoOutageUnlessOutageEndIsGiven) {
  const StudySpec s = parse_study_text(
      "[study]\nname = \"t\"\n[sweep.i]\nkind = \"idempotency\"\nunit = \"ms\"\nattempt_duration = 10\n"
      "model = \"none\"\nstrategy = \"full\"\nbase = 10\ncap = 1000\nrate = 1\nhorizon = 100\n",
      "t.toml", "quick");
  ASSERT_EQ(s.sweeps[0].points.size(), 1u);
  EXPECT_EQ(s.sweeps[0].points[0].scenario.failures.outage_end, 0.0);
}

void expect_error(const std::string& text, const std::string& key, int line) {
  try {
    parse_study_text(text, "bad.toml", "quick");
    ADD_FAILURE() << "no error for key " << key;
  } catch (const SpecError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_EQ(e.line(), line) << what;
    EXPECT_NE(what.find("bad.toml:" + std::to_string(line) + ":"), std::string::npos) << what;
  }
}

std::string head(const std::string& kind) {
  return "[study]\nname = \"t\"\n[sweep.s]\nkind = \"" + kind + "\"\n";
}  // lines 1-4

// A paper 2 engine kind in ms (lines 1-6) on the `none` model with full jitter (lines 7-8): fields from line 9.
std::string head_ms(const std::string& kind) {
  return head(kind) + "unit = \"ms\"\nattempt_duration = 10\nmodel = \"none\"\nstrategy = \"full\"\n";
}

TEST(Paper2Spec, UnknownKeysAreErrors) {
  expect_error(head("brooker") + "leg_sd = 2\n", "sweep.s.leg_sd", 5);  // the old simulator's field
  expect_error(head("amplification") + "clients = 3\n", "sweep.s.clients", 5);
  expect_error(head("budget") + "metrics = [\"latency\"]\n", "sweep.s.metrics", 5);
  expect_error(head("breaker") + "[[sweep.s.grid]]\nlayers = 2\n", "sweep.s.grid[0].layers", 6);
  expect_error(head_ms("idempotency") + "clients = 3\n[sweep.s.full]\nservice_mean = 1\n", "sweep.s.full.service_mean",
               11);
  expect_error(head("brooker_test"), "sweep.s.kind", 4);
}

TEST(Paper2Spec, TheirTablesAreInMs) {
  expect_error(head("budget") + "model = \"none\"\nrate = 1\n", "sweep.s.unit", 3);
  expect_error(head("brooker") + "unit = \"s\"\nattempt_duration = 1\n", "sweep.s.unit", 5);
}

TEST(Paper2Spec, WrongTypesAreErrors) {
  expect_error(head("brooker") + "clients = 2.5\n", "sweep.s.clients", 5);
  expect_error(head("brooker") + "strategy = [\"full\", 3]\n", "sweep.s.strategy[1]", 5);
  expect_error(head("amplification") + "failure = \"half\"\n", "sweep.s.failure", 5);
  expect_error(head("budget") + "budget = \"aws\"\n", "sweep.s.budget", 5);
  expect_error(head("breaker") + "breaker = \"netflix\"\n", "sweep.s.breaker", 5);
  expect_error(head("idempotency") + "idempotency = \"per_attempt\"\n", "sweep.s.idempotency", 5);
  expect_error(head("idempotency") + "timeout = \"never\"\n", "sweep.s.timeout", 5);
  expect_error(head("budget") + "service = \"weibull\"\n", "sweep.s.service", 5);
}

TEST(Paper2Spec, OutOfRangeValuesAreErrors) {
  // The field table's ranges and check_scenario's rules, turned into errors naming the key the value came from.
  expect_error(head("brooker") + "delay_sd = -1\n", "sweep.s.delay_sd", 5);
  expect_error(head_ms("brooker") + "clients = [10, 0]\n", "sweep.s.clients", 9);
  expect_error(head_ms("brooker") + "clients = 3\nbase = 8\ncap = [4, 16]\n", "sweep.s.cap", 11);
  expect_error(head_ms("brooker") + "clients = 3\ndelay = 10\ndelay_sd = 2\n", "sweep.s.delay_sd",
               11);  // needs normal legs
  expect_error(head("amplification") + "failure = 1.5\n", "sweep.s.failure", 5);
  expect_error(head("amplification") + "layers = 20\nattempts = 10\n", "sweep.s.layers", 5);  // a^L > 1e7
  expect_error(head("budget") + "rate = -1\n", "sweep.s.rate", 5);
  const std::string traffic = "rate = 1\nhorizon = 1000\n";                             // lines 9-10
  expect_error(head_ms("budget") + traffic + "settle = true\n", "sweep.s.settle", 11);  // needs max_attempts
  expect_error(head_ms("breaker") + traffic + "outage_start = 500\noutage_end = 100\n", "sweep.s.outage_end", 12);
  expect_error(head_ms("breaker") + traffic + "outage_start = 500\n", "sweep.s.outage_end", 3);  // no end given
  expect_error(head("idempotency") + "cap = \"never\"\n", "sweep.s.cap", 5);
}

// ---------------------------------------------------------------- tiny golden study of every kind

const fs::path test_dir = RETRYLAB_TEST_DIR;

using retrylab::test::slurp;

fs::path fresh_dir(const std::string& name) { return retrylab::test::fresh_dir("paper2-" + name); }

using retrylab::test::all_files;

StudyOptions options(const fs::path& out, int threads) {
  StudyOptions o;
  o.out = out;
  o.threads = threads;
  o.quiet = true;
  o.certificate_id = "test-certificate";
  return o;
}

TEST(Paper2Study, GoldenOutputsAndThreadIndependence) {
  const StudySpec spec = parse_study_file(test_dir / "tiny_paper2.toml", "quick");
  const fs::path one = fresh_dir("golden1"), two = fresh_dir("golden2");
  run_study(spec, options(one, 1));
  run_study(spec, options(two, 2));
  const auto a = all_files(one), b = all_files(two);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) EXPECT_EQ(bytes, b.at(name)) << name << " differs between 1 and 2 threads";
  // Every kind renders its table and figure.
  for (const char* f : {"brooker.md", "brooker.png", "brooker_clients.svg", "brooker_clients_models.md",
                        "brooker_clients_models.png", "classic.png", "amplification.md", "amplification.png",
                        "budget.csv", "budget.png", "idempotency.tex", "idempotency.png", "breaker.md", "breaker.png"})
    EXPECT_TRUE(a.count(f)) << f << " was not written";
  const int compared =
      retrylab::test::expect_goldens(a, test_dir / "golden_paper2", {".md", ".csv", ".tex", ".gp", ".jsonl"});
  if (!retrylab::test::update_golden()) {
    EXPECT_GE(compared, 30);
  }
}

// The amplification table puts the closed form beside the simulation: at total failure (p = 1) every
// request costs exactly a^L bottom calls, so the simulated mean must equal it (3^4 = 81).
TEST(Paper2Study, TotalFailureAmplificationIsExactlyAToTheL) {
  const StudySpec spec = parse_study_text(
      "[study]\nname = \"t\"\n[sweep.a]\nkind = \"amplification\"\nruns = 2\nlayers = 4\nattempts = 3\nfailure = "
      "1.0\nrequests = 50\n",
      "t.toml", "quick");
  const auto rec = run_extension_point(spec.sweeps[0], 0, 1, {});
  EXPECT_EQ(rec.at("summary").at("bottom_calls_per_request").at("mean").get<double>(), 81.0);
  EXPECT_EQ(rec.at("summary").at("top_failure_fraction").at("mean").get<double>(), 1.0);
}

}  // namespace
}  // namespace retrylab::papers::test_paper2
