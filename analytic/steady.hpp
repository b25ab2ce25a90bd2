#pragma once
// A mean-field model of steady traffic: an ESTIMATE (an approximation, not a theorem). n clients
// wait (arrived, not yet succeeded); each attempt fails with one probability p, independently, so a
// client makes A(p) = 1/(1−p) attempts and spends B(p) = Σ_k p^k (m_k + D) waiting, m_k the mean
// sleep after the k-th failure (m_0 = 0) and D the time an attempt is in flight. Backlogged
// clients are taken to be spread over the stages as in that renewal, so they attempt at the total
// rate G(n) = n·A(p)/B(p), as a Poisson stream, and p solves p = 1 − P(G):
//   collision: P(G) = e^(−2G) (pure ALOHA), D = 1;   free: P(G) = 1/(1+G) (M/D/1/1), D = 1;
//   shared: processor sharing stretches an attempt to D = 1/(1−G) (M/G/1-PS, G < 1, every attempt
//   needing one unit) and P(G) = 1/(1+G·D) (free's rule over the stretched window): crude.
// The success rate is S(n) = G(n)(1−p(n)) and the backlog drifts as dn/dt = λ − S(n). Fixed points
// are the roots of S(n) = λ: stable where S rises through λ, unstable where it falls. A run
// collapses at K when its backlog reaches K: if a stable low point n_s exists, only by escaping
// over the unstable point n_u (metastability), then climbing to K in ∫ dn/(λ − S(n)).
// Accuracy: measured against paper 1's simulated thresholds (analytic/README.md); shared is the
// crudest. Requires a finite cap (m_k is constant past the cap's stage).
// The model is an approximation; the structure of its equations is a theorem. With the stage means
// nondecreasing (every strategy's are; tests/analytic checks it), the backlog at attempt rate G is
// n = G·(1 + (1−p)M(p)) (D·A for shared), strictly increasing and onto, so every n >= 0 has exactly
// one G(n) (the bisection below finds it), increasing in n; below the peak success rate (1/(2e) on
// collision, 1/4 on shared) S(n) = λ has exactly two roots, the drift λ − S(n) positive below the
// first, negative between, positive above the second (stable, then unstable), and none above the
// peak; on free exactly one root, stable, for λ < 1 and none for λ >= 1.
// Proof: proofs/Steady.v: mean_field_attempt_rate
// Proof: proofs/Steady.v: mean_field_collision_fixed_points
// Proof: proofs/Steady.v: mean_field_collision_above_peak
// Proof: proofs/Steady.v: mean_field_free_fixed_point
// Proof: proofs/Steady.v: mean_field_free_above_capacity
// Proof: proofs/Steady.v: mean_field_shared_attempt_rate
// Proof: proofs/Steady.v: mean_field_shared_fixed_points
// Proof: proofs/Steady.v: mean_field_shared_above_peak
#include <optional>
#include <vector>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"

namespace retrylab {

struct SteadyModel {
  Model model = Model::collision;  // collision, free or shared
  Backoff backoff{};               // finite cap
};

struct FixedPoint {
  double backlog = 0.0;
  bool stable = false;
};

// The probability that one attempt succeeds when attempts start as a Poisson stream of rate G (the
// mean-field rule above, shared with analytic/burst.hpp): e^(−2G), 1/(1+G), max(0, 1−G).
double attempt_success(Model model, double G);

// Mean sleeps m_1..m_S of a strategy, m_S repeating for every later stage (decorrelated: the
// unconditional mean of s_k for k <= 150, analytic/sleep.hpp). Needs a finite cap.
std::vector<double> stage_means(const Backoff& b);

// Throws InputError naming the field: model (collision, free, shared), cap (finite), base, window.
void check_steady_model(const SteadyModel& s);

class MeanField {
 public:
  explicit MeanField(const SteadyModel& s);  // checks, and tabulates the stage means m_k

  double failure_probability(double n) const;  // p(n), n >= 0
  double attempt_rate(double n) const;         // G(n)
  double success_rate(double n) const;         // S(n)
  double drift(double n, double rate) const { return rate - success_rate(n); }

  // Roots of S(n) = rate for n in (0, n_max], in increasing order, each stable or not.
  std::vector<FixedPoint> fixed_points(double rate, double n_max) const;
  // The load at which the stable low-backlog point disappears: S's first local maximum over
  // (0, n_max]; empty when S rises all the way (free: no fold, the stable point only moves up).
  std::optional<double> fold_load(double n_max) const;
  // ∫_from^to dn/(λ − S(n)), +inf if the drift is <= 0 anywhere on [from, to].
  double climb_time(double from, double to, double rate) const;

  const std::vector<double>& stage_means() const noexcept { return m_; }  // m_1..m_S; m_S repeats

 private:
  double cycle_time(double p, double duration) const;  // B(p)
  double rate_given(double n, double p) const;         // G for a given p (solves D(G) on shared)
  SteadyModel s_;
  std::vector<double> m_;
};

// The mean time for a birth–death chain on 0, 1, 2, ... (up at rate `up` from every state, down at
// rate down[n − 1] from state n >= 1) to go from 0 to down.size() + 1: Σ_(n=0..K−1) τ_n with
// τ_0 = 1/up and τ_n = (1 + down[n − 1]·τ_(n−1))/up (first-step analysis; the chain's mean first-
// passage time, Karlin & Taylor, A First Course in Stochastic Processes, ch. 4). Stops and returns
// +inf once the sum passes `stop`. It decreases as `up` grows (so a least load whose time fits in a
// horizon is a threshold) and grows with K.
// Proof: proofs/Steady.v: passage_first_step
// Proof: proofs/Steady.v: passage_time_monotone
double mean_passage_time(const std::vector<double>& down, double up, double stop);
// The same for the model's backlog: up at `rate`, down at S(n) (interpolated as for `passage`
// below), from 0 to `level` >= 1.
double backlog_passage_time(const MeanField& f, double level, double rate);

// The collapse load the model predicts for threshold K within horizon T: the smallest load on a
// grid of step `step` at which a run collapses, (a) `escape`: assuming the backlog escapes over
// the unstable point at once (the lower estimate), (b) `no_escape`: only by the drift from an empty
// start (the upper estimate); both need the stable point (if any) below K. (c) `passage`: the
// backlog taken as a birth–death chain, up at λ and down at S(n) from n waiting (the metastable
// picture: the time to escape over the barrier between n_s and n_u, then to climb to K), collapsing
// when its mean first-passage time from 0 to K is at most T (S between the grid points of S
// interpolated linearly in log n; +inf when no load below 1 does). All three are estimates.
struct CollapseLoads {
  double escape = 0.0;
  double no_escape = 0.0;
  double passage = 0.0;
};
CollapseLoads collapse_loads(const MeanField& f, double collapse, double horizon, double step = 0.0025);

}  // namespace retrylab
