// The scenario field table (montecarlo/fields.hpp): canonical() keeps the strings every earlier
// scenario had (so its RNG key and results), strict parsing of every kind of field, the range
// checks check_scenario takes from the table, the multiplier's windows, and the generated
// docs/scenario-fields.md being up to date.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "analytic/error.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/sampler.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {
namespace {

const Field& field(std::string_view name) {
  const Field* f = find_field(name);
  EXPECT_NE(f, nullptr) << name;
  return *f;
}

TEST(Fields, CanonicalStringsOfEarlierScenariosAreUnchanged) {
  // Literal strings as the canonical() before the field table wrote them (goldens, traces and paper
  // results rest on them: they are the RNG key).
  Scenario s;
  s.model = Model::free;
  s.traffic.clients = 100;
  EXPECT_EQ(canonical(s),
            "model=free strategy=full base=1 cap=1000 window=0 clients=100 rate=0 horizon=10000000 "
            "warmup=0 collapse=3000 retries=on");
  s.backoff = {Strategy::window, 1.0, unbounded_cap, 40.0};
  s.traffic.rate = 0.15;
  s.measurement.horizon = 20000;
  s.measurement.warmup = 2000;
  s.client.retries = false;
  EXPECT_EQ(canonical(s),
            "model=free strategy=window base=1 cap=none window=40 clients=100 rate=0.15 horizon=20000 "
            "warmup=2000 collapse=3000 retries=off");
  Scenario t;
  t.model = Model::shared;
  t.traffic.rate = 0.5;
  t.measurement.horizon = 300;
  t.resource.rows = 3;
  t.resource.service = ServiceDist::lognormal;
  t.resource.service_cv = 1.5;
  t.resource.lock = true;
  t.admission.aimd = true;
  t.admission.aimd_params.min = 1;
  t.admission.aimd_params.initial = 4;
  t.client.mix = 0.3;
  t.client.mix_backoff.strategy = Strategy::none;
  t.client.timeout = 10;
  t.client.max_attempts = 3;
  EXPECT_EQ(canonical(t),
            "model=shared strategy=full base=1 cap=1000 window=0 clients=0 rate=0.5 horizon=300 "
            "warmup=0 collapse=3000 retries=on rows=3 service=lognormal service_cv=1.5 lock=on "
            "aimd=on aimd_initial=4 aimd_min=1 aimd_max=200 aimd_backoff=0.9 aimd_timeout=none "
            "mix=0.3 mix_strategy=none mix_base=1 mix_cap=1000 mix_window=0 timeout=10 max_attempts=3");
}

TEST(Fields, MultiplierAppearsOnlyWhenSet) {
  Scenario s;
  s.traffic.clients = 10;
  const std::string plain = canonical(s);
  s.backoff.multiplier = 1.5;
  EXPECT_EQ(canonical(s), plain + " multiplier=1.5");
  EXPECT_NE(stable_hash(s), fnv1a64(plain));
}

TEST(Fields, StrictParsing) {
  EXPECT_EQ(parse_field(field("base"), "2.5"), 2.5);
  EXPECT_EQ(parse_field(field("cap"), "none"), unbounded_cap);
  EXPECT_EQ(parse_field(field("retries"), "off"), 0.0);
  EXPECT_EQ(parse_field(field("model"), "ps"), 3.0);
  EXPECT_EQ(parse_field(field("clients"), "300"), 300.0);
  for (const char* bad : {"", "0x10", "1e400", "nan", "inf", "-inf", "2.5x", " 1", "none"})
    EXPECT_THROW(parse_field(field("base"), bad), InputError) << "base=" << bad;
  for (const char* bad : {"1.5", "1e3", "-1", "", "100000001"})
    EXPECT_THROW(parse_field(field("clients"), bad), InputError) << "clients=" << bad;
  EXPECT_THROW(parse_field(field("retries"), "yes"), InputError);
  EXPECT_THROW(parse_field(field("model"), "brooker"), InputError);
  try {
    parse_field(field("reject_cost"), "2");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "reject_cost must be in [0, 1] (got 2)");
  }
  try {
    parse_field(field("service"), "gamma");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "service must be deterministic, exponential, lognormal or round-trip (got gamma)");
  }
}

// The table's choice lists spell the library's own names, in enum order (a strategy or model added
// to analytic/ must be added to the table too).
TEST(Fields, ChoicesAreTheLibrarysNames) {
  const Field& strategy = field("strategy");
  ASSERT_EQ(strategy.choices.size(), std::size(all_strategies));
  for (std::size_t i = 0; i < strategy.choices.size(); ++i)
    EXPECT_EQ(strategy.choices[i], to_string(all_strategies[i]));
  EXPECT_EQ(field("mix_strategy").choices.size(), std::size(all_strategies));
  const Field& model = field("model");
  ASSERT_EQ(model.choices.size(), std::size(all_models));
  for (std::size_t i = 0; i < model.choices.size(); ++i) EXPECT_EQ(model.choices[i], to_string(all_models[i]));
}

TEST(Fields, EveryFieldRoundTripsThroughItsText) {
  const Scenario d{};
  for (const Field& f : scenario_fields()) {
    if (f.name == "horizon") continue;  // 0 = unset, not a value one can type
    EXPECT_FALSE(f.meaning.empty()) << f.name;
    if (f.kind == FieldKind::text) continue;  // a text has no number (TextFieldIsParsedByItsOwnParser)
    const double v = f.get(d);
    const std::string text = format_field(f, v);
    EXPECT_EQ(parse_field(f, text), v) << f.name << "=" << text;
    EXPECT_NO_THROW(check_field(f, v)) << f.name;
    EXPECT_FALSE(f.meaning.empty()) << f.name;
  }
}

// The load profile is a text field: its own parser validates the untrusted text (an error names
// the field and its forms), canonical() prints it last as before it was a row, its number access
// fails loudly, a number is refused with its forms, and a unit's scale converts times and rates.
TEST(Fields, TextFieldIsParsedByItsOwnParser) {
  const Field& f = field("load_profile");
  ASSERT_EQ(f.kind, FieldKind::text);
  EXPECT_EQ(default_text(f), "none");
  EXPECT_NE(range_text(f).find("step:t:rate"), std::string::npos);
  Scenario s;
  s.model = Model::none;
  s.traffic.clients = 0;
  s.measurement.horizon = 60;
  EXPECT_FALSE(field_shown(f, s));
  set_field_text(f, s, "0:0.5,30:1,60:0.5");
  EXPECT_TRUE(field_shown(f, s));
  EXPECT_EQ(field_text(f, s), "0:0.5,30:1,60:0.5");
  EXPECT_NO_THROW(check_scenario(s));
  const std::string c = canonical(s);
  EXPECT_EQ(c.substr(c.size() - std::string(" load_profile=0:0.5,30:1,60:0.5").size()),
            " load_profile=0:0.5,30:1,60:0.5")
      << c;
  for (const char* bad : {"", "0:1,0:2", "0:-1", "nan:1", "step:", "sine:0:1:1", "1;rm -rf /", "0:1\n# x=y"}) {
    Scenario t = s;
    try {
      set_field_text(f, t, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "load_profile") << bad;
      EXPECT_EQ(t.traffic.load_profile, s.traffic.load_profile) << "a refused text changed the scenario: " << bad;
    }
  }
  try {
    check_field(f, 3.0);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t:rate"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.get(s), std::logic_error);
  EXPECT_THROW(format_field(f, 0.0), std::logic_error);
  f.text.scale(s, 2.0);  // an attempt-duration of 2 in the unit: times / 2, rates x 2
  EXPECT_EQ(field_text(f, s), "0:1,15:2,30:1");
}

TEST(Fields, CheckScenarioTakesRangesFromTheTable) {
  Scenario s;
  s.traffic.clients = 10;
  s.resource.rows = 0;
  EXPECT_THROW(check_scenario(s), InputError);
  s.resource.rows = 2;
  s.backoff.multiplier = 0.5;
  try {
    check_scenario(s);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "multiplier");
  }
  s.backoff.multiplier = 1.0;
  EXPECT_NO_THROW(check_scenario(s));
}

TEST(Fields, MultiplierWindows) {
  Backoff b{Strategy::nojitter, 1.0, 1000.0, 0.0, 1.0};
  SleepSampler constant(b);
  for (int k : {1, 2, 10, 64, 65, 5000}) EXPECT_EQ(constant.width(k), 1.0) << k;
  b.multiplier = 3.0;
  SleepSampler triple(b);
  EXPECT_EQ(triple.width(1), 1.0);
  EXPECT_EQ(triple.width(2), 3.0);
  EXPECT_EQ(triple.width(5), 81.0);
  EXPECT_EQ(triple.width(8), 1000.0);  // 3^7 = 2187 > cap
  b.multiplier = 2.0;
  SleepSampler doubling(b);
  for (int k = 1; k <= 12; ++k) EXPECT_EQ(doubling.width(k), std::min(1000.0, std::ldexp(1.0, k - 1)));
}

RC_GTEST_PROP(Fields, GrownWidthIsExactForPowersOfTwo, ()) {
  const int e = *rc::gen::inRange(0, 900);
  const double base = *rc::gen::element(0.5, 1.0, 3.0, 1e-3);
  RC_ASSERT(grown_width(base, 2.0, e) == std::ldexp(base, e));
  RC_ASSERT(grown_width(base, 4.0, e / 2) == std::ldexp(base, 2 * (e / 2)));
}

TEST(Fields, DocsTableIsGeneratedFromTheTable) {
  std::ifstream in(RETRYLAB_FIELDS_DOC);
  ASSERT_TRUE(in) << RETRYLAB_FIELDS_DOC;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  EXPECT_NE(doc.find(fields_markdown()), std::string::npos)
      << "docs/scenario-fields.md is stale: regenerate its table with "
         "`retrylab simulate --list-fields markdown`";
}

}  // namespace
}  // namespace retrylab::montecarlo
