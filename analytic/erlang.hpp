#pragma once
// Erlang's loss formula (docs/models.md §7, "Retries in flight"): c places, requests arriving as a
// Poisson stream of rate λ, each holding a place for a time of mean h, a request that finds every
// place taken denied (not queued). With offered load a = λh the stationary number of places taken
// is Poisson(a) truncated to {0..c}, and the fraction of requests denied is
//   B(c, a) = (a^c/c!) / Σ_(k=0..c) a^k/k!,   evaluated by B(0) = 1, B(k) = a·B(k−1)/(k + a·B(k−1))
// (no factorial, no overflow; 0 <= B <= 1, decreasing in c, increasing in a).
// A fixed limit on retries in flight (montecarlo/components/retries_in_flight.hpp) without
// contention is such a system: with steady Poisson arrivals of rate λ, each attempt failing
// independently with probability p and max_attempts 2, the retries asked form a Poisson stream of
// rate λp (the first attempts' failures, their attempts served alone), and each holds its place
// from its scheduling through its sleep until its attempt ends: h = E[sleep before retry 1] + the
// mean attempt time (retries_in_flight_load).
// Assumptions: Poisson requests; holding times independent of each other and of the arrivals;
// steady state. Cited, not proved (proofs/Erlang.v's header): that detailed balance makes the
// truncated Poisson law the M/M/c/c chain's stationary law, insensitivity of M/G/c/c
// (Sevastyanov 1957; the law holds for any holding-time law of mean h), and PASTA (the fraction
// denied is P(all c taken)).
// Proof: proofs/Erlang.v: erlang_detailed_balance
// Proof: proofs/Erlang.v: erlang_pi_sum
// Proof: proofs/Erlang.v: erlang_b_recurrence
// Proof: proofs/Erlang.v: erlang_b_bounds
//
// Erlang's delay formula (docs/models.md §7, "Erlang C"): c servers, one FCFS queue without limit,
// requests arriving as a Poisson stream of rate λ, exponential service of rate μ, offered load
// a = λ/μ < c (the M/M/c queue). In units of μ the number present is a birth–death chain, birth a in
// every state, death min(k, c) in state k; detailed balance gives π_k ∝ a^k/k! for k <= c and
// π_k = π_c·(a/c)^(k−c) above, a geometric tail that sums for a < c. An arrival waits with probability
//   C(c, a) = P(N >= c) = c·B/(c − a(1 − B)),   B = B(c, a) (erlang_b above),
// evaluated from B (no factorial, power or long sum; 0 <= C <= 1, C >= B, C(1, a) = a). In mean
// service times the mean wait is E[W] = Σ_(k>=c) π_k (k − c + 1)/c = C/(c − a) (an arrival finding
// k >= c present waits for k − c + 1 departures at rate c), and P(W > t) = C·e^(−(c − a)t): no wait
// with probability 1 − C, else an exponential wait of rate c − a.
// Assumptions: Poisson arrivals; exponential service independent of them; FCFS; steady state; a < c.
// Proved (proofs/ErlangC.v): the stationary law by detailed balance, its geometric tail sum, that it
// sums to 1, the identity C = c·B/(c − a(1 − B)) the code evaluates, E[W] = C/(c − a) from the sum
// above, P(W > t) = Σ_(k>=c) π_k·P(Erlang(k − c + 1, c) > t) = C·e^(−(c − a)t) (a Cauchy product of
// the geometric tail and e^(at)), and ∫_0^∞ C·e^(−(c − a)t) dt = C/(c − a). Cited, not proved: that a
// law in detailed balance summing to 1 is the chain's unique stationary law (irreducible, positive
// recurrent for a < c); PASTA (Wolff 1982: an arrival sees π, so P(wait) = P(N >= c)); that the wait
// of an arrival finding k >= c present is the sum of k − c + 1 independent exponentials of rate c
// (memorylessness, FCFS), and that such an Erlang time exceeds t with probability
// Σ_(i<=k−c) e^(−ct)(ct)^i/i! (fewer than k − c + 1 Poisson events in [0, t]).
// k independent M/M/c queues behind random balancing: each sees a Poisson stream of rate λ/k (Poisson
// thinning, cited), so each is an M/M/c queue of load a/k.
// Proof: proofs/ErlangC.v: mmc_detailed_balance
// Proof: proofs/ErlangC.v: mmc_tail_sum
// Proof: proofs/ErlangC.v: mmc_pi_sum
// Proof: proofs/ErlangC.v: erlang_c_from_b
// Proof: proofs/ErlangC.v: mmc_mean_wait_sum
// Proof: proofs/ErlangC.v: mmc_wait_survival_mixture
// Proof: proofs/ErlangC.v: mmc_wait_survival_integral
#include <cstdint>

namespace retrylab {

// B(c, a): c >= 0 places (an integer below 10^9), offered load a >= 0 finite. B(0, a) = 1.
// Throws InputError("places" or "load", ...) outside those ranges.
double erlang_b(std::int64_t places, double load);

// The offered load of a fixed retries-in-flight limit without contention: retries asked at rate
// rate·failure_prob, each holding its place for mean_sleep + mean_attempt. Throws InputError naming
// the field: rate, mean_sleep >= 0 and mean_attempt > 0 finite, failure_prob in [0, 1].
double retries_in_flight_load(double rate, double failure_prob, double mean_sleep, double mean_attempt);

// C(c, a): the probability that an arrival waits in M/M/c; servers c >= 1 (an integer below 10^9),
// load a in [0, c) finite. Throws InputError("servers" or "load", ...) outside those ranges.
double erlang_c(std::int64_t servers, double load);

// E[W] = C(c, a)/(c − a): the mean wait in queue in mean service times (ranges as erlang_c).
double mmc_mean_wait(std::int64_t servers, double load);

// P(W > t) = C(c, a)·e^(−(c − a)t) for t >= 0 finite in mean service times (P(W > 0) = C).
// Throws InputError naming servers, load (as erlang_c) or t.
double mmc_wait_survival(std::int64_t servers, double load, double t);

}  // namespace retrylab
