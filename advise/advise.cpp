#include "advise/advise.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "advise/runs.hpp"
#include "advise/search.hpp"
#include "advise/sustainable.hpp"
#include "analytic/burst.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"

namespace retrylab::advise {

namespace {

constexpr std::int64_t max_advise_clients = 100'000;
constexpr double max_drain_within = 1e7;
constexpr double cap_span = 1e4;            // every curve spans least_base .. 10^4 · least_base
constexpr std::int64_t confirm_batch = 50;  // confirming runs per decision: stop after a batch with a failure
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// A policy at exactly `probability` has all n runs drain with chance probability^n <= 5%.
std::int64_t confirm_runs(const Request& r) {
  return static_cast<std::int64_t>(std::ceil(std::log(0.05) / std::log(r.probability)));
}

// n independent runs of policy p (seed + 1), in batches, stopping after a batch in which a run did
// not drain: Stats over the runs made (feasible() only if all n were made and drained).
Stats confirming(const Request& r, const Policy& p, std::int64_t clients, std::int64_t& made) {
  const montecarlo::Scenario sc = burst_scenario(r, p, clients);
  const std::int64_t n = confirm_runs(r);
  std::vector<montecarlo::RunResult> runs;
  for (std::int64_t first = 0; first < n; first += confirm_batch) {
    const auto got = independent_runs(r, sc, r.seed + 1, first, std::min(confirm_batch, n - first));
    made += static_cast<std::int64_t>(got.size());
    runs.insert(runs.end(), got.begin(), got.end());
    if (std::any_of(got.begin(), got.end(), [](const auto& run) { return !run.drained; })) break;
  }
  return stats_of(r, p, runs);
}

// Whether a neighbour's objective claim (at most margin_slack times the policy's) is settled, either
// way, by one-sided 1 − sift_error Student-t intervals of both means.
bool settled(const Stats& neighbour, const Stats& policy) {
  const MeanSummary &x = neighbour.objective, &y = policy.objective;
  if (x.n < 2 || y.n < 2 || !std::isfinite(x.sd) || !std::isfinite(y.sd)) return false;
  const Interval a = student_t_interval(x.mean, x.sd, x.n, 1.0 - 2.0 * sift_error);
  const Interval b = student_t_interval(y.mean, y.sd, y.n, 1.0 - 2.0 * sift_error);
  return a.hi <= margin_slack * b.lo || a.lo > margin_slack * b.hi;
}

// Where every run of the policy and of both neighbours drains for certain (certain_drain), the
// drain claim needs no run: the confirming runs only estimate the numbers and decide each
// neighbour's objective. All three in batches of confirm_batch, stopping after the first batch
// after which both neighbours' objective claims are settled (else all n, decided by the means, as
// below). The same runs as below, fewer of them: run i of each is the same run.
void confirm_certain(const Request& r, Candidate& c) {
  const Policy ps[3] = {c.policy, lower_neighbour(c.policy), upper_neighbour(c.policy)};
  std::vector<montecarlo::RunResult> runs[3];
  Stats* into[3] = {&c.confirm, &c.lower, &c.upper};
  const std::int64_t n = confirm_runs(r);
  for (std::int64_t first = 0; first < n; first += confirm_batch) {
    for (int k = 0; k < 3; ++k) {
      const auto got = independent_runs(r, burst_scenario(r, ps[k], r.clients), r.seed + 1, first,
                                        std::min(confirm_batch, n - first));
      c.runs_simulated += static_cast<std::int64_t>(got.size());
      runs[k].insert(runs[k].end(), got.begin(), got.end());
      *into[k] = stats_of(r, ps[k], runs[k]);
    }
    if (!c.confirm.feasible() || !c.lower.feasible() || !c.upper.feasible()) return;  // the bound says never
    if (settled(c.lower, c.confirm) && settled(c.upper, c.confirm)) return;
  }
}

// The policy and its two margin neighbours on the confirming seed; every run must drain.
bool confirm(const Request& r, Candidate& c) {
  const auto bound = certain_drain(r, c.policy);
  if (bound && certain_drain(r, lower_neighbour(c.policy)) && certain_drain(r, upper_neighbour(c.policy))) {
    c.drain_bound = *bound;
    confirm_certain(r, c);
  } else {
    c.confirm = confirming(r, c.policy, r.clients, c.runs_simulated);
    if (c.confirm.feasible()) c.lower = confirming(r, lower_neighbour(c.policy), r.clients, c.runs_simulated);
    if (c.lower.feasible()) c.upper = confirming(r, upper_neighbour(c.policy), r.clients, c.runs_simulated);
  }
  // Without the bound every one of the n runs must have been made and drained.
  const std::int64_t need = std::isfinite(c.drain_bound) ? 1 : confirm_runs(r);
  auto made = [&](const Stats& s) { return s.drained.n >= need && s.feasible(); };
  auto kept = [&](const Stats& n) { return made(n) && n.objective.mean <= margin_slack * c.confirm.objective.mean; };
  c.confirmed = made(c.confirm) && kept(c.lower) && kept(c.upper);
  if (!c.confirmed) return false;
  const Sustainable s = sustainable_load(r, c.policy);
  c.sustainable_rate = s.rate;
  c.sustainable_collapsed_at = s.collapsed_at;
  c.sustainable_whole_range = s.whole_range;
  c.runs_simulated += s.runs_made;
  if (r.clients_low > 0) {
    const auto runs = independent_runs(r, burst_scenario(r, c.policy, r.clients_low), r.seed + 1, 0, confirm_runs(r));
    c.runs_simulated += static_cast<std::int64_t>(runs.size());
    c.low_end_run = true;
    c.low_end = stats_of(r, c.policy, runs);
  }
  return true;
}

bool better(const Candidate& a, const Candidate& b) {
  if (a.confirmed != b.confirmed) return a.confirmed;
  if (a.found != b.found) return a.found;
  if (!a.found) return (a.behind || a.near_bound) && !(b.behind || b.near_bound);  // set aside before none found
  return a.search.objective.mean < b.search.objective.mean;
}

// Every strategy's search, in order: steps 1–2 for every strategy; steps 3–4 for those whose best
// curve policy is not behind that of the leader (the least objective over the curves' runs), then
// for any that is not behind the best candidate found, until none is left that is not, and for all
// of them if none is found or the first confirmation fails, so the confirmations are made in the
// order of a search without setting aside. Candidates stay in the order of r.strategies.
class Searches {
 public:
  Searches(const Request& r, std::vector<Candidate>& cs) : r_(r), cs_(cs) {
    for (Strategy s : r.strategies) {
      Pending p{std::make_unique<Bench>(r, r.seed), Curve{}, false, false, false};
      if (!near_the_bound(s)) {
        stage(s, "search");
        cs_.push_back(search_curve(r, s, *p.bench, p.curve));
        cs_.back().runs_simulated = p.bench->runs_made();
        p.curved = true;
      }
      cs_.back().sustainable_rate = cs_.back().sustainable_collapsed_at = nan;
      pend_.push_back(std::move(p));
    }
  }

  void set_aside_the_behind() {
    std::optional<std::size_t> leader;
    double least = 0.0;
    for (std::size_t i = 0; i < pend_.size(); ++i)
      if (pend_[i].curve.best)
        if (const double v = objective(i); !leader || v < least) leader = i, least = v;
    for (std::size_t i = 0; i < pend_.size(); ++i) sift_against(i, leader);
    for (bool reopened = true; reopened;) {
      reopened = false;
      std::optional<std::size_t> top;
      for (std::size_t i = 0; i < cs_.size(); ++i)
        if (cs_[i].found && (!top || better(cs_[i], cs_[*top]))) top = i;
      for (std::size_t i : set_aside()) {
        sift_against(i, top);
        reopened = reopened || pend_[i].finished;
      }
    }
    for (std::size_t i : set_aside()) counted(i);
  }

  // Confirm the best; if it does not confirm, the next (the set-aside ones searched on first).
  void confirm_the_best() {
    std::vector<bool> tried(cs_.size(), false);
    for (;;) {
      std::vector<std::size_t> order(cs_.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t x, std::size_t y) { return better(cs_[x], cs_[y]); });
      const auto next =
          std::find_if(order.begin(), order.end(), [&](std::size_t i) { return cs_[i].found && !tried[i]; });
      if (next == order.end()) return;
      tried[*next] = true;
      stage(cs_[*next].strategy, "confirmation and sustainable load");
      if (confirm(r_, cs_[*next])) return;
      for (std::size_t i : set_aside()) finish(i);
    }
  }

 private:
  struct Pending {
    std::unique_ptr<Bench> bench;
    Curve curve;
    bool finished = false;
    bool counted = false;  // Watch::searched was called for it
    bool curved = false;   // its curve was run (not: not searched, near_bound)
  };

  // Whether the leader's best curve policy (the least objective over the curves run so far) is, by
  // its one-sided 1 − sift_error upper bound, within near_gap of the least objective any policy
  // reaches: then s is not searched (a candidate with near_bound set) and true.
  bool near_the_bound(Strategy s) {
    std::optional<std::size_t> leader;
    double least = 0.0;
    for (std::size_t i = 0; i < pend_.size(); ++i)
      if (pend_[i].curve.best)
        if (const double v = objective(i); !leader || v < least) leader = i, least = v;
    if (!leader) return false;
    const MeanSummary m = pend_[*leader].bench->stats(*pend_[*leader].curve.best, coarse_runs).objective;
    const double bound = least_objective(r_);
    if (m.n < 2 || !std::isfinite(m.sd) || !(bound > 0.0)) return false;
    const double upper = student_t_interval(m.mean, m.sd, m.n, 1.0 - 2.0 * sift_error).hi;
    if (!(upper <= (1.0 + near_gap) * bound)) return false;
    Candidate c;
    c.strategy = s;
    c.guess = {std::nullopt, "none"};
    c.near_bound = cs_[*leader].strategy;
    c.curve_best = *pend_[*leader].curve.best;
    c.near_upper = upper;
    cs_.push_back(c);
    return true;
  }

  void stage(Strategy s, const char* what) const {
    if (r_.watch.stage) r_.watch.stage(fmt::format("{}: {}", to_string(s), what));
  }
  void counted(std::size_t i) {
    if (r_.watch.searched && !pend_[i].counted) r_.watch.searched();
    pend_[i].counted = true;
  }
  double objective(std::size_t i) const {
    return pend_[i].bench->stats(*pend_[i].curve.best, coarse_runs).objective.mean;
  }
  std::vector<std::size_t> set_aside() const {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < pend_.size(); ++i)
      if (!pend_[i].finished) v.push_back(i);
    return v;
  }
  void finish(std::size_t i) {
    Pending& p = pend_[i];
    if (p.finished) return;
    if (cs_[i].behind || !p.curved) stage(cs_[i].strategy, "search");
    if (!p.curved) {  // not searched near the bound: its curve first
      cs_[i] = search_curve(r_, cs_[i].strategy, *p.bench, p.curve);
      cs_[i].sustainable_rate = cs_[i].sustainable_collapsed_at = nan;
      p.curved = true;
    }
    finish_search(r_, p.curve, *p.bench, cs_[i]);
    cs_[i].behind.reset();
    cs_[i].runs_simulated = p.bench->runs_made();
    p.finished = true;
    counted(i);
  }
  // Sets i aside if its best curve policy is behind j's; else finishes it. One not searched near the
  // bound stays so while there is a j (a leader, or a candidate found).
  void sift_against(std::size_t i, std::optional<std::size_t> j) {
    if (!pend_[i].curved && j) return;
    MeanSummary d;
    if (j && i != *j && pend_[i].curve.best && pend_[*j].curve.best &&
        behind(*pend_[i].bench, *pend_[i].curve.best, *pend_[*j].bench, *pend_[*j].curve.best, d)) {
      cs_[i].behind = cs_[*j].strategy;
      cs_[i].curve_best = *pend_[i].curve.best;
      cs_[i].behind_by = d;
      cs_[i].behind_objective = objective(*j);
      return;
    }
    finish(i);
  }

  const Request& r_;
  std::vector<Candidate>& cs_;
  std::vector<Pending> pend_;
};

}  // namespace

std::vector<Strategy> capped_strategies() {
  return {Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::decorrelated, Strategy::memoryless};
}

std::string_view to_string(Objective o) noexcept {
  switch (o) {
    case Objective::attempts: return "attempts";
    case Objective::weighted: return "weighted";
    default: return "drain-time";
  }
}

std::optional<Objective> parse_objective(std::string_view name) noexcept {
  for (Objective o : {Objective::drain_time, Objective::attempts, Objective::weighted})
    if (name == to_string(o)) return o;
  return std::nullopt;
}

std::string_view to_string(Margin m) noexcept {
  switch (m) {
    case Margin::kept: return "kept";
    case Margin::lost: return "lost";
    default: return "not tried";
  }
}

double least_base(const Request& r) { return r.base > 0.0 ? r.base : 1.0; }

double max_cap(const Request& r) { return std::min(cap_span * least_base(r), r.drain_within); }

bool can_drain(const Request& r) noexcept { return r.drain_within >= static_cast<double>(r.clients); }

double least_objective(const Request& r) noexcept {
  const auto n = static_cast<double>(r.clients);
  switch (r.objective) {
    case Objective::attempts: return 1.0;
    case Objective::weighted: return n + r.weight;
    default: return n;
  }
}

std::optional<double> certain_drain(const Request& r, const Policy& p) noexcept {
  if (r.model != Model::free || r.rate != 0.0 || p.strategy == Strategy::memoryless) return std::nullopt;
  const double bound = 1.0 + static_cast<double>(r.clients - 1) * (p.cap + 2.0);
  if (!(bound <= r.drain_within * (1.0 - 1e-9))) return std::nullopt;  // 1e-9: the engine's rounding of times
  return bound;
}

void check_request(const Request& r) {
  if (r.model == Model::ps || r.model == Model::none)
    throw InputError("model", fmt::format("must be collision, free or shared (got {}: no conflicts, nothing to advise)",
                                          to_string(r.model)));
  if (r.clients < 2 || r.clients > max_advise_clients)
    throw InputError("clients", fmt::format("must be in [2, {}] (got {})", max_advise_clients, r.clients));
  if (r.clients_low != 0 && (r.clients_low < 2 || r.clients_low > r.clients))
    throw InputError("clients",
                     fmt::format("range LOW:HIGH must have 2 <= LOW <= HIGH (got {}:{})", r.clients_low, r.clients));
  if (!(r.rate >= 0.0 && r.rate < 1.0))
    throw InputError("rate", fmt::format("must be in [0, 1) per attempt-duration (got {})", r.rate));
  if (!(r.base >= 0.0) || !std::isfinite(r.base))
    throw InputError("base", fmt::format("must be a finite number > 0, or 0 to search it (got {})", r.base));
  if (!(r.drain_within > least_base(r)) || !std::isfinite(r.drain_within) || r.drain_within > max_drain_within)
    throw InputError("drain_within", fmt::format("must be in (base, {:g}] attempt-durations (got {})", max_drain_within,
                                                 r.drain_within));
  if (!(r.probability >= 0.5 && r.probability <= 0.999))
    throw InputError("probability", fmt::format("must be in [0.5, 0.999] (got {})", r.probability));
  if (r.objective == Objective::weighted && (!(r.weight > 0.0) || !std::isfinite(r.weight)))
    throw InputError("weight",
                     fmt::format("must be a finite number > 0 with the weighted objective (got {})", r.weight));
  if (r.objective != Objective::weighted && r.weight != 0.0)
    throw InputError("weight", fmt::format("applies to the weighted objective only (got {} with {})", r.weight,
                                           to_string(r.objective)));
  if (r.strategies.empty()) throw InputError("strategy", "must name at least one strategy");
  for (std::size_t i = 0; i < r.strategies.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (r.strategies[i] == r.strategies[j])
        throw InputError("strategies",
                         fmt::format("must name each strategy once (got {} twice)", to_string(r.strategies[i])));
  if (r.threads < 0) throw InputError("threads", fmt::format("must be >= 0 (0 = all cores; got {})", r.threads));
  for (Strategy s : r.strategies) {
    const auto ok = capped_strategies();
    if (std::find(ok.begin(), ok.end(), s) == ok.end())
      throw InputError("strategy", fmt::format("must be one of nojitter, full, equal, decorrelated, memoryless "
                                               "(got {}: it has no cap to tune)",
                                               to_string(s)));
  }
}

Guess first_guess(const Request& r, Strategy s) {
  BurstModel m;
  m.model = r.model;
  m.backoff = Backoff{s, least_base(r), least_base(r), 0.0};
  m.clients = r.clients;
  m.rate = r.rate;
  m.horizon = r.drain_within;
  m.collapse = static_cast<double>(std::max<std::int64_t>(3000, 3 * r.clients));
  // A first guess only (the engine's search decides): one phase per stage (exponential sleeps of
  // the stage's mean) for every strategy. The least draining cap on the eighth-octave grid follows
  // the stage means, not the sleeps' shape: three phases gave the same guess for all four jittered
  // strategies on collide and use-capacity, 30 to 2000 clients, with and without steady load, at
  // 1.5 to 60 times the cost (docs/advise.md, "How long it takes").
  m.phases = 1;
  // Decorrelated jitter's stages (its sleep grows about 10% a retry: dozens of stages below the
  // cap) take the burst model 0.1–0.4 s to integrate at a few hundred clients, as long as its whole
  // curve; full jitter's take milliseconds, and its guess fell on the same half-octave cap of the
  // curve on the requests measured (docs/advise.md, "The search's error"): decorrelated takes it.
  const bool borrowed = s == Strategy::decorrelated;
  if (borrowed) m.backoff.strategy = Strategy::full;
  const std::string model = borrowed ? "burst model, full jitter's" : "burst model";
  // nojitter's lock-step is the burst model's blind spot (analytic/burst.hpp): no guess from it.
  // When the base itself drains, that is the guess (burst_cap_threshold would probe below the base).
  if (s != Strategy::nojitter) {
    if (predict_burst(m).drained) return {least_base(r), model};
    if (auto c = burst_cap_threshold(m, max_cap(r))) return {*c, model};
  }
  // The fluid argument needs steady load: at λ = 0 ALOHA's upper root is infinite and it passes
  // every cap, the least base included, which says nothing.
  if (r.model == Model::collision && s != Strategy::memoryless && r.rate > 0.0) {
    try {
      const FluidCapEstimate e = fluid_cap(FluidCap{r.clients, r.rate, Backoff{s, least_base(r), unbounded_cap, 0.0}});
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
  Searches searches(r, a.candidates);
  searches.set_aside_the_behind();
  searches.confirm_the_best();
  std::stable_sort(a.candidates.begin(), a.candidates.end(), better);
  return a;
}

}  // namespace retrylab::advise
