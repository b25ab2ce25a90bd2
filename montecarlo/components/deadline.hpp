#pragma once
// A request deadline (docs/models.md §4): a client starts no attempt later than arrival + deadline;
// when its backoff would wake it later, it gives up at once (lost); with deadline_cancel on
// (deadline_cancel.hpp) also when it would wake at the deadline exactly (that attempt would be
// cancelled as it starts). The decision's after_sleep step. Metric: deadline_lost.
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class Deadline : public Component {
 public:
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{Field{
      .name = "deadline",
      .group = FieldGroup::client,
      .rank = 380,
      .kind = FieldKind::number_or_none,
      .unit = FieldUnit::time,
      .hi = inf,
      .lo_open = true,
      .meaning = "request deadline: no attempt starts later than arrival + deadline; a client whose backoff would wake "
                 "it later gives up (lost), or none",
      .access = member<&Scenario::client, &ClientPolicy::deadline>()}};
  // With hedging, only beside deadline_cancel on (Hedge::check): the deadline then cancels every copy.
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool active(const Scenario& s) noexcept { return s.client.deadline < inf; }
  static constexpr bool shows_controls = true;
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    if (!s.client.retries && s.client.deadline != ClientPolicy{}.deadline)
      throw InputError("deadline", "needs retries on (with retries off every client makes exactly one attempt)");
  }
  static constexpr std::array metrics{MetricDef{.key = "deadline_lost",
                                                .label = "requests lost at their deadline (per run)",
                                                .dim = Dim::count,
                                                .rank = 290,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Deadline(const Scenario& s, const Faults& /*faults*/)
      : deadline_(s.client.deadline), cancels_(s.client.deadline_cancel) {}

  template <class E>
  [[gnu::always_inline]] void decide(E& e, Decision& d) noexcept {
    if (d.ask != Ask::after_sleep) return;
    const double wake = e.now() + d.sleep, end = e.client(d.client).arrival + deadline_;
    if (!(wake > end) && !(cancels_ && wake == end)) return;
    ++lost_;
    d.verb = Verb::give_up;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(lost_);
  }

 private:
  double deadline_;  // +inf: none
  bool cancels_;     // deadline_cancel on
  std::int64_t lost_ = 0;
};

}  // namespace retrylab::montecarlo::detail
