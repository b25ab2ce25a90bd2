#pragma once
// The reproduced value of a statement on one seed: a Query's measure over the points of its sweep
// (seed 0) or of the sweep's replica NAME@2 (seed 1), as a Sample the verdict rule can judge
// (papers/published/verdict.hpp). The measures (docs/published.md):
//   value, max, min        a metric of one point (the largest / smallest over the points): a mean
//                          with its interval, or a fraction of runs (k of n)
//   reached                the fraction of a steady point's runs whose peak backlog reached K
//   collapse_load          the first load at which at least half the runs reached K (a threshold;
//   last_surviving         the last load before it), per load the runs that did
//   cap_threshold          the smallest cap at which every run drained (a threshold)
//   best, best_ratio       the lowest mean over a search (and its ratio to the best of `over`)
//   ratio, ratio_to_best   one point over another (over the lowest of `over`)
//   sleep, first_retry     a sleep quantile (exact), the first retry whose quantile reaches `threshold`
//   exponent, quadratic_share  fits against the number of clients (papers/published/fits.hpp)
//   check_error            |simulated / closed form − 1| of a checks point (the worst of several)
//   at_best                `metric` at the point with the largest mean of `by`
//   max_of, min_of, difference_of, ratio_of  over the samples of other statements (`of`)
// `per = FIELD` computes the measure for each value of FIELD and keeps the largest. Then the value
// (and its interval, and a threshold's levels) is multiplied by `scale` and `offset` is added.
#include <functional>
#include <string>

#include "papers/published/results.hpp"
#include "papers/published/statements.hpp"
#include "papers/published/verdict.hpp"

namespace retrylab::papers::published {

// The sample of another statement on a seed (for max_of and the like), at collapse threshold k when
// k > 0 (a search of K over a statement built from others reads them all at that K).
using SampleOf = std::function<Sample(const std::string& id, int seed, std::int64_t k)>;

// The query as it reads seed `seed`'s points: its sweep, or the sweep's replica.
Query on_seed(Query q, int seed);

Sample measure(const std::string& id, const Results& r, const Query& q, const SampleOf& other, int seed);

}  // namespace retrylab::papers::published
