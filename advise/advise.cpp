#include "advise/advise.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "analytic/burst.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/steady.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"

namespace retrylab::advise {

namespace {

constexpr std::int64_t max_advise_clients = 100'000;
constexpr std::int64_t batch = 2;         // runs per decision: a cap is dropped after its first failing batch
constexpr std::int64_t search_runs = 20;  // runs per cap in the search and the profile
constexpr int profile_span = 6;           // the profile: the least draining cap and 6 eighth-octaves above

double grid_cap(const Request& r, int i) { return r.base * std::exp2(i / 8.0); }

// The least grid index whose cap is >= c (index 0 for c <= base).
int grid_index(const Request& r, double c) {
  if (!(c > r.base)) return 0;
  return static_cast<int>(std::ceil(8.0 * std::log2(c / r.base) - 1e-9));
}

montecarlo::Scenario scenario_at(const Request& r, Strategy s, double cap) {
  montecarlo::Scenario sc;
  sc.model = r.model;
  sc.backoff = Backoff{s, r.base, cap, 0.0};
  sc.traffic.clients = r.clients;
  sc.traffic.rate = r.rate;
  sc.measurement.horizon = r.drain_within;
  // K far above the burst, so a run collapses only when steady traffic piles up, never from the burst.
  sc.measurement.collapse = std::max<std::int64_t>(3000, 3 * r.clients);
  return sc;
}

// Runs first .. first+count−1 of (scenario, seed), in order, on r.threads threads.
std::vector<montecarlo::RunResult> runs_of(const Request& r, const montecarlo::Scenario& sc, std::uint64_t seed,
                                           std::int64_t first, std::int64_t count) {
  return montecarlo::detail::run_in_order<montecarlo::RunResult>(
      count, r.threads,
      [&](std::uint64_t i) { return montecarlo::simulate_run(sc, seed, static_cast<std::uint64_t>(first) + i); }, {});
}

struct Trial {
  bool passed = false;
  std::vector<montecarlo::RunResult> runs;  // every run made (a dropped cap: up to its failing batch)
};

// `total` runs in batches; passes when at most `allowed` fail to drain. Stops at the first batch
// that takes the failures over the allowance.
Trial trial(const Request& r, const montecarlo::Scenario& sc, std::uint64_t seed, std::int64_t total,
            std::int64_t allowed) {
  Trial t;
  std::int64_t failed = 0;
  for (std::int64_t first = 0; first < total; first += batch) {
    auto got = runs_of(r, sc, seed, first, std::min(batch, total - first));
    for (const auto& run : got) failed += run.drained ? 0 : 1;
    t.runs.insert(t.runs.end(), got.begin(), got.end());
    if (failed > allowed) return t;
  }
  t.passed = true;
  return t;
}

// A cap at exactly `probability` has all n runs drain with chance probability^n <= 5%.
std::int64_t confirm_runs(const Request& r) {
  return static_cast<std::int64_t>(std::ceil(std::log(0.05) / std::log(r.probability)));
}

double sustainable(const Request& r, Strategy s, double cap) {
  const MeanField f(SteadyModel{r.model, Backoff{s, r.base, cap, 0.0}});
  return f.fold_load(1e6).value_or(std::numeric_limits<double>::quiet_NaN());
}

void take_numbers(Candidate& c, const std::vector<montecarlo::RunResult>& runs) {
  const montecarlo::Summary sum = montecarlo::summarize(runs);
  c.drained = sum.drained;
  c.drain_time = sum.drain_time;
  c.drain_time_p99 = sum.drain_time_p99;
  c.attempts_per_client = sum.attempts_per_client;
}

// The least passing grid index, from the guess: octaves towards it, then bisection. -1 if none up to top.
int least_passing(int g, int top, const std::function<bool(int)>& passes) {
  int lo = -1, hi = std::min(g, top);  // lo fails (or is below the base), hi passes
  if (passes(hi)) {
    while (hi > 0) {
      const int t = std::max(0, hi - 8);
      if (!passes(t)) {
        lo = t;
        break;
      }
      hi = t;
    }
  } else {
    lo = hi;
    for (;;) {
      if (lo >= top) return -1;  // nothing up to max_cap drains
      hi = std::min(lo + 8, top);
      if (passes(hi)) break;
      lo = hi;
    }
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (passes(mid) ? hi : lo) = mid;
  }
  return hi;
}

Candidate search(const Request& r, Strategy s) {
  Candidate c;
  c.strategy = s;
  c.guess = first_guess(r, s);
  const int top = grid_index(r, max_cap(r));
  std::map<int, Trial> seen;
  auto at = [&](int i) -> const Trial& {
    if (auto it = seen.find(i); it != seen.end()) return it->second;
    Trial t = trial(r, scenario_at(r, s, grid_cap(r, i)), r.seed, search_runs, 0);
    c.runs_simulated += static_cast<std::int64_t>(t.runs.size());
    return seen[i] = std::move(t);
  };
  // Without a guess start near N/4 base units (paper 1: full and equal jitter drain near 2·N).
  const int g = c.guess.cap ? grid_index(r, *c.guess.cap)
                            : grid_index(r, r.base * std::max(1.0, static_cast<double>(r.clients) / 4.0));
  const int least = least_passing(g, top, [&](int i) { return at(i).passed; });
  if (least < 0) return c;
  c.found = true;
  c.search_cap = grid_cap(r, least);
  // The profile: the caps least .. least + profile_span; the choice, the one that drains fastest
  // (mean drain time of its search runs) among those whose every run drained.
  int best = least;
  for (int i = least; i <= std::min(least + profile_span, top); ++i) {
    const Trial& t = at(i);
    const montecarlo::Summary sum = montecarlo::summarize(t.runs);
    c.profile.push_back({grid_cap(r, i), sum.drained, sum.drain_time});
    if (t.passed && sum.drain_time.mean < montecarlo::summarize(at(best).runs).drain_time.mean) best = i;
  }
  c.cap = grid_cap(r, best);
  take_numbers(c, at(best).runs);
  c.sustainable_rate = sustainable(r, s, c.cap);
  return c;
}

// Confirmation on an independent seed (seed + 1): every run must drain; else the next grid cap up,
// within the profile. Returns whether some cap confirmed.
bool confirm(const Request& r, Candidate& c) {
  const int least = grid_index(r, c.search_cap);
  for (int i = grid_index(r, c.cap); i <= std::min(least + profile_span, grid_index(r, max_cap(r))); ++i) {
    Trial t = trial(r, scenario_at(r, c.strategy, grid_cap(r, i)), r.seed + 1, confirm_runs(r), 0);
    c.runs_simulated += static_cast<std::int64_t>(t.runs.size());
    if (!t.passed) continue;
    c.confirmed = true;
    c.cap = grid_cap(r, i);
    take_numbers(c, t.runs);
    c.sustainable_rate = sustainable(r, c.strategy, c.cap);
    if (r.clients_low > 0) {
      Request low = r;
      low.clients = r.clients_low;
      const auto runs = runs_of(r, scenario_at(low, c.strategy, c.cap), r.seed + 1, 0, confirm_runs(r));
      c.runs_simulated += static_cast<std::int64_t>(runs.size());
      const montecarlo::Summary sum = montecarlo::summarize(runs);
      c.low_end_run = true;
      c.low_drained = sum.drained;
      c.low_drain_time = sum.drain_time;
      c.low_drain_time_p99 = sum.drain_time_p99;
      c.low_attempts_per_client = sum.attempts_per_client;
    }
    return true;
  }
  return false;
}

bool better(const Candidate& a, const Candidate& b) {
  if (a.confirmed != b.confirmed) return a.confirmed;
  if (a.found != b.found) return a.found;
  if (!a.found) return false;
  return a.drain_time.mean < b.drain_time.mean;
}

}  // namespace

std::vector<Strategy> capped_strategies() {
  return {Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::decorrelated, Strategy::memoryless};
}

void check_request(const Request& r) {
  if (r.model == Model::ps)
    throw InputError("model", "must be collision, free or shared (got ps: no conflicts, nothing to advise)");
  if (r.clients < 2 || r.clients > max_advise_clients)
    throw InputError("clients", fmt::format("must be in [2, {}] (got {})", max_advise_clients, r.clients));
  if (r.clients_low != 0 && (r.clients_low < 2 || r.clients_low > r.clients))
    throw InputError("clients",
                     fmt::format("range LOW:HIGH must have 2 <= LOW <= HIGH (got {}:{})", r.clients_low, r.clients));
  if (!(r.rate >= 0.0 && r.rate < 1.0))
    throw InputError("rate", fmt::format("must be in [0, 1) per attempt-duration (got {})", r.rate));
  if (!(r.base > 0.0) || !std::isfinite(r.base))
    throw InputError("base", fmt::format("must be a finite number > 0 (got {})", r.base));
  if (!(r.drain_within > r.base) || !std::isfinite(r.drain_within) || r.drain_within > 1e7)
    throw InputError("drain_within", fmt::format("must be in (base, 1e7] attempt-durations (got {})", r.drain_within));
  if (!(r.probability >= 0.5 && r.probability <= 0.999))
    throw InputError("probability", fmt::format("must be in [0.5, 0.999] (got {})", r.probability));
  if (r.strategies.empty()) throw InputError("strategy", "must name at least one strategy");
  for (Strategy s : r.strategies) {
    const auto ok = capped_strategies();
    if (std::find(ok.begin(), ok.end(), s) == ok.end())
      throw InputError("strategy", fmt::format("must be one of nojitter, full, equal, decorrelated, memoryless "
                                               "(got {}: it has no cap to tune)",
                                               to_string(s)));
  }
}

double max_cap(const Request& r) { return r.drain_within; }

Guess first_guess(const Request& r, Strategy s) {
  BurstModel m;
  m.model = r.model;
  m.backoff = Backoff{s, r.base, r.base, 0.0};
  m.clients = r.clients;
  m.rate = r.rate;
  m.horizon = r.drain_within;
  m.collapse = static_cast<double>(std::max<std::int64_t>(3000, 3 * r.clients));
  // A first guess only (the engine's search decides): three phases per stage for every strategy,
  // so equal jitter's 27 (seconds to minutes per cap at B = 1000 on steady load) stay out of it.
  m.phases = 3;
  // nojitter's lock-step is the burst model's blind spot (analytic/burst.hpp): no guess from it.
  // When the base itself drains, that is the guess (burst_cap_threshold would probe below the base).
  if (s != Strategy::nojitter) {
    if (predict_burst(m).drained) return {r.base, "burst model"};
    if (auto c = burst_cap_threshold(m, max_cap(r))) return {*c, "burst model"};
  }
  if (r.model == Model::collision && s != Strategy::memoryless) {
    try {
      const FluidCapEstimate e = fluid_cap(FluidCap{r.clients, r.rate, Backoff{s, r.base, unbounded_cap, 0.0}});
      if (e.cap <= max_cap(r)) return {e.cap, "fluid estimate"};
    } catch (const InputError&) {
      // λ at or past the fluid model's 1/(2e): no estimate; the search starts without one.
    }
  }
  return {std::nullopt, "none"};
}

Advice advise(const Request& r) {
  check_request(r);
  Advice a;
  a.request = r;
  a.max_cap = max_cap(r);
  for (Strategy s : r.strategies) a.candidates.push_back(search(r, s));
  std::stable_sort(a.candidates.begin(), a.candidates.end(), better);
  // Confirm the fastest; if it does not confirm, the next (and re-rank: confirmed first).
  for (Candidate& c : a.candidates)
    if (c.found && confirm(r, c)) break;
  std::stable_sort(a.candidates.begin(), a.candidates.end(), better);
  return a;
}

}  // namespace retrylab::advise
