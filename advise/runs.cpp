#include "advise/runs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "montecarlo/builds.hpp"
#include "montecarlo/hash.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/run_engine.hpp"
#include "montecarlo/simulate.hpp"

namespace retrylab::advise {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t pair = 2;  // Bench::passes decides on pairs of runs

// The scenario fields advise sets, in one place (the engine's scenario type is being regrouped:
// this function and steady_scenario are all that change).
montecarlo::Scenario scenario_of(const Request& r, const Policy& p, std::int64_t clients, double rate,
                                 std::int64_t collapse, double horizon) {
  montecarlo::Scenario sc;
  sc.model = r.model;
  sc.backoff = Backoff{p.strategy, p.base, p.cap, 0.0};
  sc.traffic.clients = clients;
  sc.traffic.rate = rate;
  sc.measurement.horizon = horizon;
  sc.measurement.collapse = collapse;
  return sc;
}

std::int64_t burst_collapse(const Request& r) { return std::max<std::int64_t>(3000, 3 * r.clients); }

// A key shared by every policy (and, for steady runs, every rate): the scenario's canonical string
// with a fixed backoff (and rate) in their place, under its own prefix so it never equals a
// scenario's public key.
std::uint64_t common_hash(const Request& r, std::int64_t clients, double rate, const char* purpose) {
  const montecarlo::Scenario sc =
      scenario_of(r, Policy{Strategy::full, 1.0, 1.0}, clients, rate, burst_collapse(r), r.drain_within);
  return montecarlo::fnv1a64(std::string("advise common random numbers, ") + purpose + ": " +
                             montecarlo::canonical(sc));
}

// Run i of sc under the key hash (the plain tier: advise's scenarios use no server option).
montecarlo::RunResult keyed_run(const montecarlo::Scenario& sc, std::uint64_t seed, std::uint64_t hash, std::uint64_t i,
                                montecarlo::detail::EngineScratch& scratch, montecarlo::Pulse* pulse) {
  montecarlo::detail::EngineOptions options;
  options.scenario_hash = hash;
  options.pulse = pulse;  // progress only
  montecarlo::detail::NullObserver observer;
  return montecarlo::detail::run_engine_build<montecarlo::detail::PlainParts>(sc, seed, i, options, observer, &scratch);
}

// run_in_order's callback: one call per finished run, to the watcher.
std::function<void(std::int64_t, std::int64_t)> run_ended(const Request& r) {
  if (!r.watch.run) return {};
  return [&r](std::int64_t, std::int64_t) { r.watch.run(); };
}

}  // namespace

montecarlo::Scenario burst_scenario(const Request& r, const Policy& p, std::int64_t clients) {
  return scenario_of(r, p, clients, r.rate, burst_collapse(r), r.drain_within);
}

montecarlo::Scenario steady_scenario(const Request& r, const Policy& p, double rate, std::int64_t collapse,
                                     double horizon) {
  return scenario_of(r, p, 0, rate, collapse, horizon);
}

double run_objective(const Request& r, const montecarlo::RunResult& run) {
  if (!run.drained) return nan;
  switch (r.objective) {
    case Objective::attempts: return run.attempts_per_client;
    case Objective::weighted: return run.drain_time + r.weight * run.attempts_per_client;
    default: return run.drain_time;
  }
}

Stats stats_of(const Request& r, const Policy& p, const std::vector<montecarlo::RunResult>& runs) {
  Stats s;
  s.policy = p;
  if (runs.empty()) {
    s.drained = summarize_proportion(0, 0);
    s.drain_time = s.drain_time_p99 = s.attempts_per_client = s.objective = MeanAccumulator{}.summary();
    return s;
  }
  const montecarlo::Summary sum = montecarlo::summarize(runs);
  s.drained = sum.drained;
  s.drain_time = sum.drain_time;
  s.drain_time_p99 = sum.drain_time_p99;
  s.attempts_per_client = sum.attempts_per_client;
  MeanAccumulator objective;
  for (const auto& run : runs)
    if (const double x = run_objective(r, run); std::isfinite(x)) objective.add(x);
  s.objective = objective.summary();
  return s;
}

Bench::Bench(const Request& r, std::uint64_t seed)
    : r_(r), seed_(seed), hash_(common_hash(r, r.clients, r.rate, "burst")) {}

Bench::Key Bench::key_of(const Policy& p) { return {static_cast<int>(p.strategy), p.base, p.cap}; }

const std::vector<montecarlo::RunResult>* Bench::find(const Policy& p) const {
  const auto it = runs_.find(key_of(p));
  return it == runs_.end() ? nullptr : &it->second;
}

bool Bench::failed(const Policy& p) const {
  const auto* runs = find(p);
  return runs && std::any_of(runs->begin(), runs->end(), [](const auto& run) { return !run.drained; });
}

void Bench::ensure(const std::vector<Policy>& ps, std::int64_t runs) {
  struct Job {
    montecarlo::Scenario scenario;
    std::vector<montecarlo::RunResult>* into;
    std::int64_t first = 0;
  };
  std::vector<Job> jobs;
  std::vector<std::pair<std::size_t, std::int64_t>> work;  // (job, run index)
  for (const Policy& p : ps) {
    auto& have = runs_[key_of(p)];
    const auto n = static_cast<std::int64_t>(have.size());
    if (n >= runs || failed(p)) continue;
    if (std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.into == &have; })) continue;
    jobs.push_back({burst_scenario(r_, p, r_.clients), &have, n});
    montecarlo::check_scenario(jobs.back().scenario);
    for (std::int64_t i = n; i < runs; ++i) work.emplace_back(jobs.size() - 1, i);
  }
  const auto got = montecarlo::detail::run_in_order_with<montecarlo::RunResult, montecarlo::detail::EngineScratch>(
      static_cast<std::int64_t>(work.size()), r_.threads,
      [&](std::uint64_t w, montecarlo::detail::EngineScratch& scratch) {
        const auto& [j, i] = work[w];
        return keyed_run(jobs[j].scenario, seed_, hash_, static_cast<std::uint64_t>(i), scratch, r_.watch.pulse);
      },
      run_ended(r_));
  for (std::size_t w = 0; w < work.size(); ++w) jobs[work[w].first].into->push_back(got[w]);
  made_ += static_cast<std::int64_t>(work.size());
}

bool Bench::passes(const Policy& p, std::int64_t runs) {
  for (;;) {
    if (failed(p)) return false;
    const auto* have = find(p);
    const std::int64_t n = have ? static_cast<std::int64_t>(have->size()) : 0;
    if (n >= runs) return true;
    ensure({p}, std::min(runs, n + pair));
  }
}

Stats Bench::stats(const Policy& p, std::int64_t runs) const {
  const auto* have = find(p);
  if (!have) return stats_of(r_, p, {});
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(runs), have->size());
  return stats_of(r_, p, std::vector<montecarlo::RunResult>(have->begin(), have->begin() + static_cast<long>(n)));
}

MeanSummary Bench::difference(const Policy& a, const Policy& b, std::int64_t runs) const {
  return difference(*this, a, *this, b, runs);
}

MeanSummary Bench::difference(const Bench& bx, const Policy& a, const Bench& by, const Policy& b, std::int64_t runs) {
  MeanAccumulator d;
  const auto *x = bx.find(a), *y = by.find(b);
  const Request& req = bx.r_;
  if (x && y && bx.seed_ == by.seed_ && bx.hash_ == by.hash_ && bx.r_.objective == by.r_.objective &&
      bx.r_.weight == by.r_.weight) {
    const auto n = std::min({static_cast<std::size_t>(runs), x->size(), y->size()});
    for (std::size_t i = 0; i < n; ++i) {
      const double u = run_objective(req, (*x)[i]), v = run_objective(req, (*y)[i]);
      if (std::isfinite(u) && std::isfinite(v)) d.add(u - v);
    }
  }
  return d.summary();
}

std::vector<montecarlo::RunResult> independent_runs(const Request& r, const montecarlo::Scenario& sc,
                                                    std::uint64_t seed, std::int64_t first, std::int64_t count) {
  return montecarlo::detail::run_in_order<montecarlo::RunResult>(
      count, r.threads,
      [&](std::uint64_t i) { return montecarlo::simulate_run(sc, seed, static_cast<std::uint64_t>(first) + i); },
      run_ended(r));
}

std::vector<montecarlo::RunResult> common_steady_runs(const Request& r, const montecarlo::Scenario& sc,
                                                      std::uint64_t seed, std::int64_t first, std::int64_t count) {
  const std::uint64_t hash = common_hash(r, 0, 0.5, "steady");
  montecarlo::check_scenario(sc);
  return montecarlo::detail::run_in_order_with<montecarlo::RunResult, montecarlo::detail::EngineScratch>(
      count, r.threads,
      [&](std::uint64_t i, montecarlo::detail::EngineScratch& scratch) {
        return keyed_run(sc, seed, hash, static_cast<std::uint64_t>(first) + i, scratch, r.watch.pulse);
      },
      run_ended(r));
}

}  // namespace retrylab::advise
