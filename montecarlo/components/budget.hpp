#pragma once
// A retry budget (montecarlo/controls.hpp: token buckets of AWS and gRPC, Finagle's, adaptive
// throttling), one shared by every request of the run. It hears of every request's arrival and
// every attempt's outcome (a timeout as a failure), and is asked, as the last link of the client
// policy chain, whether a failed request may retry: a refusal ends the request (lost). Adaptive
// throttling can also reject a call locally before it is sent (its draws: the throttle stream).
// Its clock is in ms (attempt_ms per attempt-duration). Metrics: retries_denied, throttled.
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Budget : public Component {
 public:
  struct JobState {
    double paid = 0.0;  // what the budget took for this retry
  };
  struct ClientState {
    double paid = 0.0;  // what it took for the client's pending retry (handed back on success)
  };
  static bool active(const Scenario& s) noexcept { return s.server.budget != 0; }
  static constexpr std::array metrics{MetricDef{.key = "retries_denied",
                                                .label = "retries the budget refused (per run)",
                                                .dim = Dim::count,
                                                .rank = 250,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true},
                                      MetricDef{.key = "throttled",
                                                .label = "calls throttled locally (per run)",
                                                .dim = Dim::count,
                                                .rank = 270,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Budget(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        budget_(budget_of(s.server)),
        adaptive_(on_ && budget_.kind() == BudgetKind::adaptive),
        ms_(s.server.attempt_ms > 0.0 ? s.server.attempt_ms : 1.0) {}

  template <class E>
  [[gnu::always_inline]] void on_arrival(E& /*e*/, std::int32_t /*c*/, double t) {
    if (on_) budget_.on_request(t * ms_);
  }
  template <class E>
  [[gnu::always_inline]] bool allow_call(E& e, std::int32_t /*c*/) {
    if (!adaptive_) return true;  // the only budget that says no here
    if (budget_.admit(e.now() * ms_, e.template stream<StreamId::throttle>().uniform())) return true;
    ++throttled_;
    return false;
  }
  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t c, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).paid = static_cast<ClientState&>(e.client_extra(c)).paid;
  }
  template <class E>
  [[gnu::always_inline]] void on_outcome(E& e, std::int32_t j) {
    if (!on_) return;
    if (e.job(j).success) {
      budget_.on_success(e.now() * ms_, static_cast<JobState&>(e.extra(j)).paid);
    } else {
      budget_.on_failure(e.now() * ms_, false);
    }
  }
  template <class E>
  void on_timed_out(E& e, std::int32_t /*j*/) {
    if (on_) budget_.on_failure(e.now() * ms_, true);
  }
  template <class E>
  [[gnu::always_inline]] bool gives_up_after_sleep(E& e, std::int32_t c, double /*sleep*/, bool timed_out) {
    if (!on_) return false;
    const RetryGrant grant = budget_.try_retry(e.now() * ms_, timed_out);
    if (!grant.allowed) {
      ++denied_;
      auto& observer = e.observer();
      if constexpr (requires { observer.on_retry_denied(std::int64_t{0}, 0.0); })
        observer.on_retry_denied(e.client(c).serial, e.now());
      return true;
    }
    static_cast<ClientState&>(e.client_extra(c)).paid = grant.paid;
    return false;
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(denied_);
    out[1] = static_cast<double>(throttled_);
  }

 private:
  bool on_;
  RetryBudget budget_;
  bool adaptive_;
  double ms_;  // milliseconds per attempt-duration: the budget's clock
  std::int64_t denied_ = 0, throttled_ = 0;
};

}  // namespace retrylab::montecarlo::detail
