#pragma once
// A circuit breaker (montecarlo/controls.hpp: the Hystrix and resilience4j presets): one shared by
// every client of the run, or (breaker_scope client) one per client, closed when the client
// arrives. It admits or rejects each call before it is sent (a rejected call fails at once, unsent:
// no attempt, no work) and records the outcome of each attempt it admitted (a timeout as a failure)
// under the ticket it gave. Its clock is in ms. Metrics: breaker_rejected,
// breaker_opened.
#include <cstdint>
#include <limits>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/scoped.hpp"

namespace retrylab::montecarlo::detail {

class Breaker : public Component {
 public:
  struct JobState {
    BreakerTicket ticket{};  // the breaker admitted it so
  };
  // Its parameters: a value in the scenario's client policy (components/breaker_params.hpp), each
  // a row of the field table (montecarlo/fields.hpp).
  using Params = BreakerParams;
  static constexpr std::array fields{
      Field{
          .name = "breaker",
          .group = FieldGroup::client,
          .rank = 440,
          .kind = FieldKind::choice,
          .choices = breaker_preset_names,
          .meaning = "circuit breaker of every client (preset of its library): a call it rejects fails at once, unsent",
          .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::preset>()},
      Field{.name = "breaker_scope",
            .group = FieldGroup::client,
            .rank = 560,
            .kind = FieldKind::choice,
            .choices = scope_names,
            .meaning = "whose the breaker is: one shared by every client, or one per client (its own, closed when "
                       "the client arrives)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::scope>()},
      Field{.name = "breaker_window",
            .group = FieldGroup::client,
            .rank = 630,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = std::numeric_limits<double>::infinity(),
            .hi_open = true,
            .meaning = "breaker: a sliding time window of this length (0 = the preset's window)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::window>()},
      Field{.name = "breaker_calls",
            .group = FieldGroup::client,
            .rank = 640,
            .kind = FieldKind::integer,
            .hi = 1e9,
            .meaning = "breaker: a sliding window of the last this many calls (0 = the preset's window; not with "
                       "breaker_window)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::calls>()},
      Field{.name = "breaker_minimum_calls",
            .group = FieldGroup::client,
            .rank = 650,
            .kind = FieldKind::integer,
            .hi = 1e9,
            .meaning = "breaker: outcomes the window must hold before it can open (0 = the preset's)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::minimum_calls>()},
      Field{.name = "breaker_failure_threshold",
            .group = FieldGroup::client,
            .rank = 660,
            .kind = FieldKind::number,
            .hi = 1.0,
            .meaning = "breaker: it opens when the window's failure fraction reaches this (0 = the preset's)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::failure_threshold>()},
      Field{.name = "breaker_open_duration",
            .group = FieldGroup::client,
            .rank = 670,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = std::numeric_limits<double>::infinity(),
            .hi_open = true,
            .meaning = "breaker: how long it stays open before half-open (0 = the preset's)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::open_duration>()},
      Field{.name = "breaker_half_open_calls",
            .group = FieldGroup::client,
            .rank = 680,
            .kind = FieldKind::integer,
            .hi = 1e9,
            .meaning = "breaker: probes admitted when half-open (0 = the preset's)",
            .access = member<&Scenario::client, &ClientPolicy::breaker, &BreakerParams::half_open_calls>()}};
  static bool active(const Scenario& s) noexcept { return s.client.breaker.on(); }
  static bool refuses_locally(const Scenario& /*s*/) noexcept { return true; }
  static constexpr bool shows_controls = true;
  static constexpr std::array series{SeriesQuantityDef{"breaker_open", "share of the bin the breaker was open",
                                                       Dim::count, 70, 70, [](const Scenario& s) { return active(s); },
                                                       SeriesKind::level}};
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const Params& o = s.client.breaker;
    if (!s.client.retries && o.on())
      throw InputError("breaker", "needs retries on (with retries off every client makes exactly one attempt)");
    if (!o.on() && o.scope != Scope::shared)
      throw InputError("breaker_scope", "needs a breaker (breaker other than none)");
    for (const auto& [name, set] :
         {std::pair{"breaker_window", o.window != 0.0}, std::pair{"breaker_calls", o.calls != 0},
          std::pair{"breaker_minimum_calls", o.minimum_calls != 0},
          std::pair{"breaker_failure_threshold", o.failure_threshold != 0.0},
          std::pair{"breaker_open_duration", o.open_duration != 0.0},
          std::pair{"breaker_half_open_calls", o.half_open_calls != 0}})
      if (set && !o.on()) throw InputError(name, "needs a breaker (breaker other than none)");
    if (o.window != 0.0 && o.calls != 0)
      throw InputError("breaker_calls", "cannot be given with breaker_window (a window is of time or of calls)");
  }
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
        breakers_(s.client.breaker.config(s.client.attempt_ms), on_ && s.client.breaker.scope == Scope::client),
        ms_(s.client.attempt_ms > 0.0 ? s.client.attempt_ms : 1.0) {}

  // With one breaker per client, a new client (its slot reused or not) starts with a closed one; the
  // one it replaces keeps its count of openings.
  template <class E>
  void on_new_client(E& /*e*/, std::int32_t c, double& /*base*/) {
    breakers_.renew(c, [this](const CircuitBreaker& old) { opened_before_ += old.times_opened(); });
  }
  // The send step: an open breaker refuses the call.
  template <class E>
  [[gnu::always_inline]] void decide(E& e, Decision& d) {
    if (!on_ || d.ask != Ask::send) return;
    ticket_ = of(d.client).admit(e.now() * ms_);
    tell_state(e);
    if (ticket_.admitted()) return;
    ++rejected_;
    d.verb = Verb::refuse;
  }
  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t /*c*/, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).ticket = ticket_;
  }
  // Every answer of an attempt it let through counts (a timeout as a failure); a refused call and a
  // cancelled attempt do not.
  template <class E>
  [[gnu::always_inline]] void on_outcome(E& e, const Outcome& o) {
    if (!on_ || o.kind == OutcomeKind::refused || o.kind == OutcomeKind::cancelled) return;
    of(o.client).record(e.now() * ms_, static_cast<JobState&>(e.extra(o.job)).ticket, o.kind == OutcomeKind::success);
    tell_state(e);
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(rejected_);
    std::int64_t opened = opened_before_;
    breakers_.each([&opened](const CircuitBreaker& b) { opened += b.times_opened(); });
    out[1] = static_cast<double>(opened);
  }

 private:
  // Its series quantity (breaker_open) hears when the shared breaker opens (open or half-open:
  // refusing calls) and when it closes.
  template <class E>
  void tell_state(E& e) {
    if (breakers_.per_client()) return;
    const bool open = breakers_.shared().state() != BreakerState::closed;
    if (open != told_open_) e.template tell_series<Breaker>(0, open ? 1.0 : 0.0);
    told_open_ = open;
  }
  // Client c's breaker: the shared one, or its own.
  CircuitBreaker& of(std::int32_t c) noexcept { return breakers_.of(c); }

  bool on_;
  Scoped<CircuitBreaker, BreakerConfig> breakers_;  // shared, or one per client slot
  std::int64_t opened_before_ = 0;                  // openings of per-client breakers already replaced
  bool told_open_ = false;
  double ms_;
  BreakerTicket ticket_{};  // the call being sent now
  std::int64_t rejected_ = 0;
};

}  // namespace retrylab::montecarlo::detail
