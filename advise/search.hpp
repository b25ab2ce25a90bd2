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

// Steps 1–4 for strategy s: the curve, the base search (r.base == 0), the refinement, the margin.
// Fills every field of the candidate but confirmed, confirm, lower, upper, sustainable_rate and
// the low end; adds nothing to runs_simulated (the caller counts the bench's runs).
Candidate search(const Request& r, Strategy s, Bench& bench);

}  // namespace retrylab::advise
