#pragma once
// Pure ALOHA (docs/models.md §1, model `collision`, retries off): attempts of duration 1 start as a Poisson
// process of rate λ (the offered load G = λ); an attempt succeeds iff no other attempt overlaps it,
// i.e. no other start within 1 before or after it: P(success) = e^(−2λ).
//   goodput(λ) = λ·e^(−2λ),  increasing on [0, 1/2], decreasing on [1/2, ∞),
//   argmax 1/2, maximum 1/(2e) ≈ 0.18394.
//   Inverse: for 0 <= S <= 1/(2e), λ·e^(−2λ) = S has the roots
//   low  = −W0(−2S)/2  in [0, 1/2]   (Lambert W, principal branch),
//   high = −W−1(−2S)/2 in [1/2, ∞]   (lower branch; S = 0 gives +inf).
// Assumptions: Poisson arrivals (independent attempts), attempt duration exactly 1, half-open
// intervals, no retries (retried traffic is not Poisson; the formula is then the usual approximation).
// Proof: proofs/Aloha.v: aloha_derivative
// Proof: proofs/Aloha.v: aloha_increasing
// Proof: proofs/Aloha.v: aloha_decreasing
// Proof: proofs/Aloha.v: aloha_max
// Proof: proofs/Aloha.v: aloha_max_bounds
// Proof: proofs/Aloha.v: aloha_at_one
// Proof: proofs/Aloha.v: aloha_inverse_low_unique
// Proof: proofs/Aloha.v: aloha_inverse_high_unique

namespace retrylab {

struct PureAloha {
  double rate = 0.0;  // λ: attempts started per attempt-duration, finite, >= 0
};

// Throws InputError("rate", ...) unless 0 <= rate < inf.
void check_aloha(const PureAloha& m);

double goodput(const PureAloha& m);              // λ·e^(−2λ)
double success_probability(const PureAloha& m);  // e^(−2λ)
double aloha_argmax() noexcept;                  // 1/2
double aloha_max_goodput() noexcept;             // 1/(2e)

struct AlohaInverse {
  double low;   // the root in [0, 1/2] (stable side: goodput rises with load)
  double high;  // the root in [1/2, +inf] (collapse side)
};

// Throws InputError("goodput", ...) unless 0 <= goodput <= 1/(2e).
void check_aloha_goodput(double goodput);
AlohaInverse aloha_inverse(double goodput);

}  // namespace retrylab
