#include "montecarlo/brooker_preset.hpp"

#include <algorithm>

namespace retrylab::montecarlo {

double brooker_engine_base(Strategy st, double base, double cap) noexcept {
  return st == Strategy::decorrelated ? base : std::min(2.0 * base, cap);
}

Scenario brooker_scenario(const BrookerTest& t) {
  Scenario s;
  s.model = Model::free;
  s.backoff = {t.strategy, brooker_engine_base(t.strategy, t.base, t.cap), t.cap, t.window};
  s.traffic.clients = t.clients;
  s.measurement.horizon = 1e12;
  s.measurement.collapse = std::max<std::int64_t>(3000, t.clients + 1);
  s.resource.delay = t.leg_mean;
  s.resource.delay_dist = DelayDist::normal;
  s.resource.delay_sd = t.leg_sd;
  s.resource.service = ServiceDist::round_trip;
  s.client.attempt_ms = 1.0;  // the unit: one attempt-duration is 1 ms (as a study in ms states it)
  check_scenario(s);
  return s;
}

}  // namespace retrylab::montecarlo
