#pragma once
// Injected failures (docs/models.md §4): an attempt the server completes that would succeed fails
// instead, with probability failure_prob, or outage_fraction inside the outage [outage_start,
// outage_end); the failures stream draws only when that probability is above 0. A failed attempt
// commits nothing (it dooms no other). Metric: injected.
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Injection : public Component {
 public:
  static bool active(const Scenario& s) noexcept { return s.server.failure_prob > 0.0 || s.server.outage_end > 0.0; }
  static constexpr std::array metrics{MetricDef{.key = "injected",
                                                .label = "attempts failed by injection (per run)",
                                                .dim = Dim::count,
                                                .rank = 280,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Injection(const Scenario& s, const Faults& /*faults*/) : on_(active(s)), o_(&s.server) {}

  template <class E>
  [[gnu::always_inline]] bool injects(E& e) {
    if (!on_) return false;
    const double t = e.now();
    const double p = t >= o_->outage_start && t < o_->outage_end ? o_->outage_fraction : o_->failure_prob;
    if (!(p > 0.0) || !(e.template stream<StreamId::failures>().uniform() < p)) return false;
    ++injected_;
    return true;
  }
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(injected_);
  }

 private:
  bool on_;
  const ServerOptions* o_;
  std::int64_t injected_ = 0;
};

}  // namespace retrylab::montecarlo::detail
