#pragma once
// A fixed retry quota per window (docs/models.md §7): at most `quota` retries in each window of
// `quota_window` (the windows [k·W, (k+1)·W) of the run's clock), shared by every client of the run;
// a retry the quota refuses ends its request (lost), as a retry budget's does. The decision's
// after_sleep step, after the deadline and the budget. Unlike a token
// bucket it neither refills with successes nor spreads its refusals: the count starts again at each
// window's start. Metric: quota_denied.
#include <cmath>
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class Quota : public Component {
 public:
  static constexpr std::array fields{
      Field{.name = "quota",
            .group = FieldGroup::client,
            .rank = 600,
            .kind = FieldKind::integer,
            .hi = static_cast<double>(max_limit),
            .meaning = "retry quota: at most this many retries in each quota_window, for every client together; a "
                       "retry it refuses ends the request (lost) (0 = none)",
            .access = member<&Scenario::client, &ClientPolicy::quota>()},
      Field{.name = "quota_window",
            .group = FieldGroup::client,
            .rank = 610,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .lo = 0,
            .hi = inf,
            .lo_open = true,
            .hi_open = true,
            .meaning = "the quota's window (needs quota > 0)",
            .access = member<&Scenario::client, &ClientPolicy::quota_window>()}};
  static constexpr std::array metrics{MetricDef{.key = "quota_denied",
                                                .label = "retries the quota refused (per run)",
                                                .dim = Dim::count,
                                                .rank = 295,
                                                .shown = [](const Scenario& s, bool) { return s.client.quota > 0; },
                                                .when_absent = absent::zero,
                                                .integer = true}};
  static bool active(const Scenario& s) noexcept { return s.client.quota > 0; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static void check(const Scenario& s) {
    if (s.client.quota == 0 && s.client.quota_window != ClientPolicy{}.quota_window)
      throw InputError("quota_window", "needs quota > 0");
    if (!s.client.retries && s.client.quota > 0)
      throw InputError("quota", "needs retries on (with retries off every client makes exactly one attempt)");
  }
  template <class Faults>
  Quota(const Scenario& s, const Faults& /*faults*/) : quota_(s.client.quota), window_(s.client.quota_window) {}

  template <class E>
  [[gnu::always_inline]] void decide(E& e, Decision& d) {
    if (quota_ == 0 || d.ask != Ask::after_sleep) return;
    const double k = std::floor(e.now() / window_);
    if (k != window_index_) {
      window_index_ = k;
      used_ = 0;
    }
    if (used_ < quota_) {
      ++used_;
      return;
    }
    ++denied_;
    d.verb = Verb::give_up;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(denied_);
  }

 private:
  std::int64_t quota_;  // 0: none
  double window_;
  double window_index_ = -1.0;
  std::int64_t used_ = 0, denied_ = 0;
};

}  // namespace retrylab::montecarlo::detail
