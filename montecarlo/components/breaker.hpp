#pragma once
// A circuit breaker (montecarlo/controls.hpp: the Hystrix and resilience4j presets), one shared by
// every client of the run: it admits or rejects each call before it is sent (a rejected call fails
// at once, unsent: no attempt, no work) and records the outcome of each attempt it admitted (a
// timeout as a failure) under the ticket it gave. Its clock is in ms. Metrics: breaker_rejected,
// breaker_opened.
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/controls.hpp"

namespace retrylab::montecarlo::detail {

class Breaker : public Component {
 public:
  struct JobState {
    BreakerTicket ticket{};  // the breaker admitted it so
  };
  static bool active(const Scenario& s) noexcept { return s.server.breaker != 0; }
  static constexpr std::array metrics{MetricDef{.key = "breaker_rejected",
                                                .label = "calls the breaker rejected (per run)",
                                                .dim = Dim::count,
                                                .rank = 260,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true},
                                      MetricDef{.key = "breaker_opened",
                                                .label = "times the breaker opened (per run)",
                                                .dim = Dim::count,
                                                .rank = 300,
                                                .shown = shown::breaker,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Breaker(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        breaker_(breaker_preset(breaker_preset_names[s.server.breaker])),
        ms_(s.server.attempt_ms > 0.0 ? s.server.attempt_ms : 1.0) {}

  template <class E>
  [[gnu::always_inline]] bool allow_call(E& e, std::int32_t /*c*/) {
    if (!on_) return true;
    ticket_ = breaker_.admit(e.now() * ms_);
    if (ticket_.admitted()) return true;
    ++rejected_;
    return false;
  }
  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t /*c*/, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).ticket = ticket_;
  }
  template <class E>
  [[gnu::always_inline]] void on_outcome(E& e, std::int32_t j) {
    if (on_) breaker_.record(e.now() * ms_, static_cast<JobState&>(e.extra(j)).ticket, e.job(j).success);
  }
  template <class E>
  void on_timed_out(E& e, std::int32_t j) {
    if (on_) breaker_.record(e.now() * ms_, static_cast<JobState&>(e.extra(j)).ticket, false);
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(rejected_);
    out[1] = static_cast<double>(breaker_.times_opened());
  }

 private:
  bool on_;
  CircuitBreaker breaker_;
  double ms_;
  BreakerTicket ticket_{};  // the call being sent now
  std::int64_t rejected_ = 0;
};

}  // namespace retrylab::montecarlo::detail
