#include "advise/search.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

namespace retrylab::advise {

namespace {

constexpr int octave = 2;        // curve grid points per octave (half-octaves)
constexpr int refine_steps = 3;  // refinement: caps c·2^(k/8) for |k| <= 3, between the curve's neighbours
constexpr int margin_tries = 8;  // policies whose neighbours are tried before giving up on the strategy

std::vector<double> grid_of(const Request& r, const Line& line) {
  std::vector<double> caps;
  const double lo = line.lowest_cap(r), top = max_cap(r) * (1 + 1e-12);
  for (int i = 0;; ++i) {
    const double c = lo * std::exp2(static_cast<double>(i) / octave);
    if (c > top) break;
    caps.push_back(c);
  }
  return caps;
}

// The least passing index, from the guess g: down from it while they pass, by one octave at a
// time, or (gallop) by one, then two, four, ...; if it fails, octaves down from the top until one
// fails; then bisection. -1 if none up to top. The same index as walking from the guess octave by
// octave wherever passing is monotone in the cap, for less: a cap that does not drain is the
// dearest probe, the more the lower it is (its runs go on to the deadline, every client retrying at
// least once a cap), and every cap above the least that passes gets the curve's runs anyway, so a
// passing probe there costs nothing extra. Galloping suits use-capacity and free, where caps far
// below the guess still drain, slowly (a hundred attempts a client): it makes few of those probes;
// on collide, where the guess is mostly within an octave of a cliff below which no run drains, it
// would probe deep below the cliff instead, so there the walk goes octave by octave.
int least_passing(int g, int top, bool gallop, const std::function<bool(int)>& passes) {
  int lo = -1, hi = std::clamp(g, 0, top);  // lo fails (or is below the grid), hi passes
  if (passes(hi)) {
    for (int step = octave; hi > 0; step *= gallop ? 2 : 1) {
      const int t = std::max(0, hi - step);
      if (!passes(t)) {
        lo = t;
        break;
      }
      hi = t;
    }
  } else {
    lo = hi;
    if (lo >= top || !passes(top)) return -1;
    for (hi = top; hi - octave > lo; hi -= octave)
      if (!passes(hi - octave)) {
        lo = hi - octave;
        break;
      }
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (passes(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The policy of least objective (mean over `runs` runs) among those that drained in every run.
std::optional<Policy> best_of(const Bench& bench, const std::vector<Policy>& ps, std::int64_t runs) {
  std::optional<Policy> best;
  double v = 0.0;
  for (const Policy& p : ps) {
    const Stats s = bench.stats(p, runs);
    if (!s.feasible() || !std::isfinite(s.objective.mean)) continue;
    if (!best || s.objective.mean < v) best = p, v = s.objective.mean;
  }
  return best;
}

// Runs 0 .. runs−1 of every policy in ps, but first sift_runs of each: a policy whose first runs
// all drained and whose objective, paired run by run with the leader's (the least mean over those
// runs), lies above it by a one-sided 1 − sift_error Student-t interval (lower end > 0) gets no
// more: it is not the best of ps (a policy at least as good as the leader is dropped with chance at
// most sift_error, under the t approximation). The leader and the undecided get all their runs.
void sift(Bench& bench, const std::vector<Policy>& ps, std::int64_t runs) {
  bench.ensure(ps, sift_runs);
  const std::optional<Policy> leader = best_of(bench, ps, sift_runs);
  std::vector<Policy> kept;
  for (const Policy& p : ps) {
    if (leader && Bench::key_of(p) != Bench::key_of(*leader) && bench.stats(p, sift_runs).feasible()) {
      const MeanSummary d = bench.difference(p, *leader, sift_runs);
      if (d.n == sift_runs && std::isfinite(d.sd) &&
          student_t_interval(d.mean, d.sd, d.n, 1.0 - 2.0 * sift_error).lo > 0.0)
        continue;
    }
    kept.push_back(p);
  }
  bench.ensure(kept, runs);
}

// The whole-range curve of a line: the least draining cap by bisection from the guess, then every
// grid cap above it.
Curve scan(const Request& r, const Line& line, double guess, Bench& bench) {
  Curve c{line, grid_of(r, line), -1, std::nullopt};
  if (c.caps.empty()) return c;
  const int top = static_cast<int>(c.caps.size()) - 1;
  const int g = guess > c.caps.front() ? static_cast<int>(std::lround(octave * std::log2(guess / c.caps.front()))) : 0;
  c.least = least_passing(g, top, r.model != Model::collision,
                          [&](int i) { return bench.passes(line.at(c.caps[i]), coarse_runs); });
  if (c.least < 0) return c;
  std::vector<Policy> above;
  for (int i = c.least; i <= top; ++i) above.push_back(line.at(c.caps[i]));
  sift(bench, above, coarse_runs);
  c.best = best_of(bench, above, coarse_runs);
  return c;
}

// Bases in octaves from the least base up to the cap, and the cap itself, at caps an octave either
// side of the curve's best: the best of them sets the cap-to-base ratio of the second curve.
std::optional<Policy> base_search(const Request& r, const Curve& first, Bench& bench) {
  std::vector<Policy> ps = {*first.best};
  const double least_cap = first.caps[first.least];
  for (int k = -1; k <= 1; ++k) {
    const double cap = first.best->cap * std::exp2(k);
    if (cap < least_cap * (1 - 1e-12) || cap > max_cap(r) * (1 + 1e-12)) continue;
    for (double b = least_base(r); b < cap * (1 - 1e-12); b *= 2) ps.push_back({first.line.strategy, b, cap});
    ps.push_back({first.line.strategy, cap, cap});
  }
  sift(bench, ps, coarse_runs);
  return best_of(bench, ps, coarse_runs);
}

// Eighth-octave caps around the curve's best on its line, and (base searched) half-octave bases.
std::vector<Policy> refinement(const Request& r, const Curve& curve, const Policy& best) {
  std::vector<Policy> ps;
  for (int k = -refine_steps; k <= refine_steps; ++k) {
    const double cap = best.cap * std::exp2(k / 8.0);
    if (cap < curve.line.lowest_cap(r) * (1 - 1e-12)) continue;
    ps.push_back(k == 0 ? best : curve.line.at(cap));
  }
  if (r.base == 0.0)
    for (double f : {std::exp2(-0.5), std::exp2(0.5)}) {
      const double b = best.base * f;
      if (b >= least_base(r) * (1 - 1e-12) && b <= best.cap * (1 + 1e-12)) ps.push_back({best.strategy, b, best.cap});
    }
  return ps;
}

std::vector<Policy> by_objective(const Bench& bench, std::vector<Policy> ps, std::int64_t runs) {
  std::vector<std::pair<double, Policy>> v;
  for (const Policy& p : ps)
    if (const Stats s = bench.stats(p, runs); s.feasible() && std::isfinite(s.objective.mean))
      v.emplace_back(s.objective.mean, p);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Policy> out;
  for (const auto& [_, p] : v) out.push_back(p);
  return out;
}

// Steps 1 and 2: the curve at the least (or pinned) base; with the base searched, the curve again at
// the cap-to-base ratio the base search found best, unless that is the least base.
Curve curve_of(const Request& r, Strategy s, const Guess& guess, Bench& bench) {
  const double start = least_base(r);
  const double g = guess.cap.value_or(start * std::max(1.0, static_cast<double>(r.clients) / 4.0));
  Curve curve = scan(r, Line{s, start, 0.0}, g, bench);
  if (r.base != 0.0) return curve;
  if (!curve.best) {
    // Nothing drains from the least base (decorrelated jitter grows about 10% a retry): a base of a
    // quarter of the cap needs little growth, and keeps decorrelated jitter random (at base = cap
    // its every sleep is the cap: lock-step).
    Curve window = scan(r, Line{s, 0.0, 4.0}, g, bench);
    return window.best ? window : curve;
  }
  const std::optional<Policy> b = base_search(r, curve, bench);
  if (b && b->base != start) curve = scan(r, Line{s, 0.0, b->cap / b->base}, b->cap, bench);
  return curve;
}

// Whether p keeps its margin in the search's runs (refine_runs of it and of both neighbours).
Margin margin_of(const Request& r, const Policy& p, Bench& bench) {
  bench.ensure({p}, refine_runs);
  const Stats at = bench.stats(p, refine_runs);
  const Policy lower = lower_neighbour(p), upper = upper_neighbour(p);
  const bool kept = clear_of_deadline(r, at) && bench.passes(lower, refine_runs) && bench.passes(upper, refine_runs) &&
                    keeps_margin(r, bench.stats(lower, refine_runs), at) &&
                    keeps_margin(r, bench.stats(upper, refine_runs), at);
  return kept ? Margin::kept : Margin::lost;
}

// Step 4: the best policy that keeps its margin, the refined ones by objective, then the curve's;
// each one tried is recorded.
std::optional<Policy> choose(const Request& r, const Curve& curve, const std::vector<Policy>& refined, Bench& bench,
                             std::map<Bench::Key, Margin>& tried) {
  std::vector<Policy> order = by_objective(bench, refined, refine_runs);
  std::vector<Policy> rest;
  for (int i = curve.least; i < static_cast<int>(curve.caps.size()); ++i) rest.push_back(curve.line.at(curve.caps[i]));
  for (const Policy& p : by_objective(bench, rest, coarse_runs)) order.push_back(p);
  for (const Policy& p : order) {
    if (static_cast<int>(tried.size()) == margin_tries) break;
    if (tried.count(Bench::key_of(p))) continue;
    const Margin m = margin_of(r, p, bench);
    tried[Bench::key_of(p)] = m;
    if (m == Margin::kept) return p;
  }
  return std::nullopt;
}

}  // namespace

Policy lower_neighbour(const Policy& p) {
  const double cap = p.cap * margin_factor;
  return {p.strategy, std::min(p.base, cap), cap};
}

Policy upper_neighbour(const Policy& p) { return {p.strategy, p.base, p.cap / margin_factor}; }

bool clear_of_deadline(const Request& r, const Stats& s) {
  return s.feasible() &&
         s.drain_time.mean + 3.0 * (std::isfinite(s.drain_time.sd) ? s.drain_time.sd : 0.0) <= r.drain_within;
}

bool keeps_margin(const Request& r, const Stats& neighbour, const Stats& policy) {
  return clear_of_deadline(r, neighbour) && policy.feasible() &&
         neighbour.objective.mean <= margin_slack * policy.objective.mean;
}

Candidate search_curve(const Request& r, Strategy s, Bench& bench, Curve& curve) {
  Candidate c;
  c.strategy = s;
  if (!can_drain(r)) {  // no run could drain: the curve is listed, nothing is run
    c.guess = {std::nullopt, "none"};
    const Line line{s, least_base(r), 0.0};
    for (double cap : grid_of(r, line)) c.curve.push_back(bench.stats(line.at(cap), coarse_runs));
    curve = Curve{line, {}, -1, std::nullopt};
    return c;
  }
  c.guess = first_guess(r, s);
  curve = curve_of(r, s, c.guess, bench);
  c.ratio = curve.line.ratio;
  for (double cap : curve.caps) c.curve.push_back(bench.stats(curve.line.at(cap), coarse_runs));
  if (curve.best) c.least_cap = curve.caps[curve.least];
  return c;
}

Candidate search(const Request& r, Strategy s, Bench& bench) {
  Curve curve;
  Candidate c = search_curve(r, s, bench, curve);
  finish_search(r, curve, bench, c);
  return c;
}

bool behind(const Bench& x, const Policy& a, const Bench& y, const Policy& b, MeanSummary& difference) {
  difference = Bench::difference(x, a, y, b, coarse_runs);
  return x.stats(a, coarse_runs).feasible() && y.stats(b, coarse_runs).feasible() && difference.n == coarse_runs &&
         std::isfinite(difference.sd) &&
         student_t_interval(difference.mean, difference.sd, difference.n, 1.0 - 2.0 * sift_error).lo > 0.0;
}

void finish_search(const Request& r, const Curve& curve, Bench& bench, Candidate& c) {
  if (!curve.best) return;
  const Strategy s = c.strategy;
  const std::vector<Policy> refined = refinement(r, curve, *curve.best);
  bench.ensure(refined, refine_runs);
  std::map<Bench::Key, Margin> tried;
  const std::optional<Policy> chosen = choose(r, curve, refined, bench, tried);
  if (!chosen) return;
  c.found = true;
  c.policy = *chosen;
  c.search = bench.stats(c.policy, refine_runs);
  for (const Policy& p : by_objective(bench, refined, refine_runs)) {
    if (p.base == c.policy.base && p.cap == c.policy.cap) continue;
    const auto t = tried.find(Bench::key_of(p));
    c.runner_ups.push_back({bench.stats(p, refine_runs), bench.difference(p, c.policy, refine_runs),
                            t == tried.end() ? Margin::not_tried : t->second});
  }
  if (c.policy.cap <= 2.0 * c.policy.base) {
    std::vector<Policy> why = {{s, c.policy.base, 2.0 * c.policy.cap}};
    if (c.policy.base > least_base(r)) why.push_back({s, least_base(r), c.policy.cap});
    bench.ensure(why, refine_runs);
    for (const Policy& p : why)
      c.near_base.push_back(
          {bench.stats(p, refine_runs), bench.difference(p, c.policy, refine_runs), margin_of(r, p, bench)});
  }
}

}  // namespace retrylab::advise
