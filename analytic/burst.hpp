#pragma once
// A stage-structured model of a burst on steady traffic: an ESTIMATE (an approximation, not a
// theorem). Clients are counted by their stage k (failures so far, k = 1..S, S the cap's stage):
// x_k for the burst, y_k for the steady clients. A stage-k client sleeps a mean m_k (analytic/
// steady.hpp: stage_means), its sleep an Erlang of r phases of mean m_k/r each (the method of
// phases, r matched to the sleep's CV²: 1 memoryless, 3 full/window/decorrelated, 27 equal, 32 nojitter);
// attempts start as a Poisson stream of total rate G = λ + Σ_k (x_k + y_k)/m_k and each succeeds
// with P(G) (attempt_success: ALOHA on collision, first-commit-wins on free, crude on shared). So
//   dx_1/dt = −x_1/m_1;   dx_k/dt = (1−P)·x_(k−1)/m_(k−1) − x_k/m_k (1 < k < S);
//   dx_S/dt = (1−P)·x_(S−1)/m_(S−1) − P·x_S/m_S;   y likewise with the arrivals' failed first
//   attempts λ(1−P) entering y_1;
// x_1(0) = B (the burst's first attempts, made together, all collide: B >= 2), y = 0. Attempts'
// own duration 1 is neglected against the sleeps. Integrated with Boost.Numeric.Odeint's
// Dormand–Prince 5(4) on Eigen vectors. The burst is drained when Σ x_k <= 1/2 (drain time of the
// last client; 99%: Σ x_k <= B/100); the run collapses when Σ x_k + Σ y_k >= K. Conservation:
// Σ x_k decreases only by successes, and the right-hand side sums to λ minus the successes
// P·(λ + all stages' attempts), phases included (the equations' conservation of clients; the model
// itself is an approximation, backed by no theorem).
// Proof: proofs/Stages.v: stage_model_conservation
// Known blind spot: it cannot see lock-step synchronisation (nojitter), nor the spread of
// decorrelated jitter's sleeps within a stage.
#include <cstdint>
#include <optional>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"

namespace retrylab {

struct BurstModel {
  Model model = Model::collision;  // collision, free or shared
  Backoff backoff{};               // finite cap
  std::int64_t clients = 100;      // B in [2, 1e9]
  double rate = 0.05;              // steady λ in [0, 1)
  double horizon = 60000.0;        // T > 0
  double collapse = 3000.0;        // K >= 1
  int phases = 0;                  // Erlang phases per stage in [0, 64]; 0 = matched to the strategy's sleep
};

struct BurstPrediction {
  bool drained = false;
  bool collapsed = false;
  double drain_time = 0.0;       // Σ x_k <= 1/2; NaN unless drained
  double drain_time_p99 = 0.0;   // Σ x_k <= B/100; NaN if never
  double peak_backlog = 0.0;     // max of Σ x_k + Σ y_k
  double burst_left = 0.0;       // Σ x_k when the run stopped (conservation: B − successes)
  double burst_successes = 0.0;  // ∫ burst successes dt (conservation check: + burst_left = B)
};

void check_burst_model(const BurstModel& m);
BurstPrediction predict_burst(const BurstModel& m);

// The smallest cap (searched over cap = base·2^(i/8), up to max_cap: doubling, then bisection
// over the eighth-octaves below the first draining power of 2) at which the model drains the
// burst; the base itself when the base already drains (the threshold is then at most the base);
// empty if none does.
std::optional<double> burst_cap_threshold(BurstModel m, double max_cap = 1e6);

}  // namespace retrylab
