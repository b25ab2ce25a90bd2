#pragma once
// Settling (docs/models.md §4), a stop rule: arrivals stop at the horizon, but the run goes on until
// every client has left and every attempt has ended at the server, so every request resolves and
// every effect is counted (no early stop when a burst has drained).
#include "analytic/error.hpp"
#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class Settle : public Component {
 public:
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{Field{
      .name = "settle",
      .group = FieldGroup::measurement,
      .rank = 530,
      .kind = FieldKind::on_off,
      .hi = 1,
      .meaning = "on: arrivals stop at the horizon, the run goes on until every request resolves and every attempt "
                 "has ended at the server (needs max_attempts or a deadline)",
      .access = member<&Scenario::measurement, &Measurement::settle>()}};
  static bool active(const Scenario& s) noexcept { return s.measurement.settle; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    if (s.measurement.settle && s.client.retries && s.client.max_attempts == 0 &&
        s.client.deadline == ClientPolicy{}.deadline)
      throw InputError("settle", "needs max_attempts > 0 or a deadline (or retries off): every request must resolve");
  }
  template <class Faults>
  Settle(const Scenario& s, const Faults& /*faults*/) : on_(active(s)) {}
  bool holds_run_open() const noexcept { return on_; }

 private:
  bool on_;
};

}  // namespace retrylab::montecarlo::detail
