#pragma once
// Erlang's loss formula (docs/models.md §8, "Retries in flight"): c places, requests arriving as a
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
#include <cstdint>

namespace retrylab {

// B(c, a): c >= 0 places (an integer below 10^9), offered load a >= 0 finite. B(0, a) = 1.
// Throws InputError("places" or "load", ...) outside those ranges.
double erlang_b(std::int64_t places, double load);

// The offered load of a fixed retries-in-flight limit without contention: retries asked at rate
// rate·failure_prob, each holding its place for mean_sleep + mean_attempt. Throws InputError naming
// the field: rate, mean_sleep >= 0 and mean_attempt > 0 finite, failure_prob in [0, 1].
double retries_in_flight_load(double rate, double failure_prob, double mean_sleep, double mean_attempt);

}  // namespace retrylab
