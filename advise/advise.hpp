#pragma once
// The policy search behind `retrylab advise`: given a burst of N clients on one contended resource
// (and optionally steady traffic), which backoff strategy, base and cap serve the user's objective
// best (least mean drain time by default; least attempts per client; or drain time plus a weight
// per attempt), with the burst draining within drain_within? Times are in attempt-durations here;
// the CLI converts to the user's unit. docs/advise.md states the method; in short, per strategy:
//  1. the curve: caps over the whole range, base .. min(10^4·base, drain_within), on a half-octave
//     grid (the least cap that drains found by bisection from the analytic first guess, every grid
//     cap above it run: 4 runs, and 4 more unless those put it behind the best, search.hpp), all on
//     common random numbers (advise/runs.hpp); nothing at all when drain_within < N (can_drain);
//  2. with the base searched (not pinned): bases in octaves around the curve's best cap, then the
//     curve again at the best cap-to-base ratio;
//  3. refinement at eighth-octave caps (and half-octave bases) around the optimum with more runs;
//     the runner-ups (paired differences against the chosen policy) show how flat the optimum is;
//     a strategy whose best curve policy is behind another's (a paired one-sided 1 − sift_error
//     interval over the curve's runs: the leader's, then the best candidate's) stops here;
//  4. the margin: the chosen policy is the best whose neighbours cap × 0.7 and cap / 0.7 also drain
//     (advise/search.hpp states the rule); the fastest strategy is then confirmed on an independent
//     seed (seed + 1): n = ceil(ln 0.05 / ln probability) runs each at the policy and at both
//     neighbours, all of which must drain, so a policy (or neighbour) that drains with probability
//     only `probability` passes with chance <= 5%; if it fails, the next strategy.
// Invariants: a pure function of the request (seed included), whatever the thread count: every
// decision is taken on whole batches of runs, each a pure function of its (key, run index).
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analytic/model.hpp"
#include "analytic/stats.hpp"
#include "analytic/strategy.hpp"
#include "montecarlo/pulse.hpp"

namespace retrylab::advise {

// The strategies with a cap to tune, in the library's order (none and window have none).
std::vector<Strategy> capped_strategies();

// What "best" means (docs/advise.md, "The objective"). Every objective needs the burst to drain
// within drain_within; among the policies that do:
//  drain_time: the least mean drain time (when the last burst client succeeded), the default;
//  attempts:   the least mean attempts per client (the load the burst puts on the resource);
//  weighted:   the least mean of drain time + weight · attempts per client.
enum class Objective { drain_time, attempts, weighted };
std::string_view to_string(Objective o) noexcept;  // drain-time, attempts, weighted
std::optional<Objective> parse_objective(std::string_view name) noexcept;

// What a progress display sees of a search as it goes (the CLI's montecarlo/progress.hpp); empty
// members are skipped, and nothing here changes a result. `run` and the pulse are called from the
// worker threads.
struct Watch {
  montecarlo::Pulse* pulse = nullptr;             // the search's runs publish their attempts here
  std::function<void(const std::string&)> stage;  // a stage begins: "full: search", "full: confirmation", ...
  std::function<void()> searched;                 // a strategy's search ended (one of strategies.size())
  std::function<void()> run;                      // a run ended
};

struct Request {
  Model model = Model::collision;  // collision, free or shared (what a failed attempt costs)
  std::int64_t clients = 100;      // the burst N, [2, 100000]; with a range, its upper end
  std::int64_t clients_low = 0;    // a range's lower end, [2, clients]; 0 = no range
  double rate = 0.0;               // steady load λ per attempt-duration, [0, 1)
  double base = 0.0;               // > 0: every policy uses this base; 0: searched, from one attempt-duration
  double drain_within = 60000.0;   // the burst must drain within it (the runs' horizon), (base, 1e7]
  double probability = 0.99;       // the drained fraction a policy must reach, [0.5, 0.999]
  Objective objective = Objective::drain_time;
  double weight = 0.0;  // weighted: attempt-durations of drain time one attempt per client is worth, > 0
  std::vector<Strategy> strategies = capped_strategies();
  std::uint64_t seed = 1;  // the search uses seed, the confirmation seed + 1
  int threads = 0;         // 0 = all cores; never changes a result
  Watch watch;             // progress only
};

// Throws InputError naming the field (model, clients, rate, base, drain_within, probability,
// objective, weight, strategy), with its allowed range.
void check_request(const Request& r);

// The least base the search tries (one attempt-duration), or the pinned one.
double least_base(const Request& r);

struct Guess {
  std::optional<double> cap;  // the least draining cap the estimate predicts; empty if none
  std::string source;         // "burst model", "fluid estimate" or "none"
};

// The analytic first guess of one strategy's least draining cap at the least base.
Guess first_guess(const Request& r, Strategy s);

struct Policy {
  Strategy strategy = Strategy::full;
  double base = 1.0;
  double cap = 1.0;
};

// What runs of one policy showed. `objective` is the per-run objective's summary over the runs
// that drained (its mean is what the search minimises); drained.n = 0: the policy was not run.
struct Stats {
  Policy policy;
  ProportionSummary drained{};  // runs whose burst drained within drain_within
  MeanSummary drain_time{}, drain_time_p99{}, attempts_per_client{}, objective{};
  bool feasible() const noexcept { return drained.n > 0 && drained.count == drained.n; }
};

// Whether a policy's neighbours kept the margin (advise/search.hpp) in the search's runs.
enum class Margin { not_tried, kept, lost };
std::string_view to_string(Margin m) noexcept;  // not tried, kept, lost

struct RunnerUp {
  Stats stats;               // its refinement runs (common random numbers)
  MeanSummary difference{};  // objective minus the chosen policy's, paired run by run
  Margin margin = Margin::not_tried;
};

struct Candidate {
  Strategy strategy = Strategy::full;
  Guess guess;
  bool found = false;  // some policy drained in every search run and kept its margin (then `policy` is set)
  // Set aside after step 2 (not refined, not confirmed; found is false): its best curve policy
  // `curve_best` is behind the best curve policy of strategy `behind` (the leader's, or the
  // candidate ranked first) by `behind_by`: its objective minus theirs (whose mean is
  // `behind_objective`), paired over coarse_runs common runs (search.hpp: behind).
  std::optional<Strategy> behind;
  Policy curve_best;
  MeanSummary behind_by{};
  double behind_objective = 0.0;
  // Not searched (found is false, nothing run): the best curve policy `curve_best` of strategy
  // `near_bound`, searched before it, had a one-sided 1 − sift_error upper bound `near_upper` on its
  // mean objective within near_gap of least_objective, which no policy can beat (advise.cpp).
  std::optional<Strategy> near_bound;
  double near_upper = 0.0;
  bool confirmed = false;       // the policy and both margin neighbours drained in every confirming run
  Policy policy;                // the chosen policy
  Stats search;                 // the chosen policy's refinement runs (common random numbers)
  Stats confirm, lower, upper;  // independent runs at the policy, cap × 0.7 and cap / 0.7 (n = 0: not run)
  // certain_drain of the policy when it (and both neighbours') bound every run's drain time: the
  // confirmation then decides the neighbours' objectives only, on as few runs as settle them; NaN
  // otherwise (the drain claim rests on n = ceil(ln 0.05 / ln probability) runs each).
  double drain_bound = std::numeric_limits<double>::quiet_NaN();
  // The curve: the whole cap range at base `policy.base` (ratio = 0) or at cap/base = ratio.
  double ratio = 0.0;
  std::vector<Stats> curve;          // half-octave caps, ascending; drained.n = 0 below the bisection's reach
  double least_cap = 0.0;            // the least curve cap whose every search run drained (found only)
  std::vector<RunnerUp> runner_ups;  // the refined policies near the optimum, by objective
  // A cap within 2x the base: the policies that show why (2x the cap; the least base at this cap
  // when the base was searched), each against the chosen one.
  std::vector<RunnerUp> near_base;
  // Steady load the policy sustains, per attempt-duration (advise/sustainable.hpp); the confirmed
  // candidate only, NaN otherwise. whole_range: even one per attempt-duration did not collapse.
  double sustainable_rate = 0.0;
  double sustainable_collapsed_at = 0.0;  // the bisection's other end: the least load that collapsed
  bool sustainable_whole_range = false;
  // With a range: the confirmed policy run on clients_low clients (the confirming seed and count);
  // the burst sizes between are taken to need no larger cap than the upper end (the least draining
  // cap grows with N in every model here: analytic/fluid_cap.hpp, burst.hpp).
  bool low_end_run = false;
  Stats low_end;
  std::int64_t runs_simulated = 0;  // every run this strategy cost (search, confirmation, sustainable load)
};

struct Advice {
  Request request;
  std::vector<Candidate> candidates;  // ranked: the confirmed one first, then by objective
};

// The cap range every curve spans: [least_base, min(10^4 · least_base, drain_within)].
double max_cap(const Request& r);

// Whether any policy could drain the burst by drain_within: in every model a success holds the
// resource for a whole attempt-duration (collision: no other attempt overlaps it; free: commits
// at least one apart; shared: one unit of the server's work, done at rate at most 1), so the last
// of N clients succeeds no sooner than N. False: drain_within < N, and advise runs nothing.
bool can_drain(const Request& r) noexcept;

// The least mean objective any policy can reach: a burst of N drains no sooner than N (can_drain),
// and every client makes at least one attempt: N (drain-time), 1 (attempts), N + weight (weighted).
double least_objective(const Request& r) noexcept;
// A strategy is not searched once a best curve policy searched before it (in r.strategies order) is
// within this fraction of least_objective by its one-sided 1 − sift_error upper bound: none of its
// policies could beat that one's mean objective by more than it.
inline constexpr double near_gap = 0.05;

// The free model's drain bound (docs/advise.md, "The search's error"): on free without steady load,
// with every sleep at most the cap (nojitter, full, equal, decorrelated; memoryless sleeps are
// exponential, unbounded), while a burst client waits, a commit follows the previous one (or the
// burst's start) within cap + 2 attempt-durations: every waiting client starts an attempt within
// cap + 1 of it (an attempt in flight ends within 1, a sleep is at most the cap), and the first
// attempt started after it commits one later unless another commit came first. So the last of N
// clients succeeds by 1 + (N − 1)(cap + 2), in every run. That bound where it applies and lies
// within drain_within; empty otherwise.
std::optional<double> certain_drain(const Request& r, const Policy& p) noexcept;

Advice advise(const Request& r);

}  // namespace retrylab::advise
