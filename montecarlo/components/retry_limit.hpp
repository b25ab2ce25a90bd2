#pragma once
// A retry limit (docs/models.md §4): a client makes at most max_attempts attempts; when its last
// fails (or times out, or is rejected) it gives up: the request is lost. The decision's before_sleep
// step (no sleep is drawn for a request it ends). Fault retry_limit_off_by_one (planted build): one
// attempt too many.
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/faults.hpp"

namespace retrylab::montecarlo::detail {

class RetryLimit : public Component {
 public:
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "max_attempts",
            .group = FieldGroup::client,
            .rank = 360,
            .kind = FieldKind::integer,
            .hi = static_cast<double>(max_limit),
            .meaning = "retry limit: a client gives up (a lost request) after this many attempts (0 = unlimited)",
            .access = member<&Scenario::client, &ClientPolicy::max_attempts>()}};
  static bool active(const Scenario& s) noexcept { return s.client.max_attempts > 0; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    if (!s.client.retries && s.client.max_attempts != 0)
      throw InputError("max_attempts", "needs retries on (with retries off every client makes exactly one attempt)");
  }
  template <class Faults>
  RetryLimit(const Scenario& s, const Faults& faults) : limit_(s.client.max_attempts) {
    if (faults(Fault::retry_limit_off_by_one) && limit_ > 0) ++limit_;  // planted fault
  }

  template <class E>
  [[gnu::always_inline]] void decide(E& e, Decision& d) noexcept {
    if (d.ask == Ask::before_sleep && limit_ > 0 && e.client(d.client).failures >= limit_) d.verb = Verb::give_up;
  }

 private:
  std::int64_t limit_;  // 0: none
};

}  // namespace retrylab::montecarlo::detail
