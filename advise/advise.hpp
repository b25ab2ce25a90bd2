#pragma once
// The policy search behind `retrylab advise`: given a burst of N clients on one contended resource
// (and optionally steady traffic), which backoff strategy, base and cap let the burst drain, and how
// long does it take? Times are in attempt-durations here; the CLI converts to the user's unit.
// How: per strategy, an analytic first guess of the least draining cap (analytic/burst.hpp's
// stage model; analytic/fluid_cap.hpp's estimate when that finds none), then a search on the engine
// over eighth-octave caps c_i = base·2^(i/8): walk from the guess by octaves, bisect between the last
// cap that failed and the first that passed. A cap passes the search when all of 20 runs drain within
// the objective (runs go in pairs; a cap is dropped at its first failing pair). Just above the least
// draining cap a burst drains slowly (a client there makes hundreds of attempts), so the profile
// runs the six eighth-octaves above it too (all below 2x) and takes the cap that drains fastest
// (mean drain time of its 20 runs) among those where every run drained. The fastest strategy is
// then confirmed on an independent seed (seed + 1): n = ceil(ln 0.05 / ln probability) runs (299 for
// 0.99), all of which must drain, so a cap whose drain probability is only `probability` passes with
// chance <= 5%; if it fails, the next cap of the profile, then the next strategy. The confirmed
// candidate's numbers come from those n runs; the others' from their 20 search runs.
// Invariants: the recommended cap is within 2^(6/8) < 2 of the least cap that passed the search; a
// pure function of the request (seed included), whatever the thread count: every decision is taken
// on whole batches of runs, each a pure function of its (seed, scenario, run index).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analytic/model.hpp"
#include "analytic/stats.hpp"
#include "analytic/strategy.hpp"
#include "montecarlo/result.hpp"

namespace retrylab::advise {

// The strategies with a cap to tune, in the library's order (none and window have none).
std::vector<Strategy> capped_strategies();

struct Request {
  Model model = Model::collision;  // collision, free or shared (what a failed attempt costs)
  std::int64_t clients = 100;      // the burst N, [2, 100000]; with a range, its upper end
  std::int64_t clients_low = 0;    // a range's lower end, [2, clients]; 0 = no range
  double rate = 0.0;               // steady load λ per attempt-duration, [0, 1)
  double base = 1.0;               // the base every strategy uses, > 0
  double drain_within = 60000.0;   // the drain-time objective: the burst must drain within it (the runs' horizon)
  double probability = 0.99;       // the drained fraction the cap must reach, [0.5, 0.999]
  std::vector<Strategy> strategies = capped_strategies();
  std::uint64_t seed = 1;  // the search uses seed, the confirmation seed + 1
  int threads = 0;         // 0 = all cores; never changes a result
};

// Throws InputError naming the field (model, clients, rate, base, drain_within, probability, strategy),
// with its allowed range.
void check_request(const Request& r);

struct Guess {
  std::optional<double> cap;  // the least draining cap the estimate predicts; empty if none
  std::string source;         // "burst model", "fluid estimate" or "none"
};

// The analytic first guess of one strategy's least draining cap.
Guess first_guess(const Request& r, Strategy s);

struct CapPoint {
  double cap = 0.0;
  ProportionSummary drained{};  // of the search runs at this cap
  MeanSummary drain_time{};
};

struct Candidate {
  Strategy strategy = Strategy::full;
  Guess guess;
  bool found = false;             // some cap up to max_cap drains (then the fields below are set)
  bool confirmed = false;         // the numbers below are the confirming runs' (else the search runs')
  double search_cap = 0.0;        // the least grid cap that passed the search
  double cap = 0.0;               // the cap chosen from the profile (confirmed: the confirmed one)
  std::vector<CapPoint> profile;  // search_cap and the eighth-octaves above it
  ProportionSummary drained{};    // runs that drained within the objective
  MeanSummary drain_time{}, drain_time_p99{}, attempts_per_client{};
  std::int64_t runs_simulated = 0;  // every run this strategy cost (search and confirmation)
  // With a range: the confirmed policy run on clients_low clients (the same confirming seed and
  // count); the burst sizes between are taken to need no larger cap than the upper end (the
  // least draining cap grows with N in every model here: analytic/fluid_cap.hpp, burst.hpp).
  bool low_end_run = false;
  ProportionSummary low_drained{};
  MeanSummary low_drain_time{}, low_drain_time_p99{}, low_attempts_per_client{};
  // Estimated steady load the policy sustains (analytic/steady.hpp: the fold of the mean-field
  // success rate); NaN when the model has no fold (free: the load can rise to the resource's rate).
  double sustainable_rate = 0.0;
};

struct Advice {
  Request request;
  std::vector<Candidate> candidates;  // ranked: the confirmed one first, then by mean drain time
  double max_cap = 0.0;               // the largest cap the search tried
};

// The largest cap the search tries: the horizon (a longer sleep cannot drain within it).
double max_cap(const Request& r);

Advice advise(const Request& r);

}  // namespace retrylab::advise
