#pragma once
// Injected failures (docs/models.md §4): an attempt the server completes that would succeed fails
// instead, with probability failure_prob, or outage_fraction inside the outage [outage_start,
// outage_end); the failures stream draws only when that probability is above 0. A failed attempt
// commits nothing (it dooms no other). Metric: injected.
#include <fmt/format.h>
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Injection : public Component {
 public:
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
            .access = member<&Scenario::failures, &Failures::outage_fraction>()}};
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
  }
  static constexpr std::array metrics{MetricDef{.key = "injected",
                                                .label = "attempts failed by injection (per run)",
                                                .dim = Dim::count,
                                                .rank = 280,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Injection(const Scenario& s, const Faults& /*faults*/) : on_(active(s)), o_(&s.failures) {}

  template <class E>
  [[gnu::always_inline]] bool injects(E& e) {
    if (!on_) return false;
    const double t = e.now();
    const double p = t >= o_->outage_start && t < o_->outage_end ? o_->outage_fraction : o_->failure_prob;
    if (!(p > 0.0) || !(e.template stream<StreamId::failures>().uniform() < p)) return false;
    ++injected_;
    return true;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(injected_);
  }

 private:
  bool on_;
  const Failures* o_;
  std::int64_t injected_ = 0;
};

}  // namespace retrylab::montecarlo::detail
