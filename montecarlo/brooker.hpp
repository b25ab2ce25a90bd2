#pragma once
// Brooker's classic OCC test (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015, and its
// simulator aws-samples/aws-arch-backoff-simulator): a separate simulator, not an engine Model.
// Times are in milliseconds (unit "ms"), not attempt-durations.
//
// N clients start at t = 0; each wants one successful update of one row. An attempt is four one-way
// legs, each |Normal(leg_mean, leg_sd)| ms: read request, read reply, write request, write reply. The
// server takes no time and has no queue: the version read is the row's version when the read request
// reaches it; the write is checked and applied when the write request reaches it, and succeeds iff
// the version is unchanged since that read. A client learns the outcome when the write reply
// arrives; after its k-th failure (k = 1, 2, …) it sleeps, then sends its next read request.
// Sleeps (base b, cap c, window w_k = min(c, b·2^k): Brooker's expo(k), so the first is 2·b, one
// doubling ahead of docs/models.md's w_k): none 0 | nojitter w_k | full U(0, w_k) |
// equal w_k/2 + U(0, w_k/2) | decorrelated s_k = min(c, U(b, 3·s_(k−1))), s_0 = b | window U(0, W).
//
// "Without network delay" (papers/backoff-alone, first experiment) is leg_sd = 0: every leg takes
// exactly leg_mean (10 ms), an attempt exactly 4·leg_mean. The delay is kept, its randomness
// removed: with zero legs every attempt would be atomic and the test would only count exact ties.
//
// Metrics per run: attempts = write attempts (Brooker's "work"/calls), reads = read requests (equal
// to attempts: each read is followed by its write), calls = reads + attempts; makespan = when the
// last successful write's reply reaches its client (Brooker's "time"); latency = mean over clients
// of that instant for the client.
//
// Events and ties: server instants (a read or write request reaching the row) are ordered by
// (time, tie word, client); the tie word is mix64(salt + sequence number of the scheduling), the
// salt one draw of the run's StreamId::ties stream, so simultaneous instants (the t = 0 start, fixed
// legs) come in a pseudo-random order that is a pure function of the run; a client's instant at
// exactly the time of its previous one keeps that one's tie word, so nothing is ordered between
// cause and effect (zero legs, or a leg too small to change t). Only write arrivals are
// queued, one event per attempt: a write succeeds iff the last successful write precedes its read
// in that order, which is exactly "the version is unchanged since the read" (client-side arrivals
// touch no shared state). Legs: |leg_mean + leg_sd·Z|, Z by a 128-layer ziggurat on a Random123
// Philox4x64-10 stream (brooker_network_stream; same key as the engine's streams; four draws per
// call, as legs are most of an attempt's draws); sleeps: the engine's SleepSampler on
// StreamId::sleeps. A run is a pure function of (scenario, seed, run index): key =
// run_key(seed, stable_hash(scenario)); summaries are reduced in run-index order, so every output is
// byte-identical for any thread count.
//
// Invariants of every run (tested): every client succeeds; successes = clients;
// clients <= attempts <= clients² (a failure is caused by another client's success inside the
// read–write window, and each client succeeds once, so a client fails at most clients − 1 times);
// max_attempts <= clients; reads = attempts; 0 <= latency <= makespan. With fixed legs of m ms:
// successes reach the server >= 2m apart (a success's read follows the previous success), so
// makespan >= 2m(N + 1) and latency >= 4m; with no sleep or nojitter the clients stay in lockstep,
// attempts = N(N+1)/2 exactly, makespan = 4mN + the sum of the first N − 1 sleeps.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analytic/stats.hpp"
#include "analytic/strategy.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/scenario.hpp"  // RunPlan, fnv1a64

namespace retrylab::montecarlo {

inline constexpr double brooker_default_base = 5.0;       // ms (Brooker's setup_sim: backoff_cls(5, 2000))
inline constexpr double brooker_default_cap = 2000.0;     // ms
inline constexpr double brooker_default_leg_mean = 10.0;  // ms (Net(10, 2); the post: mean 10, variance 4)
inline constexpr double brooker_default_leg_sd = 2.0;     // ms
inline constexpr std::int64_t brooker_max_clients = 1'000'000;
inline constexpr double brooker_max_time = 1e12;  // ms: bound on base, cap, window, leg mean and sd

// The network legs' stream (not one of the engine's: the key already differs by scenario hash).
inline constexpr StreamId brooker_network_stream = StreamId::brooker_network;

struct BrookerScenario {
  Backoff backoff{Strategy::full, brooker_default_base, brooker_default_cap, 0.0};  // ms
  std::int64_t clients = 100;
  double leg_mean = brooker_default_leg_mean;  // ms
  double leg_sd = brooker_default_leg_sd;      // ms; 0 = without network delay (fixed legs)
};

// Throws InputError naming the field (base, cap, window, clients, leg_mean, leg_sd) and the range:
// check_backoff; cap finite and <= brooker_max_time; 1 <= clients <= brooker_max_clients;
// 0 <= leg_mean <= brooker_max_time; 0 <= leg_sd <= brooker_max_time.
void check_brooker(const BrookerScenario& s);

// "model=brooker strategy=full base=5 cap=2000 window=0 clients=100 leg_mean=10 leg_sd=2 unit=ms":
// every field, fixed order, shortest round-trip decimals (window canonically 0 unless the window
// strategy); the input to the RNG key hash.
std::string canonical(const BrookerScenario& s);
std::uint64_t stable_hash(const BrookerScenario& s);  // fnv1a64(canonical(s))

struct BrookerResult {
  std::int64_t attempts = 0;      // write attempts (work)
  std::int64_t reads = 0;         // read requests (= attempts)
  std::int64_t calls = 0;         // reads + attempts
  std::int64_t successes = 0;     // = clients
  std::int64_t max_attempts = 0;  // most write attempts by one client (<= clients)
  double makespan = 0.0;          // ms: last successful write reply reaches its client
  double latency = 0.0;           // ms: mean over clients of their success reply's arrival
};

// Over runs, reduced in run-index order (a pure function of the results in that order).
struct BrookerSummary {
  std::int64_t runs = 0;
  MeanSummary attempts, reads, calls, attempts_per_client, makespan, latency, max_attempts;
};

// One run: a pure function of (s, seed, run_index). Checks s.
BrookerResult simulate_brooker_run(const BrookerScenario& s, std::uint64_t seed, std::uint64_t run_index);

// plan.runs runs on plan.threads threads, returned in run-index order (same bytes for any thread
// count). progress(done, total) is called from worker threads as runs finish (may be empty).
std::vector<BrookerResult> simulate_brooker(const BrookerScenario& s, const RunPlan& plan,
                                            const std::function<void(std::int64_t, std::int64_t)>& progress = {});

BrookerSummary summarize_brooker(const std::vector<BrookerResult>& results);

// n legs (ms) drawn by the simulator's own leg sampler, from a stream keyed by (seed, leg_mean,
// leg_sd): for tests of the leg distribution |Normal(leg_mean, leg_sd)|. Checks leg_mean and leg_sd
// as check_brooker does, and n >= 0.
std::vector<double> draw_brooker_legs(double leg_mean, double leg_sd, std::int64_t n, std::uint64_t seed);

}  // namespace retrylab::montecarlo
