// A component defined here, in the test tree, and nowhere in montecarlo/: a toy that counts the
// attempts sent, as one metric (toy_sends, per run) and one series quantity (toy_sends, per bin). The
// test composes its own build (every standard component, then the toy: a parts list of its own, since
// the standard builds' list, FullParts, is closed), runs the engine on it with the series observer (the
// loop of its scenario's model, `collision`, alone: run_engine_build would compile every model's), and
// shows the metric in the run's result (its slot in the build's metric table) and the series quantity in
// the series' JSON, CSV and table (api/series.hpp), with the values they must have: every attempt the
// core counts, bin by bin. No file besides this one (and its line in CMakeLists.txt)
// knows the toy. What stays closed: simulate's summary table, JSON and CSV (api/simulate.hpp) loop over
// the registry of FullParts' metrics, so a metric reaches them only from a component in FullParts.
// Also here: the traits that replaced the hand lists (component.hpp): which series quantities a
// scenario shows (a rejection with an AIMD limit, a refusal with adaptive throttling), the refusal of a
// component that counts on one attempt in flight beside hedging, and the local refusals' rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "api/series.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/series_observer.hpp"

namespace mc = retrylab::montecarlo;
namespace d = retrylab::montecarlo::detail;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// The toy: on in every scenario; a count per attempt sent (its hook on_send), reported as a metric
// and told as a series quantity.
class Toy : public d::Component {
 public:
  static constexpr std::array metrics{mc::MetricDef{.key = "toy_sends",
                                                    .label = "attempts the toy saw sent (per run)",
                                                    .dim = mc::Dim::count,
                                                    .rank = 9000,
                                                    .shown = mc::shown::always,
                                                    .when_absent = mc::absent::zero,
                                                    .integer = true}};
  static constexpr std::array series{mc::SeriesQuantityDef{"toy_sends", "attempts the toy saw sent (per bin)",
                                                           mc::Dim::count, 9000, 9000,
                                                           [](const mc::Scenario&) { return true; }}};
  static bool active(const mc::Scenario& /*s*/) noexcept { return true; }

  template <class Faults>
  Toy(const mc::Scenario& /*s*/, const Faults& /*faults*/) {}

  template <class E>
  void on_send(E& e, std::int32_t /*c*/, std::int32_t /*j*/) {
    ++sends_;
    e.template tell_series<Toy>(0, 1.0);
  }
  template <class E>
  void report(E& /*e*/, const mc::RunResult& /*core*/, double /*stop*/, mc::MetricOut out) {
    out[0] = static_cast<double>(sends_);
  }

 private:
  std::int64_t sends_ = 0;
};

// The test's build: the standard components in their order, then the toy.
template <class P, class C>
struct append;
template <class... Cs, class C>
struct append<d::Parts<Cs...>, C> {
  using type = d::Parts<Cs..., C>;
};
using ToyParts = append<d::FullParts, Toy>::type;

mc::Scenario contended() {
  mc::Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::full, 1.0, 50.0, 0.0};
  s.traffic.clients = 30;
  s.traffic.rate = 0.2;
  s.admission.limit = 3;  // a standard component on too (the limit): its series quantity beside the toy's
  s.measurement.horizon = 200.0;
  return s;
}

std::size_t slot_of(const mc::Series& series, std::string_view key) {
  for (std::size_t i = 0; i < series.quantities.size(); ++i)
    if (series.quantities[i].key == key) return i;
  return series.quantities.size();
}

}  // namespace

TEST(ToyComponent, ItsMetricAndSeriesQuantityReachEveryOutputOfItsBuild) {
  const mc::Scenario s = contended();
  mc::check_scenario(s);
  const double bin = 20.0;
  const std::int64_t bins = mc::series_bins(bin, mc::effective_horizon(s));
  using defs_of = d::series_table<ToyParts>;
  const std::span<const mc::SeriesQuantityDef> defs = defs_of::defs;
  d::EngineOptions options;
  options.full_tier = true;
  options.lockstep_shortcut = false;
  options.one_event_shortcut = false;
  d::SeriesReducer reducer(defs, bin, bins);
  constexpr std::size_t metric_slot = d::metric_table<ToyParts>::offset<Toy>;
  const std::size_t toy = defs_of::slot<Toy>(0);
  ASSERT_LT(toy, defs.size());
  ASSERT_EQ(s.model, Model::collision);  // the one loop compiled here
  ASSERT_TRUE(ToyParts::hosts(s, static_cast<d::FullParts*>(nullptr)));
  std::int64_t all_attempts = 0;
  for (std::uint64_t i = 0; i < 4; ++i) {
    mc::RunSeries run;
    d::SeriesObserver observer(defs, bin, bins, s.measurement.warmup, true, run);
    const mc::RunResult r = d::Engine<Model::collision, ToyParts, d::SeriesObserver>(s, 7, i, options, observer).run();
    observer.finish(r);
    // The metric: the toy's slot of the result, one per attempt the core counted.
    EXPECT_GT(r.attempts, 0);
    EXPECT_EQ(r.extra[metric_slot], static_cast<double>(r.attempts)) << "run " << i;
    all_attempts += r.attempts;
    // The series quantity: bin by bin, the attempts the core's own quantity counts.
    const std::size_t attempts = static_cast<std::size_t>(mc::SeriesQuantity::attempts);
    for (std::size_t k = 0; k < static_cast<std::size_t>(bins); ++k) {
      const double a = run.values[attempts][k], t = run.values[toy][k];
      EXPECT_TRUE(a == t || (std::isnan(a) && std::isnan(t))) << "run " << i << " bin " << k;
    }
    reducer.add(run);
  }
  ASSERT_GT(all_attempts, 0);
  const mc::Series series = reducer.result();
  ASSERT_EQ(slot_of(series, "toy_sends"), toy);
  // The standard quantities keep their slots (the toy's rank is above every other).
  for (std::size_t i = 0; i + 1 < series.quantities.size(); ++i)
    EXPECT_EQ(series.quantities[i].key, mc::series_quantity_defs()[i].key);

  // JSON: the toy's quantity, with its label and the attempts' means.
  const mc::TimeUnit unit;
  const auto json = retrylab::api::series_json(series, unit);
  ASSERT_TRUE(json.at("quantities").contains("toy_sends"));
  const auto& q = json.at("quantities").at("toy_sends");
  EXPECT_EQ(q.at("label").get<std::string>(), "attempts the toy saw sent (per bin)");
  EXPECT_EQ(q.at("mean"), json.at("quantities").at("attempts").at("mean"));
  // CSV: its three columns, last (its rank), equal to the attempts' columns row by row.
  const std::string csv = retrylab::api::series_csv(series, unit);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",toy_sends,toy_sends_lo,toy_sends_hi"), std::string::npos) << header;
  EXPECT_EQ(header.rfind(",toy_sends_hi"), header.size() - std::string(",toy_sends_hi").size());
  // Table (and so the figure, which takes the same columns): shown, beside the limit's rejections.
  retrylab::api::ResolvedScenario resolved;
  resolved.scenario = s;
  const std::string table = retrylab::api::series_table(series, resolved);
  EXPECT_NE(table.find("toy_sends"), std::string::npos) << table;
  EXPECT_NE(table.find("rejected"), std::string::npos) << table;
  const auto shown = retrylab::api::shown_series(series, s);
  EXPECT_EQ(shown.back(), toy);
}

namespace {
std::vector<std::string> shown_keys(const mc::Scenario& s) {
  mc::Series series;
  series.quantities.assign(mc::series_quantity_defs().begin(), mc::series_quantity_defs().end());
  std::vector<std::string> out;
  for (const std::size_t i : retrylab::api::shown_series(series, s)) out.emplace_back(series.quantities[i].key);
  return out;
}
bool has(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}
}  // namespace

// Which quantities a series table shows follows each quantity's owner: the limit's rejections with an
// AIMD limit too (the hand list showed them with a fixed limit only), the core's refusals with
// adaptive throttling too (it showed them with a breaker only).
TEST(ToyComponent, ShownSeriesFollowTheTraits) {
  mc::Scenario s;
  s.traffic.clients = 10;
  const auto plain = shown_keys(s);
  EXPECT_FALSE(has(plain, "rejected"));
  EXPECT_FALSE(has(plain, "refused"));
  EXPECT_FALSE(has(plain, "retries_denied"));
  EXPECT_FALSE(has(plain, "breaker_open"));
  EXPECT_EQ(plain,
            (std::vector<std::string>{"offered", "attempts", "successes", "failures", "lost", "backlog", "in_flight",
                                      "server_queue", "latency_p50", "latency_p99", "latency_p999"}));
  mc::Scenario aimd = s;
  aimd.admission.aimd = true;
  EXPECT_TRUE(has(shown_keys(aimd), "rejected"));
  mc::Scenario adaptive = s;
  adaptive.client.budget.preset = 4;  // sre-adaptive
  ASSERT_EQ(mc::budget_preset_names[adaptive.client.budget.preset], "sre-adaptive");
  const auto a = shown_keys(adaptive);
  EXPECT_TRUE(has(a, "refused"));
  EXPECT_TRUE(has(a, "retries_denied"));
  EXPECT_FALSE(has(a, "breaker_open"));
  mc::Scenario grpc = s;
  grpc.client.budget.preset = 2;  // a token bucket refuses retries, never a call
  EXPECT_FALSE(has(shown_keys(grpc), "refused"));
  mc::Scenario breaker = s;
  breaker.client.breaker.preset = 1;
  const auto b = shown_keys(breaker);
  EXPECT_TRUE(has(b, "refused"));
  EXPECT_TRUE(has(b, "breaker_open"));
}

// Hedging keeps several attempts of a request in flight (sends_several); a component that counts on
// one (it does not declare allows_several_in_flight) is refused beside it, naming it.
TEST(ToyComponent, SeveralInFlightIsRefusedBesideAComponentThatCountsOnOne) {
  mc::Scenario s;
  s.traffic.clients = 10;
  s.client.hedge.attempts = 2;
  s.client.hedge.delay = 1.0;
  EXPECT_NO_THROW(mc::check_scenario(s));
  const auto refused_with = [&](auto set, const std::string& other) {
    mc::Scenario t = s;
    set(t);
    try {
      mc::check_scenario(t);
      ADD_FAILURE() << "accepted beside " << other;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "hedge_attempts");
      EXPECT_NE(std::string(e.what()).find("`" + other + "`"), std::string::npos) << e.what();
    }
  };
  refused_with([](mc::Scenario& t) { t.client.breaker.preset = 1; }, "breaker");
  mc::Scenario quota = s;
  quota.client.quota = 3;  // allows several in flight
  EXPECT_NO_THROW(mc::check_scenario(quota));
  // A client timeout (each copy its own) and a deadline that cancels every copy declare it too.
  mc::Scenario timed = s;
  timed.client.timeout = 5.0;
  EXPECT_NO_THROW(mc::check_scenario(timed));
  mc::Scenario deadline = s;
  deadline.client.deadline = 50.0;
  deadline.client.deadline_cancel = true;
  EXPECT_NO_THROW(mc::check_scenario(deadline));
}

// A client on strategy none that a component may refuse locally needs max_attempts: the first such
// component on names the rule (the breaker before the budget, the list's order).
TEST(ToyComponent, LocalRefusalsNeedMaxAttemptsWithStrategyNone) {
  mc::Scenario s;
  s.traffic.clients = 10;
  s.backoff = {Strategy::none, 1.0, 10.0, 0.0};
  s.client.attempt_ms = 1.0;
  s.client.budget.preset = 4;  // sre-adaptive refuses calls locally
  try {
    mc::check_scenario(s);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "budget");
  }
  s.client.breaker.preset = 1;
  try {
    mc::check_scenario(s);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "breaker");
  }
  s.client.max_attempts = 3;
  EXPECT_NO_THROW(mc::check_scenario(s));
  mc::Scenario grpc = s;
  grpc.client.breaker.preset = 0;
  grpc.client.max_attempts = 0;
  grpc.client.budget.preset = 2;  // a token bucket: no local refusal of a call
  EXPECT_NO_THROW(mc::check_scenario(grpc));
}
