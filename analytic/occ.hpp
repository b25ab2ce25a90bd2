#pragma once
// First-commit-wins with free failures (docs/models.md §1, model `free`, retries off): Poisson arrivals
// of rate λ, attempt duration 1. An attempt succeeds iff no successful commit happens during it, so
// the resource behaves as an M/D/1/1 loss system: busy for 1 after each success, arrivals during a
// busy period fail at no cost. Renewal cycle: idle Exp(λ) (mean 1/λ) + busy 1.
//   goodput(λ) = λ/(1+λ)  (increasing, < 1);   success probability 1/(1+λ).
// Assumptions: Poisson arrivals, deterministic attempt duration 1, no retries (PASTA gives the
// success probability as the fraction of time idle).
// Proof: proofs/Occ.v: occ_throughput
// Proof: proofs/Occ.v: occ_bounds
// Proof: proofs/Occ.v: occ_increasing
// Proof: proofs/Occ.v: occ_success_probability

namespace retrylab {

struct OccFree {
  double rate = 0.0;  // λ, finite, >= 0
};

// Throws InputError("rate", ...) unless 0 <= rate < inf.
void check_occ(const OccFree& m);

double goodput(const OccFree& m);              // λ/(1+λ)
double success_probability(const OccFree& m);  // 1/(1+λ)

}  // namespace retrylab
