#pragma once
// A quick ESTIMATE (not an exact result) of the cap a burst needs on `collision` (pure ALOHA).
// Fluid argument: B burst clients backlogged with their sleep at the cap c each attempt once per
// cycle of mean length m(c) + 1 (a sleep, then one attempt-duration), so they offer load B/(m(c)+1);
// with steady Poisson traffic λ on top the offered load is G = λ + B/(m(c)+1). ALOHA's goodput
// G·e^(−2G) stays >= λ (the backlog does not grow) only for G <= G*, the upper root of G·e^(−2G) = λ:
//   G* = −W−1(−2λ)/2  (Lambert W lower branch; G* = +inf at λ = 0; needs λ < 1/(2e)).
// The burst drains (in this estimate) iff m(c) >= m* = B/(G* − λ) − 1, and the threshold cap is the
// least c >= b with m(c) >= m* (c = b when m(b) already suffices), found by toms748 on the
// increasing m(c) − m*. Mean sleep at the cap, m(c), per strategy (docs/models.md §2):
//   nojitter c;   full c/2;   equal 3c/4;
//   decorrelated: the mean of the next sleep of a client whose sleep sits at c, min(c, U(b, 3c)):
//                 m(c) = (5c² − b²)/(2(3c − b))  (→ 5c/6 for c ≫ b). Chosen because a backlogged
//                 client at the cap redraws from exactly this law; its stationary mean is lower.
//   none and window have no cap to tune (their mean sleep ignores c): InputError("strategy").
// Assumptions: fluid limit (many clients, attempts spread like Poisson), all burst clients already
// at the cap (ignores the climb b, 2b, 4b, ...), steady traffic not retried. It is to be held against
// the engine by the validation suite, not trusted on its own.
// Proof: proofs/FluidCap.v: fluid_upper_root_unique
// Proof: proofs/FluidCap.v: fluid_drain_criterion
// Proof: proofs/FluidCap.v: fluid_cap_monotone
// Proof: proofs/Aloha.v: aloha_inverse_high_unique
#include <cstdint>

#include "analytic/strategy.hpp"

namespace retrylab {

struct FluidCap {
  std::int64_t clients = 1;                                  // B >= 1, the burst
  double rate = 0.0;                                         // λ in [0, 1/(2e)), steady traffic
  Backoff backoff{Strategy::full, 1.0, unbounded_cap, 0.0};  // strategy and base (cap is the unknown)
};

struct FluidCapEstimate {
  double upper_root;           // G* (+inf when λ = 0)
  double required_mean_sleep;  // m* = B/(G* − λ) − 1 (may be negative: any sleep works)
  double cap;                  // threshold cap c* >= base
};

// Throws InputError (clients, rate, strategy, base) outside the ranges above.
void check_fluid_cap(const FluidCap& f);
// G*: the upper root of G·e^(−2G) = λ; throws InputError("rate") unless 0 <= λ <= 1/(2e).
double fluid_upper_root(double rate);
// m(c) for the strategy, as listed above.
double mean_sleep_at_cap(const Backoff& backoff, double cap);
FluidCapEstimate fluid_cap(const FluidCap& f);

}  // namespace retrylab
