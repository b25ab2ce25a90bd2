#pragma once
// One strategy's search on common random numbers (advise/runs.hpp: Bench), steps 1–4 of
// advise/advise.hpp; the confirmation on an independent seed is advise.cpp's.
// The margin rule: a chosen policy's neighbours cap × 0.7 (its base lowered to that cap if above
// it) and cap / 0.7 (the same base) must drain in every run too, and their mean objective be at
// most 1.5× the policy's, first in the search's refinement runs, then in the confirming runs, so an
// estimate of N or of the attempt-duration a little off (by up to 1/0.7 = 1.43×, either way) does
// not tip the policy over a cliff: neither one where the burst stops draining nor one where it
// drains several times slower (a window just wide enough for N clients is such a cliff).
// Invariants: the curve's caps are least_base·ratio·2^(i/2) (ratio 1 for a fixed base), ascending,
// up to max_cap; the chosen policy, if any, drained in all of its refinement runs and both of its
// neighbours did too; the runner-ups are ordered by objective.
#include <optional>
#include <vector>

#include "advise/advise.hpp"
#include "advise/runs.hpp"

namespace retrylab::advise {

inline constexpr double margin_factor = 0.7;
inline constexpr double margin_slack = 1.5;      // a neighbour's objective at most this times the policy's
inline constexpr std::int64_t coarse_runs = 8;   // runs per curve point and per base tried
inline constexpr std::int64_t refine_runs = 32;  // runs per refined policy and per margin neighbour
// Sequential elimination (search.cpp: sift): curve caps and bases tried get sift_runs runs first,
// and only those not separated from the leader (paired one-sided t, error sift_error) the rest.
inline constexpr std::int64_t sift_runs = 4;
inline constexpr double sift_error = 0.001;

Policy lower_neighbour(const Policy& p);  // cap × 0.7, base min(base, that cap)
Policy upper_neighbour(const Policy& p);  // cap / 0.7, the same base

// Whether runs of a policy drained clear of the objective's deadline: every run drained, and the
// drain time's mean + 3 sd is within drain_within (a normal tail of 0.13%: a policy whose runs end
// close to the deadline would fail some of the many confirming runs).
bool clear_of_deadline(const Request& r, const Stats& s);
// Whether a neighbour's runs keep the margin against the policy's: clear of the deadline, objective
// within margin_slack.
bool keeps_margin(const Request& r, const Stats& neighbour, const Stats& policy);

// A one-parameter family of policies over the cap: a fixed base, or base = cap / ratio.
struct Line {
  Strategy strategy = Strategy::full;
  double base = 1.0;   // fixed base (ratio == 0)
  double ratio = 0.0;  // > 0: base = cap / ratio

  Policy at(double cap) const { return {strategy, ratio > 0 ? cap / ratio : base, cap}; }
  double lowest_cap(const Request& r) const { return ratio > 0 ? least_base(r) * ratio : base; }
};

// Steps 1–2 of one strategy's search: the curve it ends with and its best policy (coarse_runs runs).
struct Curve {
  Line line;
  std::vector<double> caps;
  int least = -1;  // index of the least cap that drained in every run (-1: none)
  std::optional<Policy> best;
};

// Steps 1–4 for strategy s: the curve, the base search (r.base == 0), the refinement, the margin.
// Fills every field of the candidate but confirmed, confirm, lower, upper, sustainable_rate and
// the low end; adds nothing to runs_simulated (the caller counts the bench's runs).
Candidate search(const Request& r, Strategy s, Bench& bench);
// The same in two parts: steps 1–2 (the candidate's guess, curve, ratio and least cap; `curve` is
// what steps 3–4 start from), then steps 3–4. search_curve then finish_search is search.
Candidate search_curve(const Request& r, Strategy s, Bench& bench, Curve& curve);
void finish_search(const Request& r, const Curve& curve, Bench& bench, Candidate& c);

// Whether policy a on bench x is behind policy b on bench y: both drained in all coarse_runs of
// their runs, and a's objective minus b's, paired run by run (the benches share their random
// numbers: the same request and seed), has a one-sided 1 − sift_error Student-t lower bound > 0.
// `difference` receives the paired difference (n = 0 when a pair did not drain).
bool behind(const Bench& x, const Policy& a, const Bench& y, const Policy& b, MeanSummary& difference);

}  // namespace retrylab::advise
