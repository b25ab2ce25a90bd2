#pragma once
// The classic test solved exactly as a finite continuous-time Markov chain: N <= 8 clients start
// together at t = 0, retries on, no steady load, on `collision` or `free`, with the memoryless
// strategy (sleep after the k-th failure ~ Exp(mean w_k/2), w_k = min(c, b·2^(k−1))) and
// exponential attempt durations of mean 1 (the engine's server option service=exponential). Both
// laws are memoryless, so the state is, per client, what it is doing and its failure count:
//   sleeping at stage k (k failures, 1 <= k <= S), in flight with f failures (0 <= f <= S) and
//   either clean (would succeed if it ended now) or doomed (an overlap, `collision`, or a successful
//   commit since it started, `free`, has already failed it), or done;
// S = the first k with w_k = c (stages past S sleep alike and are merged into S). Clients are
// exchangeable, so a state is the count of clients of each kind. Transitions: a stage-k sleeper
// wakes at rate 2/w_k (an attempt starts: on `collision` it and every attempt in flight are doomed
// unless it is alone; on `free` it starts clean); an attempt ends at rate 1 (clean: success, and
// on `free` every other attempt in flight is doomed; doomed: failure, the client sleeps at stage
// min(f+1, S)). Expected makespan = expected time to absorption, expected attempts = N + expected
// number of wake-ups; both solve −Q_TT·x = r over the transient states (Eigen SparseLU).
// Exact up to the linear solve (its residual is reported). Invariant: every generator row sums to
// 0 (checked on the built matrix and reported).
// Proof: proofs/Markov.v: generator_rows_sum_zero
// Proof: proofs/Markov.v: generator_assembled_rows_sum_zero (the rows as assembled from triplets,
//   duplicates summed as Eigen's setFromTriplets does)
#include <cstdint>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"

namespace retrylab {

inline constexpr std::int64_t markov_max_clients = 8;
inline constexpr std::int64_t markov_max_states = 400'000;

struct MarkovBurst {
  Model model = Model::collision;                        // collision or free
  Backoff backoff{Strategy::memoryless, 1.0, 8.0, 0.0};  // memoryless, finite cap
  std::int64_t clients = 4;                              // N in [1, markov_max_clients]
};

struct MarkovSolution {
  double attempts_per_client = 0.0;  // E[attempts]/N
  double makespan = 0.0;             // E[time of the last success]
  std::int64_t states = 0;           // reachable states, the absorbing one included
  std::int64_t transitions = 0;      // off-diagonal generator entries
  int stages = 0;                    // S
  double row_sum_error = 0.0;        // max |row sum| of the built generator (0 up to rounding)
  double residual = 0.0;             // max |−Q_TT·x − r| / max |r| over both solves
};

// Throws InputError naming the field: model (collision, free), strategy (memoryless), cap
// (finite), clients ([1, 8]); and cap again when the chain would exceed markov_max_states.
void check_markov(const MarkovBurst& m);

MarkovSolution solve_markov(const MarkovBurst& m);

}  // namespace retrylab
