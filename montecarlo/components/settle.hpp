#pragma once
// Settling (docs/models.md §4), a stop rule: arrivals stop at the horizon, but the run goes on until
// every client has left and every attempt has ended at the server, so every request resolves and
// every effect is counted (no early stop when a burst has drained).
#include "montecarlo/component.hpp"

namespace retrylab::montecarlo::detail {

class Settle : public Component {
 public:
  static bool active(const Scenario& s) noexcept { return s.server.settle; }
  template <class Faults>
  Settle(const Scenario& s, const Faults& /*faults*/) : on_(active(s)) {}
  bool holds_run_open() const noexcept { return on_; }

 private:
  bool on_;
};

}  // namespace retrylab::montecarlo::detail
