#include "papers/published/verdict.hpp"

#include <algorithm>
#include <cmath>

namespace retrylab::papers::published {

namespace {

double log_choose(std::int64_t n, std::int64_t k) {
  return std::lgamma(static_cast<double>(n + 1)) - std::lgamma(static_cast<double>(k + 1)) -
         std::lgamma(static_cast<double>(n - k + 1));
}

// The counts c of n runs whose fraction the claim allows (v ± h, or the bound's side); when no count
// falls inside v ± h (a coarse n), the counts nearest v·n.
std::pair<std::int64_t, std::int64_t> allowed_counts(const Claim& c, std::int64_t n) {
  const double nn = static_cast<double>(n), eps = 1e-9;
  const double v = c.value, h = c.half_width;
  double lo = 0, hi = nn;
  switch (c.compare) {
    case Compare::equal: lo = (v - h) * nn, hi = (v + h) * nn; break;
    case Compare::range: lo = (v - h) * nn, hi = (c.to + h) * nn; break;
    case Compare::below: hi = std::ceil(v * nn - eps) - 1; break;
    case Compare::above: lo = std::floor(v * nn + eps) + 1; break;
    case Compare::at_most: hi = v * nn; break;
    case Compare::at_least: lo = v * nn; break;
  }
  auto a = static_cast<std::int64_t>(std::ceil(std::max(0.0, lo) - eps));
  auto b = static_cast<std::int64_t>(std::floor(std::min(nn, hi) + eps));
  if (a > b && (c.compare == Compare::equal || c.compare == Compare::range)) {
    a = static_cast<std::int64_t>(std::floor(std::clamp(v * nn, 0.0, nn)));
    b = static_cast<std::int64_t>(std::ceil(std::clamp(v * nn, 0.0, nn)));
  }
  return {a, b};
}

// The largest Fisher p-value of k of n against any count in [a, b] of np.
double best_p(std::int64_t k, std::int64_t n, std::int64_t a, std::int64_t b, std::int64_t np) {
  double p = 0.0;
  for (std::int64_t c = a; c <= b; ++c) p = std::max(p, fisher_two_sided(k, n, c, np));
  return p;
}

bool satisfies(const Claim& c, double x) {
  const double v = c.value, h = c.half_width;
  switch (c.compare) {
    case Compare::equal: return std::fabs(x - v) <= h * (1 + 1e-9);
    case Compare::range: return x >= v - h * (1 + 1e-9) && x <= c.to + h * (1 + 1e-9);
    case Compare::below: return x < v;
    case Compare::above: return x > v;
    case Compare::at_most: return x <= v;
    case Compare::at_least: return x >= v;
  }
  return false;
}

// Whether an interval [lo, hi] reaches what the claim allows.
bool reaches(const Claim& c, double lo, double hi) {
  const double v = c.value, h = c.half_width;
  switch (c.compare) {
    case Compare::equal: return lo <= v + h && hi >= v - h;
    case Compare::range: return lo <= c.to + h && hi >= v - h;
    case Compare::below: return lo < v;
    case Compare::above: return hi > v;
    case Compare::at_most: return lo <= v;
    case Compare::at_least: return hi >= v;
  }
  return false;
}

// A whole interval on the bound's side (a bound), or the value rounding to v (equal, range).
bool holds_mean(const Claim& c, const Sample& s) {
  switch (c.compare) {
    case Compare::below: return s.hi < c.value;
    case Compare::above: return s.lo > c.value;
    case Compare::at_most: return s.hi <= c.value;
    case Compare::at_least: return s.lo >= c.value;
    default: return satisfies(c, s.value);
  }
}

Verdict judge_mean(const Claim& c, const Sample& s) {
  if (std::isnan(s.value)) return Verdict::differs;
  if (std::isnan(s.lo) || std::isnan(s.hi)) return satisfies(c, s.value) ? Verdict::holds : Verdict::differs;
  if (holds_mean(c, s)) return Verdict::holds;
  const double np = static_cast<double>(c.paper_runs > 0 ? c.paper_runs : s.runs);
  const double f = s.runs > 0 ? std::sqrt(1.0 + static_cast<double>(s.runs) / np) : 1.0;
  const double lo = s.value - (s.value - s.lo) * f, hi = s.value + (s.hi - s.value) * f;
  return reaches(c, lo, hi) ? Verdict::within_noise : Verdict::differs;
}

Verdict judge_fraction(const Claim& c, const Sample& s) {
  if (s.runs <= 0) return Verdict::differs;
  if (satisfies(c, s.value)) return Verdict::holds;
  const std::int64_t np = c.paper_runs > 0 ? c.paper_runs : s.runs;
  const auto [a, b] = allowed_counts(c, np);
  if (a > b) return Verdict::differs;
  return best_p(s.count, s.runs, a, b, np) >= alpha ? Verdict::within_noise : Verdict::differs;
}

// Whether the levels are compatible with the paper's threshold at level `at` (an index): the two
// levels the threshold's definition turns on (the level it names and its neighbour, below for a
// first level, above for a last one) each allow some count of the paper's runs that Fisher's test
// does not reject at alpha / 2. The fraction of runs that collapse (or drain) grows with the load
// (the cap), so the levels further below follow from the one next to the threshold; testing them
// too would only spend alpha.
bool compatible_at(const Claim& c, const Sample& s, std::size_t at) {
  struct Constraint {
    std::size_t level;
    bool met;  // the level's condition met (majority / all) or not
  };
  std::vector<Constraint> cs;
  if (s.rule == Rule::last_before_half) {
    cs.push_back({at, false});
    if (at + 1 < s.levels.size()) cs.push_back({at + 1, true});
  } else {
    if (at > 0) cs.push_back({at - 1, false});
    cs.push_back({at, true});
  }
  const double m = static_cast<double>(std::max<std::size_t>(cs.size(), 1));
  for (const auto& k : cs) {
    const Level& l = s.levels[k.level];
    const std::int64_t np = c.paper_runs > 0 ? c.paper_runs : l.n;
    const std::int64_t half = (np + 1) / 2;                           // at least half: 2c >= np
    const std::int64_t need = s.rule == Rule::first_all ? np : half;  // the fewest runs that meet the level
    const std::int64_t a = k.met ? need : 0, b = k.met ? np : need - 1;
    if (best_p(l.count, l.n, a, b, np) < alpha / m) return false;
  }
  return true;
}

Verdict judge_threshold(const Claim& c, const Sample& s) {
  if (satisfies(c, s.value)) return Verdict::holds;
  if (s.levels.empty()) return Verdict::differs;
  // The paper's threshold at a level the claim allows, or else at the first level above v.
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < s.levels.size(); ++i)
    if (satisfies(c, s.levels[i].x)) candidates.push_back(i);
  if (candidates.empty())
    for (std::size_t i = 0; i < s.levels.size(); ++i)
      if (s.levels[i].x > c.value) {
        candidates.push_back(i);
        break;
      }
  for (const std::size_t at : candidates)
    if (compatible_at(c, s, at)) return Verdict::within_noise;
  return Verdict::differs;
}

}  // namespace

std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::within_noise: return "within noise";
    case Verdict::differs: return "differs";
  }
  return "differs";
}

double threshold_of(const std::vector<Level>& levels, Rule rule) {
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const Level& l = levels[i];
    const bool met = rule == Rule::first_all ? l.count == l.n : 2 * l.count >= l.n;
    if (met) {
      if (rule != Rule::last_before_half) return l.x;
      return i == 0 ? nan : levels[i - 1].x;
    }
  }
  return rule == Rule::last_before_half && !levels.empty() ? levels.back().x : nan;
}

double fisher_two_sided(std::int64_t k1, std::int64_t n1, std::int64_t k2, std::int64_t n2) {
  const std::int64_t n = n1 + n2, k = k1 + k2;
  if (n1 <= 0 || n2 <= 0) return 1.0;
  const double total = log_choose(n, n1);
  const auto logp = [&](std::int64_t x) { return log_choose(k, x) + log_choose(n - k, n1 - x) - total; };
  const double observed = logp(k1);
  double p = 0.0;
  for (std::int64_t x = std::max<std::int64_t>(0, n1 - (n - k)); x <= std::min(k, n1); ++x)
    if (logp(x) <= observed + 1e-7) p += std::exp(logp(x));
  return std::min(1.0, p);
}

Verdict judge(const Claim& c, const Sample& s) {
  switch (s.kind) {
    case Sample::Kind::none: return Verdict::differs;
    case Sample::Kind::exact: return satisfies(c, s.value) ? Verdict::holds : Verdict::differs;
    case Sample::Kind::mean: return judge_mean(c, s);
    case Sample::Kind::fraction: return judge_fraction(c, s);
    case Sample::Kind::threshold: return judge_threshold(c, s);
  }
  return Verdict::differs;
}

Verdict combine(Verdict a, Verdict b) noexcept {
  if (a == b) return a;
  return Verdict::within_noise;
}

}  // namespace retrylab::papers::published
