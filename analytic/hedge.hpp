#pragma once
// One hedge without contention (docs/models.md §7, components/hedge.hpp): a request's first attempt
// is sent at 0, a second at d unless the first has answered; each is served alone (model `none`) for
// an exponential time of mean x = 1/μ, independently; no attempt fails. Its latency is
// L = min(S1, d + S2), with
//   survival  P(L > t) = e^(−μt) for t < d,  e^(−μ(2t − d)) for t >= d   (the product of the two);
//   mean      E[L] = ∫₀^∞ P(L > t) dt = (1 − e^(−μd))/μ + e^(−μd)/(2μ) = 1/μ − e^(−μd)/(2μ);
//   quantile  t_q = −ln(1 − q)/μ while 1 − q > e^(−μd), else (d − ln(1 − q)/μ)/2.
// Assumptions: the attempts' services are independent exponentials (the engine's exponential
// service, mean 1 = x), no contention between them (so cancelling the loser changes nothing), no
// failure, no network delay; hedge_attempts 2. Independence and the mean as the integral of the
// survival function (E[L] = ∫ P(L > t) dt for L >= 0) are cited, not proved.
// Proof: proofs/Hedge.v: hedge_survival_product
// Proof: proofs/Hedge.v: hedge_head_integral
// Proof: proofs/Hedge.v: hedge_tail_integral
// Proof: proofs/Hedge.v: hedge_mean

namespace retrylab {

struct HedgedOnce {
  double delay = 0.0;    // d >= 0, finite: when the hedge is sent
  double service = 1.0;  // x = 1/μ > 0, finite: the mean service time of each attempt
};

// Throws InputError("delay" or "service", ...) outside the ranges above.
void check_hedge(const HedgedOnce& h);

double hedge_mean_latency(const HedgedOnce& h);        // x − x·e^(−d/x)/2
double hedge_survival(const HedgedOnce& h, double t);  // P(L > t); 1 for t < 0
double hedge_quantile(const HedgedOnce& h, double q);  // the t with P(L <= t) = q, q in [0, 1)

}  // namespace retrylab
