#pragma once
// Brooker's classic OCC test (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015, and his
// simulator aws-samples/aws-arch-backoff-simulator) as a scenario of the engine, in ms.
//
// The test: N clients start at t = 0, each wants one successful update of one row. An attempt is four
// one-way legs, each |Normal(leg_mean, leg_sd)| ms: read request (the server reads the version when
// it arrives), read reply, write request (the write is checked when it arrives: it succeeds iff no
// write has succeeded since that read), write reply. A client learns the outcome when the write
// reply arrives; after its k-th failure it sleeps, then sends its next read. Brooker's sleep windows
// are min(cap, base·2^k): his first is 2·base, one doubling ahead of the engine's w_k.
//
// The engine scenario (brooker_scenario), docs/models.md: model free (first commit wins: an attempt
// succeeds iff no commit on its row falls in (start, end]) on rows = 1; network delay d1 = leg 1 (the
// attempt's service starts when it reaches the server: that is the read), service round-trip = legs
// 2 + 3 (its end is the write and the commit), d2 = leg 4: delay = leg_mean, delay_dist normal,
// delay_sd = leg_sd (0: every leg exactly leg_mean). Unit ms with attempt_duration 1 (attempt_ms = 1,
// as a study sweep in ms sets it), so every ms value is the engine's value exactly. The backoff in the engine's terms:
//   none, window U(0, W): as given;
//   nojitter, full, equal: base_engine = min(2·base, cap) (w_k = min(c, base_engine·2^(k−1)) =
//     min(c, base·2^k); the engine's base may not exceed its cap, and when 2·base > cap every window
//     is the cap either way);
//   decorrelated: base_engine = base (both draw s_k = min(c, U(b, 3·s_(k−1))) from s_0 = b: b is the floor
//     of every sleep, not a window, so it does not double).
// Burst runs to completion: horizon 1e12 ms; collapse max(3000, N + 1), so K never stops a burst.
// Invariants (tests/montecarlo/brooker_engine_test.cpp): every client succeeds; N <= attempts <=
// N(N+1)/2 (a client fails only when another's commit falls inside its service, so the k-th client to
// succeed fails at most k − 1 times); with fixed legs of m ms and no sleep or nojitter the clients
// stay in lockstep: attempts = N(N+1)/2 and makespan = 4mN + Σ_{k<N} min(cap, base·2^k) exactly.
// Legs must be > 0 ms (a round-trip service needs delay > 0).
#include <cstdint>

#include "analytic/strategy.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo {

// The test as Brooker states it (times in ms, his base convention).
struct BrookerTest {
  Strategy strategy = Strategy::full;
  double base = 5.0;    // ms (his setup_sim: backoff_cls(5, 2000))
  double cap = 2000.0;  // ms
  double window = 0.0;  // ms, window strategy only
  std::int64_t clients = 100;
  double leg_mean = 10.0;  // ms (Net(10, 2): the post's mean 10, variance 4)
  double leg_sd = 2.0;     // ms; 0 = without network delay variance (fixed legs)
};

// The engine's base for Brooker's base and cap under strategy st (see above).
double brooker_engine_base(Strategy st, double base, double cap) noexcept;

// The engine scenario of the test, in ms with attempt_duration 1 (check_scenario's rules apply:
// InputError naming the engine field, e.g. delay for leg_mean 0).
Scenario brooker_scenario(const BrookerTest& t);

}  // namespace retrylab::montecarlo
