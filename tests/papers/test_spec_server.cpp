// Study spec parsing of the server fields: every montecarlo::Scenario field can be
// given or swept under its CLI flag's name with '_' for '-'; a spec without them expands to the
// same points (and canonical strings) as before; a bad value or combination is an error naming the
// key and its line (expected lines are those of the TOML texts written below).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "papers/spec.hpp"

namespace retrylab::papers::test_spec_server {
namespace {

namespace mc = montecarlo;

const char* const good = R"(
[study]
name = "t"

[sweep.lock]
kind = "steady"
model = "shared"
rate = 0.5
horizon = 100
rows = [1, 4]
lock = true
service = "lognormal"
service_cv = [0.5, 1.5]
delay = 0.25
delay_dist = "exponential"

[sweep.shed]
kind = "steady"
model = "shared"
rate = 0.5
horizon = 100
limit = 10
overflow = "reject"
reject_cost = 0.05
retry_after = 5
retry_after_rule = "uniform"
ignore_retry_after = 0.1
mix = 0.1
mix_strategy = "full"
mix_base = 2
mix_cap = "none"

[sweep.aimd]
kind = "burst"
model = "collision"
clients = 10
aimd = "on"
aimd_initial = 30
aimd_min = 10
aimd_max = 100
aimd_backoff = 0.75
aimd_timeout = "none"
overflow = "queue"

[sweep.plain]
kind = "steady"
rate = 0.1
horizon = 100
)";

TEST(SpecServer, ServerFieldsReachTheScenario) {
  const StudySpec st = parse_study_text(good, "good.toml", "quick");
  ASSERT_EQ(st.sweeps.size(), 4u);
  const auto& lock = st.sweeps[0].points;
  ASSERT_EQ(lock.size(), 4u);  // rows x service_cv, the later field fastest
  EXPECT_EQ(lock[0].scenario.resource.rows, 1);
  EXPECT_DOUBLE_EQ(lock[1].scenario.resource.service_cv, 1.5);
  EXPECT_EQ(lock[2].scenario.resource.rows, 4);
  EXPECT_TRUE(lock[3].scenario.resource.lock);
  EXPECT_EQ(lock[3].scenario.resource.service, mc::ServiceDist::lognormal);
  EXPECT_DOUBLE_EQ(lock[3].scenario.resource.delay, 0.25);
  EXPECT_EQ(lock[3].scenario.resource.delay_dist, mc::DelayDist::exponential);

  ASSERT_EQ(st.sweeps[1].points.size(), 1u);
  const mc::Scenario& shed = st.sweeps[1].points[0].scenario;
  EXPECT_EQ(shed.admission.limit, 10);
  EXPECT_EQ(shed.admission.overflow, mc::Overflow::reject);
  EXPECT_DOUBLE_EQ(shed.admission.reject_cost, 0.05);
  EXPECT_DOUBLE_EQ(shed.admission.retry_after, 5.0);
  EXPECT_EQ(shed.admission.retry_after_rule, mc::RetryAfterRule::uniform);
  EXPECT_DOUBLE_EQ(shed.client.ignore_retry_after, 0.1);
  EXPECT_DOUBLE_EQ(shed.client.mix, 0.1);
  EXPECT_EQ(shed.client.mix_backoff.strategy, Strategy::full);
  EXPECT_DOUBLE_EQ(shed.client.mix_backoff.base, 2.0);
  EXPECT_TRUE(std::isinf(shed.client.mix_backoff.cap));

  const mc::Scenario& aimd = st.sweeps[2].points[0].scenario;
  EXPECT_TRUE(aimd.admission.aimd);
  EXPECT_EQ(aimd.admission.aimd_params.initial, 30);
  EXPECT_EQ(aimd.admission.aimd_params.min, 10);
  EXPECT_EQ(aimd.admission.aimd_params.max, 100);
  EXPECT_DOUBLE_EQ(aimd.admission.aimd_params.backoff, 0.75);
  EXPECT_TRUE(std::isinf(aimd.admission.aimd_params.timeout));
  EXPECT_EQ(aimd.admission.overflow, mc::Overflow::queue);

  // Fields not given keep their defaults: the canonical string (the store's key) has no server part,
  // exactly as before the server options existed; a given field shows in it.
  const mc::Scenario& plain = st.sweeps[3].points[0].scenario;
  EXPECT_FALSE(mc::has_server_features(plain));
  EXPECT_EQ(canonical(st.sweeps[3].points[0], SweepKind::steady).find("rows="), std::string::npos);
  EXPECT_NE(canonical(lock[2], SweepKind::steady).find("rows=4"), std::string::npos);
}

// Expects a SpecError whose text names `key` and `file:line`.
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

const std::string head = "[study]\nname = \"t\"\n[sweep.s]\nkind = \"grid\"\nclients = 3\n";  // lines 1-5

TEST(SpecServer, BadValuesNameTheKeyAndLine) {
  expect_error(head + "rows = 0\n", "sweep.s.rows", 6);
  expect_error(head + "rows = [2, 1.5]\n", "sweep.s.rows[1]", 6);
  expect_error(head + "service = \"weibull\"\n", "sweep.s.service", 6);
  expect_error(head + "lock = 3\n", "sweep.s.lock", 6);
  expect_error(head + "limit = -1\n", "sweep.s.limit", 6);
  expect_error(head + "overflow = \"drop\"\n", "sweep.s.overflow", 6);
  expect_error(head + "delay_dist = \"gamma\"\n", "sweep.s.delay_dist", 6);
  expect_error(head + "retry_after_rule = \"random\"\n", "sweep.s.retry_after_rule", 6);
  expect_error(head + "aimd_timeout = -1\n", "sweep.s.aimd_timeout", 6);
  expect_error(head + "mix_strategy = \"fancy\"\n", "sweep.s.mix_strategy", 6);
  expect_error(head + "delay = \"far\"\n", "sweep.s.delay", 6);
}

TEST(SpecServer, BadCombinationsAreTheEnginesRulesNamingTheKey) {
  // check_scenario's rules, reported against the key the offending value came from.
  expect_error(head + "service_cv = 1.5\n", "sweep.s.service_cv", 6);                    // lognormal only
  expect_error(head + "overflow = \"queue\"\n", "sweep.s.overflow", 6);                  // needs a limit
  expect_error(head + "limit = 5\nreject_cost = [0.5, 2]\n", "sweep.s.reject_cost", 7);  // [0, 1]
  expect_error(head + "mix = 0.5\nmix_strategy = \"full\"\nmix_base = 8\nmix_cap = 4\n", "sweep.s.mix_cap", 9);
  expect_error(head + "aimd_min = 50\n", "sweep.s.aimd", 3);  // aimd fields without aimd: the block
}

TEST(SpecServer, ServerFieldsBelongToEngineSweepsOnly) {
  expect_error("[study]\nname = \"t\"\n[sweep.s]\nkind = \"sleep\"\nrows = 4\n", "sweep.s.rows", 5);
  expect_error("[study]\nname = \"t\"\n[sweep.s]\nkind = \"amplification\"\nlock = true\n", "sweep.s.lock", 5);
}

// A sweep written in ms: times divided by the attempt duration, rates multiplied, the controls' clock
// set; the same points (apart from attempt_ms) as the sweep written in attempt-durations.
TEST(SpecServer, UnitMsConvertsTimesAndRates) {
  const std::string ms =
      "[study]\nname = \"t\"\n[sweep.s]\nkind = \"steady\"\nunit = \"ms\"\nattempt_duration = 20\n"
      "model = \"shared\"\nrate = [0.005, 0.01]\nhorizon = 2000\nbase = 20\ncap = 2000\ntimeout = 40\n";
  const std::string plain =
      "[study]\nname = \"t\"\n[sweep.s]\nkind = \"steady\"\n"
      "model = \"shared\"\nrate = [0.1, 0.2]\nhorizon = 100\nbase = 1\ncap = 100\ntimeout = 2\n";
  const StudySpec a = parse_study_text(ms, "ms.toml", "quick"), b = parse_study_text(plain, "plain.toml", "quick");
  ASSERT_EQ(a.sweeps[0].points.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    mc::Scenario x = a.sweeps[0].points[i].scenario;
    EXPECT_DOUBLE_EQ(x.client.attempt_ms, 20.0);
    x.client.attempt_ms = 0.0;
    EXPECT_EQ(mc::canonical(x), mc::canonical(b.sweeps[0].points[i].scenario));
  }
  expect_error("[study]\nname = \"t\"\n[sweep.s]\nkind = \"steady\"\nunit = \"ms\"\nrate = 1\nhorizon = 5\n",
               "sweep.s.attempt_duration", 5);
  expect_error("[study]\nname = \"t\"\n[sweep.s]\nkind = \"steady\"\nunit = \"hours\"\n", "sweep.s.unit", 5);
  expect_error("[study]\nname = \"t\"\n[sweep.s]\nkind = \"amplification\"\nunit = \"ms\"\n", "sweep.s.unit", 5);
}

}  // namespace
}  // namespace retrylab::papers::test_spec_server
