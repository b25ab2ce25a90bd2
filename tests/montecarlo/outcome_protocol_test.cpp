// The components' protocol (montecarlo/component.hpp, docs/architecture.md): every outcome is a
// record every component hears, a client timeout, a local refusal, a rejection and a cancellation
// included. A recording component, built into an engine beside the components that make each kind,
// counts the records by kind; each count equals the metric of the component that made those
// outcomes, and is above 0 (each scenario is built to make them). Exact, deterministic runs (model
// none: every attempt served for one unit).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "montecarlo/engine.hpp"
#include "montecarlo/scenario.hpp"
#include "tests/support/build_metric.hpp"

namespace mc = retrylab::montecarlo;
namespace d = retrylab::montecarlo::detail;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// Hears every outcome and counts it by kind; decides nothing.
class Recorder : public d::Component {
 public:
  static bool active(const mc::Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Recorder(const mc::Scenario& /*s*/, const Faults& /*faults*/) {}
  template <class E>
  void on_outcome(E& /*e*/, const d::Outcome& o) {
    ++heard[static_cast<std::size_t>(o.kind)];
    if (o.kind == d::OutcomeKind::refused) EXPECT_EQ(o.job, -1);  // no attempt
  }
  std::array<std::int64_t, 7> heard{};
};

struct Run {
  mc::RunResult result;
  std::array<std::int64_t, 7> heard{};
  std::int64_t of(d::OutcomeKind k) const { return heard[static_cast<std::size_t>(k)]; }
};

template <class P>
Run run(const mc::Scenario& s) {
  d::NullObserver observer;
  d::Engine<Model::none, P, d::NullObserver> engine(s, 11, 0, d::EngineOptions{}, observer);
  Run out;
  out.result = engine.run();
  out.heard = engine.parts().template get<Recorder>().heard;
  return out;
}

mc::Scenario burst(std::int64_t clients) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = clients;
  s.measurement.horizon = 200.0;
  return s;
}

}  // namespace

TEST(OutcomeProtocol, TimeoutsAndLocalRefusalsAreHeard) {
  // Every attempt takes one unit and its client waits half: each times out, the breaker opens and
  // refuses calls, which back off and come again.
  mc::Scenario s = burst(20);
  s.client.timeout = 0.5;
  s.client.breaker.preset = 2;  // resilience4j
  s.client.attempt_ms = 50.0;
  mc::check_scenario(s);
  const auto r = run<d::Parts<d::Timeout, d::Breaker, Recorder>>(s);
  EXPECT_GT(r.of(d::OutcomeKind::timeout), 0);
  EXPECT_EQ(r.of(d::OutcomeKind::timeout),
            (mc::testing::build_metric<d::Parts<d::Timeout, d::Breaker, Recorder>>(r.result, "timed_out")));
  EXPECT_GT(r.of(d::OutcomeKind::refused), 0);
  EXPECT_EQ(r.of(d::OutcomeKind::refused),
            (mc::testing::build_metric<d::Parts<d::Timeout, d::Breaker, Recorder>>(r.result, "breaker_rejected")));
  EXPECT_EQ(r.of(d::OutcomeKind::success), 0);
  // Every attempt sent ended in a timeout; a refused call is no attempt.
  EXPECT_EQ(r.of(d::OutcomeKind::timeout), r.result.attempts);
}

TEST(OutcomeProtocol, RejectionsAndSuccessesAreHeard) {
  mc::Scenario s = burst(30);
  s.admission.limit = 2;
  mc::check_scenario(s);
  const auto r = run<d::Parts<d::Limit, Recorder>>(s);
  EXPECT_GT(r.of(d::OutcomeKind::rejected), 0);
  EXPECT_EQ(r.of(d::OutcomeKind::rejected),
            (mc::testing::build_metric<d::Parts<d::Limit, Recorder>>(r.result, "rejected")));
  EXPECT_EQ(r.of(d::OutcomeKind::success), r.result.successes);
  EXPECT_EQ(r.of(d::OutcomeKind::success) + r.of(d::OutcomeKind::rejected), r.result.attempts);
}

TEST(OutcomeProtocol, CancellationsAreHeard) {
  // Three attempts of each request, 0.3 apart; the first answers at 1 and cancels the other two.
  mc::Scenario s = burst(10);
  s.client.hedge.attempts = 3;
  s.client.hedge.delay = 0.3;
  mc::check_scenario(s);
  const auto r = run<d::Parts<d::Hedge, Recorder>>(s);
  EXPECT_EQ(r.of(d::OutcomeKind::cancelled), 20);
  EXPECT_EQ(r.of(d::OutcomeKind::cancelled),
            (mc::testing::build_metric<d::Parts<d::Hedge, Recorder>>(r.result, "hedges_cancelled")));
  EXPECT_EQ(r.of(d::OutcomeKind::success), 10);
}
