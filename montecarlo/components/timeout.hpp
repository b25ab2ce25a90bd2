#pragma once
// Client timeouts (docs/models.md §4): at send + τ a client still waiting for that attempt's
// outcome stops waiting (the core's time_out: the attempt fails for it and is orphaned; the server
// carries on and its outcome is discarded). Source of the timeout lane: the pending timeouts in a
// FIFO (send times never decrease, so neither do their times), an entry stale once its attempt's
// slot no longer holds that attempt. The earliest applying one is kept between events: only a push
// into an empty FIFO, a pop, or the end of the front's own attempt (on_job_done) can change it.
// Metric: timed_out.
#include <cstdint>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"

namespace retrylab::montecarlo::detail {

class Timeout : public Component {
 public:
  static constexpr unsigned lanes = lane_timeout;
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "timeout",
            .group = FieldGroup::client,
            .rank = 350,
            .kind = FieldKind::number_or_none,
            .unit = FieldUnit::time,
            .hi = inf,
            .lo_open = true,
            .meaning = "client timeout per attempt, or none; the server still does the work (needs retries on)",
            .access = member<&Scenario::client, &ClientPolicy::timeout>()}};
  // Each copy of a hedged request has its own timeout (Finagle's per-request timeout on each backup).
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool active(const Scenario& s) noexcept { return s.client.timeout < inf; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    if (!s.client.retries && s.client.timeout != ClientPolicy{}.timeout)
      throw InputError("timeout", "needs retries on (with retries off every client makes exactly one attempt)");
  }
  static constexpr std::array metrics{MetricDef{.key = "timed_out",
                                                .label = "attempts timed out (per run)",
                                                .dim = Dim::count,
                                                .rank = 240,
                                                .shown = shown::server,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Timeout(const Scenario& s, const Faults& /*faults*/) : on_(active(s)), timeout_(s.client.timeout) {}

  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t /*c*/, std::int32_t j) {
    if (!on_) return;
    pending_.push_back({e.now() + timeout_, e.job(j).id, j});  // nondecreasing times: a FIFO
    if (pending_.size() == 1) {  // the only one pending, and it applies: the earliest is known
      front_ = pending_.front().time;
      front_known_ = true;
    }
  }
  template <class E>
  [[gnu::always_inline]] void on_job_done(E& /*e*/, std::int32_t j) noexcept {
    if (front_known_ && !pending_.empty() && pending_.front().job == j) front_known_ = false;
  }
  template <class E>
  void on_outcome(E& /*e*/, const Outcome& o) noexcept {
    if (o.kind == OutcomeKind::timeout) ++timed_out_;
  }

  // The earliest pending timeout that still applies (stale ones are dropped here).
  template <unsigned L, class E>
  [[gnu::always_inline]] double next_time(E& e) noexcept {
    if (!on_) return inf;
    if (front_known_) return front_;
    front_ = inf;
    while (!pending_.empty()) {
      const Pending& x = pending_.front();
      const auto& job = e.job(x.job);
      if (job.id == x.id && !job.orphaned) {
        front_ = x.time;
        break;
      }
      pending_.pop_front();
    }
    front_known_ = true;
    return front_;
  }
  template <unsigned L, class E>
  void fire(E& e) {
    const std::int32_t j = pending_.front().job;
    pending_.pop_front();
    front_known_ = false;
    e.time_out(j);
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(timed_out_);
  }

 private:
  // A pending timeout: job slot and attempt id (a slot whose id differs was delivered and reused).
  struct Pending {
    double time;
    std::int64_t id;
    std::int32_t job;
  };
  bool on_;
  double timeout_;
  Ring<Pending> pending_;
  double front_ = inf;  // next_time(), when front_known_
  bool front_known_ = false;
  std::int64_t timed_out_ = 0;
};

}  // namespace retrylab::montecarlo::detail
