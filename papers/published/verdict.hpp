#pragma once
// The verdict rule (docs/published.md): a published number is itself an estimate, from the runs the
// paper states, so a reproduction is compared with it allowing for the sampling error on both sides;
// a verdict rests on two independent seeds, and "differs" only when both say so.
//
// One seed's reproduction (a Sample) against the published claim (v ± h, or a bound, or a range):
//   mean (a mean, a ratio, a fit, with its 95% interval [lo, hi] from `runs` runs): the interval is
//     widened by f = sqrt(1 + runs / n_paper), the standard error of the difference of two
//     independent estimates of the same mean (n_paper = the paper's stated runs, else the
//     reproduction's own; f = 1 for a fit, which the paper's words state without runs);
//     holds: the value rounds to v (|value − v| <= h), or for a bound the whole interval is on its
//       side; within noise: the widened interval reaches [v − h, v + h] (the bound's side);
//   fraction (k of n runs): holds: k/n rounds to v (is on the bound's side); within noise: some count
//     the paper could have printed (c of n_paper, c/n_paper within v ± h or on the side) is not
//     rejected by Fisher's exact two-sided test at alpha = 0.05;
//   threshold (the first load at which at least half the runs collapse, the last before it, the
//     smallest cap at which every run drains): holds: the reproduced threshold is v (± h); within
//     noise: at the two levels the published threshold turns on (at v: at least half, or all, of the
//     paper's runs; at the grid level next to it: fewer), some count the paper's runs allow is not
//     rejected by Fisher's test at alpha / 2 (Bonferroni; the fraction grows with load or cap, so
//     the levels further off follow from these two);
//   exact (no sampling error: a quantile of 200,000 draws, a search over a grid): holds when it
//     satisfies the claim, else differs.
// Two seeds: both hold -> holds; both differ -> differs; otherwise within noise. Each rule's false
// "differs" rate for a true published value is at most 5% per seed, so at most 0.25% on two.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "papers/published/statements.hpp"

namespace retrylab::papers::published {

enum class Verdict { holds, within_noise, differs };
std::string_view to_string(Verdict v) noexcept;

inline constexpr double alpha = 0.05;  // per seed and statement

struct Claim {
  Compare compare = Compare::equal;
  double value = nan, half_width = 0.0, to = nan;
  std::int64_t paper_runs = 0;  // 0: not stated (taken as the reproduction's own)
};

struct Level {
  double x;  // the load or cap
  std::int64_t count, n;
};

enum class Rule { first_half, last_before_half, first_all };

struct Sample {
  enum class Kind { none, exact, mean, fraction, threshold } kind = Kind::none;
  double value = nan, lo = nan, hi = nan;  // the reproduced value (threshold: from the levels) and its interval
  std::int64_t runs = 0;                   // mean: runs behind the interval (0: a fit); fraction: n
  std::int64_t count = 0;                  // fraction: the runs counted
  std::vector<Level> levels;               // threshold: ascending x
  Rule rule = Rule::first_half;
  std::string note;  // e.g. the best point, a grid edge
};

// The threshold a grid of levels gives under a rule (NaN when no level meets it).
double threshold_of(const std::vector<Level>& levels, Rule rule);

// Fisher's exact test on k1 of n1 against k2 of n2: the two-sided p-value (the probability, given
// the margins, of a table no more likely than the observed one).
double fisher_two_sided(std::int64_t k1, std::int64_t n1, std::int64_t k2, std::int64_t n2);

Verdict judge(const Claim& claim, const Sample& sample);
Verdict combine(Verdict a, Verdict b) noexcept;

}  // namespace retrylab::papers::published
