#pragma once
// A request deadline (docs/models.md §4): a client starts no attempt later than arrival + deadline;
// when its backoff would wake it later, it gives up at once (lost). A link of the client policy
// chain, asked once the sleep is drawn. Metric: deadline_lost.
#include <cstdint>

#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class Deadline : public Component {
 public:
  static bool active(const Scenario& s) noexcept { return s.server.deadline < inf; }
  static constexpr std::array metrics{MetricDef{.key = "deadline_lost",
                                                .label = "requests lost at their deadline (per run)",
                                                .dim = Dim::count,
                                                .rank = 290,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Deadline(const Scenario& s, const Faults& /*faults*/) : deadline_(s.server.deadline) {}

  template <class E>
  [[gnu::always_inline]] bool gives_up_after_sleep(E& e, std::int32_t c, double sleep, bool /*timed_out*/) noexcept {
    if (!(e.now() + sleep > e.client(c).arrival + deadline_)) return false;
    ++lost_;
    return true;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(lost_);
  }

 private:
  double deadline_;  // +inf: none
  std::int64_t lost_ = 0;
};

}  // namespace retrylab::montecarlo::detail
