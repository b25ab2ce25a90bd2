#pragma once
// Network legs: the one-way delay of an attempt each way (client → server, server → client), and
// the round-trip service made of two legs (ServiceDist::round_trip). Free functions of the
// scenario's Resource and a Stream, so every event loop draws them alike.
//   fixed: delay | exponential: delay·Exp(1) | normal: |delay + delay_sd·Z|, Z standard normal
//   (a folded normal; its mean is delay·(1 − 2Φ(−delay/sd)) + 2·sd·φ(delay/sd), delay to within
//   1e-6 when delay >= 5·sd). Normal legs with delay_sd = 0 draw nothing: every leg is delay.
// Draws: fixed none; exponential one; normal one 64-bit draw per leg in about 98.8% of legs (the
// ziggurat, montecarlo/normal.hpp), more in the rest.
// Brooker's OCC test (docs/models.md) is the free model with rows = 1, normal legs and a
// round-trip service: d1 = the read request, service = read reply + write request, d2 = the write reply.
#include <cmath>

#include "montecarlo/normal.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

// One leg of o's delay distribution (o.delay > 0 unless fixed).
inline double draw_leg(const Resource& o, Stream& rng) noexcept {
  switch (o.delay_dist) {
    case DelayDist::fixed: return o.delay;
    case DelayDist::exponential: return o.delay * rng.exponential();
    case DelayDist::normal:
      return o.delay_sd > 0.0 ? std::fabs(o.delay + o.delay_sd * standard_normal_ziggurat(rng)) : o.delay;
  }
  return o.delay;
}

// Two independent legs, summed (the round-trip service).
inline double draw_round_trip(const Resource& o, Stream& rng) noexcept {
  const double first = draw_leg(o, rng);
  return first + draw_leg(o, rng);
}

}  // namespace retrylab::montecarlo
