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

#include "papers/kinds.hpp"
#include "papers/spec.hpp"
#include "papers/study.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef RETRYLAB_TEST_DIR
#error "RETRYLAB_TEST_DIR must name tests/papers"
#endif

namespace retrylab::papers {
namespace {

namespace fs = std::filesystem;

const char* const good = R"(
[study]
name = "t"
seed = 5

[sweep.b]
kind = "brooker"
runs = 3
strategy = ["full", "decorrelated"]
clients = [10, 20]
leg_sd = 0
  [sweep.b.quick]
  clients = 10

[sweep.a]
kind = "amplification"
layers = [1, 4]
attempts = 3
failure = [1.0, 0.5]

[sweep.d]
kind = "budget"
rate = 0.5
horizon = 1000
outage_start = 100
outage_end = 400
outage_failure = [1.0, 0.5]
timeout = "none"
budget = ["none", "aws-standard"]
service = "lognormal"
idempotency = "per-attempt"
  [[sweep.d.grid]]
  breaker = "hystrix"
  [[sweep.d.grid]]
  breaker = "resilience4j"
  capacity = 7
)";

TEST(Paper2Spec, GoodFileExpandsEveryKind) {
  const StudySpec full = parse_study_text(good, "good.toml", "full");
  ASSERT_EQ(full.sweeps.size(), 3u);
  const auto& b = full.sweeps[0];
  EXPECT_EQ(b.kind, SweepKind::brooker);
  ASSERT_EQ(b.points.size(), 4u);  // strategy x clients, last field fastest
  EXPECT_EQ(b.points[1].brooker.backoff.strategy, Strategy::full);
  EXPECT_EQ(b.points[1].brooker.clients, 20);
  EXPECT_EQ(b.points[2].brooker.backoff.strategy, Strategy::decorrelated);
  EXPECT_EQ(b.points[0].brooker.leg_sd, 0.0);
  // Fields not given keep the simulator's defaults (Brooker's base 5 ms, cap 2000 ms, legs of 10 ms).
  EXPECT_EQ(b.points[0].brooker.backoff.base, montecarlo::brooker_default_base);
  EXPECT_EQ(b.points[0].brooker.backoff.cap, montecarlo::brooker_default_cap);
  EXPECT_EQ(b.points[0].brooker.leg_mean, montecarlo::brooker_default_leg_mean);
  EXPECT_EQ(canonical(b.points[0], b.kind), montecarlo::canonical(b.points[0].brooker));

  const auto& a = full.sweeps[1];
  ASSERT_EQ(a.points.size(), 4u);
  EXPECT_EQ(a.points[2].layered.layers, 4);
  EXPECT_EQ(a.points[2].layered.failure, 1.0);
  EXPECT_EQ(a.points[3].layered.failure, 0.5);
  EXPECT_EQ(canonical(a.points[3], a.kind), montecarlo::canonical(a.points[3].layered));

  const auto& d = full.sweeps[2];
  ASSERT_EQ(d.points.size(), 8u);  // two grid blocks of outage_failure x budget
  const auto& p0 = d.points[0].dependency;
  ASSERT_EQ(p0.outages.size(), 1u);
  EXPECT_EQ(p0.outages[0].start, 100.0);
  EXPECT_EQ(p0.outages[0].end, 400.0);
  EXPECT_EQ(p0.outages[0].failure, 1.0);
  EXPECT_TRUE(std::isinf(p0.timeout));
  EXPECT_EQ(p0.service, montecarlo::ServiceDistribution::lognormal);
  EXPECT_EQ(p0.idempotency, montecarlo::Idempotency::per_attempt);
  EXPECT_EQ(montecarlo::canonical(p0.budget), montecarlo::canonical(montecarlo::budget_preset("none")));
  EXPECT_EQ(montecarlo::canonical(d.points[1].dependency.budget),
            montecarlo::canonical(montecarlo::budget_preset("aws-standard")));
  EXPECT_EQ(d.points[2].dependency.outages[0].failure, 0.5);
  EXPECT_EQ(montecarlo::canonical(p0.breaker), montecarlo::canonical(montecarlo::breaker_preset("hystrix")));
  EXPECT_EQ(montecarlo::canonical(d.points[4].dependency.breaker),
            montecarlo::canonical(montecarlo::breaker_preset("resilience4j")));
  EXPECT_EQ(d.points[4].dependency.capacity, 7);
  EXPECT_EQ(p0.capacity, 0);
  EXPECT_EQ(canonical(d.points[4], d.kind), montecarlo::canonical(d.points[4].dependency));
  for (const auto& sw : full.sweeps) EXPECT_TRUE(is_extension_kind(sw.kind)) << sw.name;

  const StudySpec quick = parse_study_text(good, "good.toml", "quick");
  EXPECT_EQ(quick.sweeps[0].points.size(), 2u);
}

TEST(Paper2Spec, NoOutageUnlessOutageEndIsGiven) {
  const StudySpec s = parse_study_text(
      "[study]\nname = \"t\"\n[sweep.i]\nkind = \"idempotency\"\nrate = 1\nhorizon = 100\n", "t.toml", "quick");
  ASSERT_EQ(s.sweeps[0].points.size(), 1u);
  EXPECT_TRUE(s.sweeps[0].points[0].dependency.outages.empty());
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

TEST(Paper2Spec, UnknownKeysAreErrors) {
  expect_error(head("brooker") + "model = \"free\"\n", "sweep.s.model", 5);  // an engine field, not Brooker's
  expect_error(head("amplification") + "clients = 3\n", "sweep.s.clients", 5);
  expect_error(head("budget") + "metrics = [\"latency\"]\n", "sweep.s.metrics", 5);
  expect_error(head("breaker") + "[[sweep.s.grid]]\nlayers = 2\n", "sweep.s.grid[0].layers", 6);
  expect_error(head("idempotency") + "[sweep.s.full]\nleg_sd = 1\n", "sweep.s.full.leg_sd", 6);
  expect_error(head("brooker_test"), "sweep.s.kind", 4);
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
  // The simulators' own checks, turned into errors naming the key the value came from.
  expect_error(head("brooker") + "leg_sd = -1\n", "sweep.s.leg_sd", 5);
  expect_error(head("brooker") + "clients = [10, 0]\n", "sweep.s.clients", 5);
  expect_error(head("brooker") + "base = 8\ncap = [4, 16]\n", "sweep.s.cap", 6);
  expect_error(head("amplification") + "failure = 1.5\n", "sweep.s.failure", 5);
  expect_error(head("amplification") + "layers = 20\nattempts = 10\n", "sweep.s.layers", 5);  // a^L > 1e7
  expect_error(head("budget") + "rate = 0\n", "sweep.s.rate", 5);
  expect_error(head("budget") + "max_attempts = 0\n", "sweep.s.max_attempts", 5);
  expect_error(head("breaker") + "outage_start = 500\noutage_end = 100\n", "sweep.s.outage_end", 6);
  expect_error(head("breaker") + "outage_start = 500\n", "sweep.s.outage_start", 5);
  expect_error(head("idempotency") + "cap = \"none\"\n", "sweep.s.cap", 5);
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
}  // namespace retrylab::papers
