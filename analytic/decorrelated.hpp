#pragma once
// Decorrelated jitter (docs/models.md §2): s_0 = b, s_k = min(c, U(b, 3·s_(k−1))) — a Markov chain on
// [b, c] whose law after k steps has a density on [b, min(c, b·3^k)) and, once b·3^k > c, an atom
// at c. No closed form is known for the law of s_k; DecorrelatedSleep computes it numerically.
//
// Method (exact operator, interpolated state). For b <= t < c,
//   F_k(t) = E[min(1, (t−b)/(3s−b))] over s ~ s_(k−1)
//          = F_(k−1)(t/3) + (t−b)·H_(k−1)(t/3),   H(u) = E[1/(3s−b); s > u]   (atom at c included),
// and F_k(t) = 1 for t >= c. The state is the CDF at the nodes b·3^(j/m) (m = cells per factor 3;
// plus the last node min(c, b·3^k)), linear between nodes (piecewise-uniform density); the integral H
// is exact for that state (a logarithm per cell). t/3 maps node j onto node j−m, and the kinks of
// F_k at b·3^i are nodes. Error: each step is non-expansive in sup-norm (|∫(F−F̃)dg| <= sup|F−F̃|
// for g = min(1, (t−b)/(3s−b)), monotone in s with range within [0, 1]), so the CDF error after k
// steps is at most the sum of the k interpolation errors.
// Accuracy: the scheme is second order (errors fall 4× per doubling of m). Measured against a grid
// with 16384 cells per factor 3 (b = 1; c in {10, 1000, none}; k in {2, 5, 20, 40}), the default
// 1024 cells give sup |F − F_exact| < 3e-7, and a mean with relative error < 1e-6 with a cap of 1000
// (< 1e-5 uncapped up to k = 40, where the tail carries the mean). Uncapped, the error grows slowly
// with k (estimate 4e-7 at k = 100). decorrelated_accuracy() estimates
// the CDF error a posteriori (Richardson: |F_m − F_4m|·16/15). The uncapped mean has the closed form
// E[s_k] = 2b·(3/2)^k − b (from E[s_k | s_(k−1)] = (b + 3·s_(k−1))/2), held against the grid in tests.
// With a cap the chain converges to a stationary law; stepping stops early once the CDF changes by
// less than 1e-15 per step (the remaining steps are then the identity to that accuracy).
// Limits: retry k in [1, 10^6]; with cap none k <= 100 (the grid spans b..b·3^k); and a work budget
// of 1.2·10^7 node-steps per 1024 cells (about 0.1 s): a retry the chain reaches only after more
// steps than that (e.g. cap/base = 1e300 needs thousands of steps of 6·10^5 nodes) is refused with
// InputError("retry") rather than run for minutes. cap/base = 1000 reaches its stationary law well
// within the budget, so any retry up to 10^6 is answered there.
//
// One-step log growth (exact), for b <= s <= c, r = b/s, γ = min(3, c/s):
//   E[ln(s_k/s_(k−1)) | s_(k−1) = s] = (3·ln γ − γ − r·ln r + r)/(3 − r)
//   uncapped (γ = 3): (3 ln 3 − 3 − r ln r + r)/(3 − r)  →  ln 3 − 1 ≈ 0.0986 as s/b → ∞.
// Proof: proofs/Decorrelated.v: log_uniform_integral
// Proof: proofs/Decorrelated.v: decorrelated_step_growth
// Proof: proofs/Decorrelated.v: decorrelated_step_growth_limit
// Proof: proofs/Decorrelated.v: growth_limit_bounds
// (The capped variant γ < 3 follows from the same integral; the proofs cover the uncapped case.)
#include <vector>

#include "analytic/strategy.hpp"

namespace retrylab {

inline constexpr int default_decorrelated_cells = 1024;  // grid cells per factor 3 in s

class DecorrelatedSleep {
 public:
  // Throws InputError (base, cap, retry, cells) on bad input; backoff.strategy is ignored.
  DecorrelatedSleep(const Backoff& backoff, int retry, int cells_per_factor3 = default_decorrelated_cells);

  double cdf(double t) const;                               // P(s_k <= t)
  double quantile(double q) const;                          // inf{t : P(s_k <= t) >= q}, q in [0, 1]
  double mean() const;                                      // E[s_k]
  double atom() const noexcept { return atom_; }            // P(s_k = c) (0 when the cap is out of reach)
  double lower() const noexcept { return nodes_.front(); }  // b
  double upper() const noexcept { return nodes_.back(); }   // min(c, b·3^k)
  int retry() const noexcept { return retry_; }

 private:
  std::vector<double> nodes_;  // b = nodes_[0] < ... < nodes_.back() = upper()
  std::vector<double> cdf_;    // P(s_k <= node, s_k < c): the continuous part at each node
  double atom_ = 0.0;
  int retry_;
};

inline double cdf(const DecorrelatedSleep& d, double t) { return d.cdf(t); }
inline double quantile(const DecorrelatedSleep& d, double q) { return d.quantile(q); }
inline double mean(const DecorrelatedSleep& d) { return d.mean(); }

// A-posteriori estimate of the CDF error (sup over t) of the grid with cells_per_factor3 cells:
// sup_t |F_m(t) − F_(refine·m)(t)| · refine²/(refine² − 1) (Richardson, second-order scheme), sampled
// at 4001 log-spaced t. Used by tests and by `retrylab analytic sleep`.
double decorrelated_accuracy(const Backoff& backoff, int retry, int cells_per_factor3 = default_decorrelated_cells,
                             int refine = 4);

// E[ln(s_k/s_(k−1)) | s_(k−1) = sleep] (formula above). Throws InputError("sleep"/"base"/"cap")
// unless 0 < base <= sleep <= cap (cap may be +inf).
double decorrelated_step_growth(double sleep, double base, double cap = unbounded_cap);
// ln 3 − 1 = E[ln U(0, 3)]: the limit of the step growth as sleep/base → ∞.
double decorrelated_growth_limit() noexcept;

}  // namespace retrylab
