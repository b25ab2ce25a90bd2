#pragma once
// Recovery after the outage (docs/models.md §4; engine_parts.hpp's RecoveryMeter): the outcomes of
// the attempts the server completes, rejections included, binned after outage_end in windows of
// recovery_window; recovery_time is the end of the first window whose success fraction reaches 95%
// of the fraction before outage_start, minus outage_end. Metrics: recovery_time, recovered.
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"

namespace retrylab::montecarlo::detail {

class Recovery : public Component {
 public:
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "recovery_window",
            .group = FieldGroup::measurement,
            .rank = 470,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "bin width for recovery_time after the outage (0 = not measured; needs an outage)",
            .access = member<&Scenario::measurement, &Measurement::recovery_window>()}};
  static bool active(const Scenario& s) noexcept { return s.measurement.recovery_window > 0.0; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    if (s.measurement.recovery_window > 0.0 && s.failures.outage_end == 0.0)
      throw InputError("recovery_window", "needs an outage (outage_end > 0): recovery is measured after it");
  }
  static constexpr std::array metrics{MetricDef{.key = "recovery_time",
                                                .label = "recovery after the outage ({}; recovered runs)",
                                                .dim = Dim::time,
                                                .rank = 340,
                                                .shown = shown::recovery,
                                                .when_absent = absent::undefined},
                                      MetricDef{.key = "recovered",
                                                .label = "recovered after the outage (runs)",
                                                .dim = Dim::count,
                                                .rank = 1020,
                                                .shown = shown::recovery,
                                                .when_absent = absent::undefined,
                                                .reduce = Reduce::proportion,
                                                .lo = 0.0,
                                                .hi = 1.0}};
  template <class Faults>
  Recovery(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        meter_(s.failures.outage_start, s.failures.outage_end, s.measurement.recovery_window, s.failures.failure_prob) {
  }

  template <class E>
  void on_rejected(E& e, std::int32_t /*j*/) {
    if (on_) meter_.record(e.now(), false);
  }
  template <class E>
  [[gnu::always_inline]] void on_served(E& e, std::int32_t j) {
    if (on_) meter_.record(e.now(), e.job(j).success);
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    const double t = on_ ? meter_.recovery_time() : std::numeric_limits<double>::quiet_NaN();
    out[0] = t;
    out[1] =
        on_ ? (std::isnan(t) ? 0.0 : 1.0) : std::numeric_limits<double>::quiet_NaN();  // recovered, of those measured
  }

 private:
  bool on_;
  RecoveryMeter meter_;
};

}  // namespace retrylab::montecarlo::detail
