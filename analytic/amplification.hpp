#pragma once
// Retry amplification through L layers (service 1 calls service 2 ... calls the bottom service). Each
// layer makes up to a attempts of its call (1 try + a−1 retries) and stops at the first success; each
// bottom call fails independently with probability p; a layer's call fails iff all its attempts failed.
// Let q_0 = p and q_l = q_(l−1)^a = p^(a^l), the failure probability of one call into layer l.
// One call into layer l makes N_l attempts of layer l−1, with E[N_l] = Σ_(i=0..a−1) q_(l−1)^i, and
// each of those costs, independently and identically, the bottom calls of one call into layer l−1.
// N_l is a stopping time for those i.i.d. (cost, outcome) pairs, so Wald's identity gives
//   expected bottom calls per top request  E_L = Π_(l=0..L−1) Σ_(i=0..a−1) p^(i·a^l)
//                                           = Π_(l=0..L−1) (1 − p^(a^(l+1)))/(1 − p^(a^l))   (p < 1),
//   top-level failure probability p^(a^L);  E_L <= a^L, with equality iff p = 1 (every call fails).
// Assumptions: independent failures (no correlation between attempts or layers), no timeouts or
// budgets, every layer uses the same a. Correlated failures (the overload case) sit between E_L and a^L.
// Proof: proofs/Budget.v: amplification_bound
// Proof: proofs/Budget.v: amplification_exact
// Proof: proofs/Budget.v: amplification_expected

namespace retrylab {

struct RetryAmplification {
  int layers = 1;        // L in [1, 1000]
  int attempts = 3;      // a in [1, 10000]: attempts per call, first try included
  double failure = 1.0;  // p in [0, 1]: failure probability of one bottom call
};

// Throws InputError (layers, attempts, failure) outside the ranges above or when a^L > 1e300.
void check_amplification(const RetryAmplification& m);
double expected_bottom_calls(const RetryAmplification& m);    // E_L
double amplification_bound(const RetryAmplification& m);      // a^L
double top_failure_probability(const RetryAmplification& m);  // p^(a^L)

}  // namespace retrylab
