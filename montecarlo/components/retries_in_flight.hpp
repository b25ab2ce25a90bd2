#pragma once
// Retries in flight (docs/models.md §8; Envoy's cluster circuit breaker: max_retries, retry_budget):
// a limit on the retries outstanding at once, for every client together. A retry holds its place
// from when it is scheduled (the decision's after_sleep step, through its sleep) until the outcome
// of its attempt (any kind: success, failure, rejection, timeout, a local refusal), as Envoy's
// RetryStateImpl takes the cluster's retries() resource when it arms the back-off timer and gives it
// back at the next outcome of the request. A retry over the limit is not sent: the request ends with
// its failure (lost). The limit is retries_in_flight (fixed), or with a budget
// max(retries_in_flight, floor(percent/100 × attempts in flight)), the attempts in flight being those
// sent whose outcome has not reached their client. Invariant: in_flight_ <= the limit after every
// grant. Metric: retries_in_flight_denied.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class RetriesInFlight : public Component {
 public:
  struct ClientState {
    bool holds = false;  // its scheduled retry holds a place until that attempt's outcome
  };
  static constexpr std::array fields{
      Field{.name = "retries_in_flight",
            .group = FieldGroup::client,
            .rank = 1140,
            .kind = FieldKind::integer,
            .hi = static_cast<double>(max_limit),
            .meaning = "retries in flight at most this many for every client together, from the retry's scheduling "
                       "to its outcome (Envoy's max_retries; with a budget its minimum; 0 = no limit)",
            .access = member<&Scenario::client, &ClientPolicy::retries_in_flight>()},
      Field{.name = "retries_in_flight_percent",
            .group = FieldGroup::client,
            .rank = 1150,
            .kind = FieldKind::number,
            .hi = 100.0,
            .meaning = "retry budget: retries in flight at most max(retries_in_flight, this percent of the attempts "
                       "in flight) (Envoy's budget_percent; 0 = no budget)",
            .access = member<&Scenario::client, &ClientPolicy::retries_in_flight_percent>()}};
  static constexpr std::array metrics{MetricDef{
      .key = "retries_in_flight_denied",
      .label = "retries not sent: the retries in flight were at their limit (per run)",
      .dim = Dim::count,
      .rank = 395,
      .shown = [](const Scenario& s,
                  bool) { return s.client.retries_in_flight > 0 || s.client.retries_in_flight_percent > 0.0; },
      .when_absent = absent::zero,
      .integer = true}};
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool active(const Scenario& s) noexcept {
    return s.client.retries_in_flight > 0 || s.client.retries_in_flight_percent > 0.0;
  }
  static void check(const Scenario& s) {
    if (!active(s)) return;
    const char* field = s.client.retries_in_flight > 0 ? "retries_in_flight" : "retries_in_flight_percent";
    if (!s.client.retries)
      throw InputError(field, "needs retries on (with retries off every client makes exactly one attempt)");
    if (s.client.hedge.on())
      throw InputError(field,
                       "cannot combine with hedging (hedge_attempts > 1): Envoy's hedged retries are not modelled");
  }
  template <class Faults>
  RetriesInFlight(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)), fixed_(s.client.retries_in_flight), percent_(s.client.retries_in_flight_percent) {}

  void reset() noexcept { in_flight_ = attempts_ = denied_ = 0; }

  template <class E>
  void on_send(E& /*e*/, std::int32_t /*c*/, std::int32_t /*j*/) noexcept {
    if (on_) ++attempts_;
  }
  template <class E>
  void on_outcome(E& e, const Outcome& o) noexcept {
    if (!on_) return;
    if (o.job >= 0) --attempts_;
    ClientState& mine = e.client_extra(o.client);
    if (mine.holds) {
      mine.holds = false;
      --in_flight_;
    }
  }
  template <class E>
  void decide(E& e, Decision& d) noexcept {
    if (!on_ || d.ask != Ask::after_sleep) return;
    if (in_flight_ >= limit()) {
      ++denied_;
      d.verb = Verb::give_up;
      return;
    }
    ++in_flight_;
    static_cast<ClientState&>(e.client_extra(d.client)).holds = true;
  }
  // The limit now: fixed, or the budget's share of the attempts in flight (Envoy truncates it to an
  // integer), never below the minimum.
  std::int64_t limit() const noexcept {
    if (percent_ <= 0.0) return fixed_;
    const auto share = static_cast<std::int64_t>(std::floor(percent_ / 100.0 * static_cast<double>(attempts_)));
    return std::max(fixed_, share);
  }
  std::int64_t in_flight() const noexcept { return in_flight_; }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(denied_);
  }

 private:
  bool on_;
  std::int64_t fixed_;  // the limit, or the budget's minimum
  double percent_;      // the budget (0: none)
  std::int64_t in_flight_ = 0, attempts_ = 0, denied_ = 0;
};

}  // namespace retrylab::montecarlo::detail
