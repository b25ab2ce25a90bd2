#pragma once
// Injected failures (docs/models.md §4): an attempt the server completes that would succeed fails
// instead, with probability failure_prob, or outage_fraction inside the outage [outage_start,
// outage_end); the failures stream draws only when that probability is above 0. A failed attempt
// commits nothing (it dooms no other). Each failure carries the kind its source produces
// (failure_kind, outage_kind: retryable, throttled or fatal; describe writes it into the outcome, a
// throttled one as an outcome of kind throttled). With replicas (components/replicas.hpp) the
// outage hits the replica outage_replica names (0: every one); an attempt on another replica meets
// failure_prob inside the window as outside it. Metric: injected.
#include <fmt/format.h>
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Injection : public Component {
 public:
  struct JobState {
    bool injected = false;  // this attempt's failure was injected
    FailureKind kind = FailureKind::retryable;
  };
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "failure_prob",
            .group = FieldGroup::failures,
            .rank = 390,
            .kind = FieldKind::number,
            .hi = 1,
            .meaning =
                "injected failures: probability that an attempt which would succeed fails instead (commits nothing)",
            .access = member<&Scenario::failures, &Failures::failure_prob>()},
      Field{.name = "outage_start",
            .group = FieldGroup::failures,
            .rank = 400,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "start of an outage window (see outage_end)",
            .access = member<&Scenario::failures, &Failures::outage_start>()},
      Field{.name = "outage_end",
            .group = FieldGroup::failures,
            .rank = 410,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "end of the outage window [outage_start, outage_end) (0 = no outage)",
            .access = member<&Scenario::failures, &Failures::outage_end>()},
      Field{.name = "outage_fraction",
            .group = FieldGroup::failures,
            .rank = 420,
            .kind = FieldKind::number,
            .hi = 1,
            .meaning = "failure probability inside the outage window (1 = a total outage)",
            .access = member<&Scenario::failures, &Failures::outage_fraction>()},
      Field{.name = "failure_kind",
            .group = FieldGroup::failures,
            .rank = 1100,
            .kind = FieldKind::choice,
            .choices = failure_kind_names,
            .meaning = "the kind of the injected failures (failure_prob): retryable (503, UNAVAILABLE), throttled "
                       "(429, RESOURCE_EXHAUSTED) or fatal (a status no client should retry)",
            .access = member<&Scenario::failures, &Failures::failure_kind>()},
      Field{.name = "outage_kind",
            .group = FieldGroup::failures,
            .rank = 1110,
            .kind = FieldKind::choice,
            .choices = failure_kind_names,
            .meaning = "the kind of the outage's failures (see failure_kind; needs outage_end)",
            .access = member<&Scenario::failures, &Failures::outage_kind>()}};
  static constexpr bool shows_controls = true;
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static constexpr std::array streams{StreamId::failures};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept {
    return s.failures.failure_prob > 0.0 || s.failures.outage_end > 0.0;
  }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const Failures& o = s.failures;
    if (o.outage_end != 0.0 && !(o.outage_end > o.outage_start))
      throw InputError("outage_end", fmt::format("must be > outage_start={} (got {})", o.outage_start, o.outage_end));
    if (o.outage_end == 0.0 && (o.outage_start != 0.0 || o.outage_fraction != 1.0))
      throw InputError("outage_end",
                       "must be > outage_start for outage_start or outage_fraction to apply (0 = no outage)");
    if (o.failure_kind != FailureKind::retryable && !(o.failure_prob > 0.0))
      throw InputError("failure_kind", "needs failure_prob > 0");
    if (o.outage_kind != FailureKind::retryable && o.outage_end == 0.0)
      throw InputError("outage_kind", "needs an outage (outage_end > outage_start)");
  }
  static constexpr std::array metrics{MetricDef{.key = "injected",
                                                .label = "attempts failed by injection (per run)",
                                                .dim = Dim::count,
                                                .rank = 280,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Injection(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)), o_(&s.failures), outage_replica_(s.replicas.outage_replica) {}

  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t /*c*/, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).injected = false;
  }
  template <class E>
  [[gnu::always_inline]] bool injects(E& e, std::int32_t j) {
    if (!on_) return false;
    const double t = e.now();
    const bool outage = t >= o_->outage_start && t < o_->outage_end &&
                        (outage_replica_ == 0 || e.extra(j).replica + 1 == outage_replica_);
    const double p = outage ? o_->outage_fraction : o_->failure_prob;
    if (!(p > 0.0) || !(e.template stream<StreamId::failures>().uniform() < p)) return false;
    ++injected_;
    JobState& mine = e.extra(j);
    mine.injected = true;
    mine.kind = outage ? o_->outage_kind : o_->failure_kind;
    return true;
  }
  // An injected failure's outcome carries its kind.
  template <class E>
  [[gnu::always_inline]] void describe(E& e, Outcome& o) {
    if (!on_ || o.kind != OutcomeKind::failed) return;
    const JobState& mine = e.extra(o.job);
    if (!mine.injected) return;
    o.status = mine.kind;
    if (mine.kind == FailureKind::throttled) o.kind = OutcomeKind::throttled;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(injected_);
  }

 private:
  bool on_;
  const Failures* o_;
  std::int64_t outage_replica_;  // 1..replicas: the outage hits that replica only; 0: every one
  std::int64_t injected_ = 0;
};

}  // namespace retrylab::montecarlo::detail
