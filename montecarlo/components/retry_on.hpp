#pragma once
// Which failures a client retries (docs/models.md §7, "Failure kinds"; gRPC's retryableStatusCodes, Envoy's
// retry_on, the AWS SDKs' transient and throttling error classes, resilience4j's retryExceptions and
// ignoreExceptions): a failure carries its kind in the outcome record (Outcome::status: retryable,
// throttled or fatal, written by the component that failed it: injection, the limit's rejections),
// and a request whose failure is of a kind the client does not retry ends there (lost). The
// decision's before_sleep step, so no sleep is drawn for it. A client timeout and a call refused
// locally are retryable. Off (retry_on all, the default) every failure is retried, as before kinds
// existed. Metric: not_retried.
#include <array>
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class RetryOn : public Component {
 public:
  static constexpr std::array fields{
      Field{.name = "retry_on",
            .group = FieldGroup::client,
            .rank = 1130,
            .kind = FieldKind::choice,
            .choices = retry_on_names,
            .meaning = "the failure kinds a client retries (all, or a list of retryable, throttled); a failure of "
                       "another kind ends its request (lost)",
            .access = member<&Scenario::client, &ClientPolicy::retry_on>()}};
  static constexpr std::array metrics{MetricDef{.key = "not_retried",
                                                .label = "requests ended by a failure of a kind not retried (per run)",
                                                .dim = Dim::count,
                                                .rank = 390,
                                                .shown = [](const Scenario& s, bool) { return s.client.retry_on != 0; },
                                                .when_absent = absent::zero,
                                                .integer = true}};
  static bool active(const Scenario& s) noexcept { return s.client.retry_on != 0; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static void check(const Scenario& s) {
    if (s.client.retry_on == 0) return;
    if (!s.client.retries)
      throw InputError("retry_on", "needs retries on (with retries off every client makes exactly one attempt)");
    if (s.client.hedge.on())
      throw InputError("retry_on",
                       "cannot combine with hedging (hedge_attempts > 1): a hedged request's non-fatal codes are "
                       "not modelled");
  }
  template <class Faults>
  RetryOn(const Scenario& s, const Faults& /*faults*/) : mask_(retry_on_mask(s.client.retry_on)) {}

  template <class E>
  [[gnu::always_inline]] void decide(E& /*e*/, Decision& d) noexcept {
    if (d.ask != Ask::before_sleep || ((mask_ >> static_cast<unsigned>(d.outcome->status)) & 1U) != 0) return;
    ++not_retried_;
    d.verb = Verb::give_up;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(not_retried_);
  }

 private:
  unsigned mask_;  // bit k: FailureKind k is retried
  std::int64_t not_retried_ = 0;
};

}  // namespace retrylab::montecarlo::detail
