#pragma once
// The classic test (docs/models.md §3 burst alone): N clients start their first attempt together at t = 0.
// Closed forms exist only where every client stays in lock-step (no jitter):
//   free + none:      round r (r = 1..N) runs [r−1, r); exactly one of the survivors commits per
//                     round (first-commit-wins, uniform tie-break): attempts per client (N+1)/2
//                     (total N(N+1)/2), makespan N.
//   free + nojitter:  the same rounds, separated by the common sleep w_k after the k-th failure:
//                     attempts per client (N+1)/2, makespan N + Σ_(k=1..N−1) w_k,
//                     w_k = min(c, b·2^(k−1)) — summed in closed form: b·(2^j − 1) + (N−1−j)·c with
//                     j = #{k <= N−1 : b·2^(k−1) < c}.
//   collision + none|nojitter: N >= 2 never finishes (all N collide in every round, forever);
//                     N = 1 finishes with one attempt at makespan 1.
// Any other model or strategy has no closed form here (jitter breaks the lock-step): the functions
// throw InputError("model"/"strategy") and has_classic_closed_form() says so beforehand.
// Assumptions: attempt duration 1, sleeps exact (no jitter), retries on, no other traffic.
// Proof: proofs/Classic.v: classic_total_attempts
// Proof: proofs/Classic.v: classic_attempts_per_client
// Proof: proofs/Classic.v: classic_makespan_none
// Proof: proofs/Classic.v: classic_makespan_nojitter
// Proof: proofs/Classic.v: classic_window_sum
// Proof: proofs/Classic.v: classic_collision_never
#include <cstdint>
#include <optional>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"

namespace retrylab {

struct ClassicTest {
  Model model = Model::free;                          // free or collision
  Backoff backoff{Strategy::none, 1.0, 1000.0, 0.0};  // strategy none or nojitter; base, cap used by nojitter
  std::int64_t clients = 1;                           // N in [1, 10^15]
};

struct ClassicResult {
  bool finishes;
  std::optional<double> attempts_per_client;  // empty when it never finishes
  std::optional<double> makespan;             // empty when it never finishes
};

bool has_classic_closed_form(Model model, Strategy strategy) noexcept;
// Throws InputError (clients, model, strategy, base, cap) when out of range or without closed form.
void check_classic(const ClassicTest& t);
ClassicResult classic(const ClassicTest& t);

}  // namespace retrylab
