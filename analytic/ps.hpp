#pragma once
// Processor sharing (docs/models.md §1, model `ps`): Poisson arrivals, each job needs service of mean x,
// the server shares its unit rate equally among the n jobs present. Load ρ = λ·x < 1.
//   mean time in system  T = x/(1−ρ);   mean number in system  N = ρ/(1−ρ)  (Little: N = λ·T).
// Assumptions: Poisson arrivals, ρ < 1 (stable), steady state. By the insensitivity of M/G/1-PS
// (Kleinrock 1967; Kelly, "Reversibility and Stochastic Networks", 1979, §3.3) these hold for any
// service distribution with mean x, in particular the deterministic x = 1 of the engine, so the
// M/M/1 balance equations below are the proof's route.
// Proof: proofs/Ps.v: mm1_balance
// Proof: proofs/Ps.v: mm1_mean_number
// Proof: proofs/Ps.v: ps_mean_time

namespace retrylab {

struct ProcessorSharing {
  double load = 0.0;     // ρ = λ·x, in [0, 1)
  double service = 1.0;  // x: mean service requirement, finite, > 0 (1 = one attempt-duration)
};

// Throws InputError("load" or "service", ...) outside the ranges above.
void check_ps(const ProcessorSharing& m);

double mean_time(const ProcessorSharing& m);    // x/(1−ρ)
double mean_number(const ProcessorSharing& m);  // ρ/(1−ρ)

}  // namespace retrylab
