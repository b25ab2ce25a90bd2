// 12. Estimates: the stage model of a burst and the mean field of steady traffic (analytic/burst.hpp,
// analytic/steady.hpp) against the engine. Both are approximations, so these are `info` cases: each
// reports the estimate's measured error beside the band analytic/README.md claims for it and whether
// the measurement lies inside that band, and none passes or fails (an estimate outside its band is a
// finding about the estimate, not a fault of the engine).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "analytic/error.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
using montecarlo::RunResult;
using montecarlo::Scenario;

bool is_full_or_equal(Strategy s) { return s == Strategy::full || s == Strategy::equal; }

// The bands analytic/README.md claims (relative half-width; NaN where it claims none because the model
// fails there): drain times within 20% for full and equal jitter on `collision`; cap thresholds within
// 20% for full and equal, about 30% for decorrelated jitter, on `collision`.
double claimed_drain_band(const BurstModel& m) {
  return m.model == Model::collision && is_full_or_equal(m.backoff.strategy) ? 0.2 : nan;
}
double claimed_cap_band(const BurstModel& m) {
  if (m.model != Model::collision) return nan;
  if (is_full_or_equal(m.backoff.strategy)) return 0.2;
  return m.backoff.strategy == Strategy::decorrelated ? 0.3 : nan;
}

// Where the measured error range [lo, hi] lies against a claimed band ±band.
std::string against_band(double lo, double hi, double band) {
  if (std::isnan(band)) return "no band claimed (analytic/README.md: the model fails here)";
  if (std::isnan(lo) || std::isnan(hi)) return fmt::format("claimed ±{:.0f}%: not measurable", 100 * band);
  const auto pct = static_cast<int>(std::lround(100 * band));
  if (lo >= -band && hi <= band) return fmt::format("inside the claimed ±{}%", pct);
  if (hi < -band || lo > band) return fmt::format("OUTSIDE the claimed ±{}%", pct);
  return fmt::format("straddles the claimed ±{}%", pct);
}

std::string pct(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "—"; }

Scenario burst_scenario(const BurstModel& m) {
  Scenario s;
  s.model = m.model;
  s.backoff = m.backoff;
  s.traffic.clients = m.clients;
  s.traffic.rate = m.rate;
  s.measurement.horizon = m.horizon;
  s.measurement.collapse = static_cast<std::int64_t>(m.collapse);
  return s;
}

std::string burst_parameters(const BurstModel& m, std::int64_t runs) {
  return fmt::format("{} {} B={} λ={} T={} K={} runs={}", to_string(m.model), backoff_text(m.backoff), m.clients,
                     g(m.rate), g(m.horizon), g(m.collapse), runs);
}

void check_estimate_model(const BurstModel& m, std::int64_t runs) {
  check_burst_model(m);
  if (!(m.collapse <= static_cast<double>(montecarlo::max_collapse)) || m.collapse != std::floor(m.collapse))
    throw InputError("collapse", fmt::format("must be a whole number of clients for the engine (got {})", m.collapse));
  if (runs < 2) throw InputError("runs", fmt::format("must be >= 2 for a spread (got {})", runs));
}

// The model's cost dominates these cases: its phases per stage (equal jitter's 27 are the slow ones).
double burst_cost(const BurstModel& m, double scale) {
  const double phases = m.backoff.strategy == Strategy::equal ? 27.0 : 3.0;
  return phases * static_cast<double>(m.clients) * scale;
}

}  // namespace

ValidationCase burst_drain_estimate_case(const BurstModel& m, std::int64_t runs) {
  check_estimate_model(m, runs);
  return make_case(
      fmt::format("estimate-burst-drain-{}-{}-B{}-c{}", to_string(m.model), to_string(m.backoff.strategy), m.clients,
                  g(m.backoff.cap)),
      burst_parameters(m, runs), CaseKind::info, burst_cost(m, 10.0), [m, runs](const CaseContext& ctx) {
        const BurstPrediction p = predict_burst(m);
        const auto results = run(burst_scenario(m), runs, ctx);
        std::vector<double> last, p99;
        for (const RunResult& r : results)
          if (r.drained) last.push_back(r.drain_time), p99.push_back(r.drain_time_p99);
        const MeanSummary e = summarize_mean(last), e99 = summarize_mean(p99);
        CaseResult out;
        out.kind = CaseKind::info;
        out.closed_form =
            fmt::format("ESTIMATE (stage model): drain time {} (99%: {})", g(p.drain_time), g(p.drain_time_p99));
        out.expected = p.drain_time;
        out.observed = e.mean;
        out.ci95 = half_width(e);
        out.n = runs;
        // The estimate's error, estimate/engine − 1; its range over the engine's 95% interval.
        out.rel_error = p.drain_time / e.mean - 1.0;
        const double lo = p.drain_time / e.ci95.hi - 1.0, hi = p.drain_time / e.ci95.lo - 1.0;
        out.tolerance = claimed_drain_band(m);
        out.check = fmt::format(
            "error {} (over the engine's 95% CI {}..{}): {}; 99% drain time: engine {} ± {}, error {}; {} of {} runs "
            "drained{}",
            pct(out.rel_error), pct(lo), pct(hi), against_band(lo, hi, out.tolerance), g(e99.mean), g(half_width(e99)),
            pct(p.drain_time_p99 / e99.mean - 1.0), last.size(), runs, p.drained ? "" : "; the model does not drain");
        return out;
      });
}

ValidationCase burst_cap_estimate_case(const BurstModel& m, std::int64_t runs, int max_steps) {
  check_estimate_model(m, runs);
  if (max_steps < 1 || max_steps > 80)
    throw InputError("max_steps", fmt::format("must be in [1, 80] (got {})", max_steps));
  return make_case(
      fmt::format("estimate-burst-cap-{}-{}-B{}", to_string(m.model), to_string(m.backoff.strategy), m.clients),
      burst_parameters(m, runs) + " grid b·2^(i/8)", CaseKind::info, burst_cost(m, 200.0),
      [m, runs, max_steps](const CaseContext& ctx) {
        CaseResult out;
        out.kind = CaseKind::info;
        out.n = runs;
        out.tolerance = claimed_cap_band(m);
        const std::optional<double> model_cap = burst_cap_threshold(m);
        if (!model_cap) {
          out.closed_form = "ESTIMATE (stage model): no cap <= 1e6 drains";
          out.check = "nothing to compare";
          return out;
        }
        const double base = m.backoff.base;
        const auto cap_of = [base](int i) { return base * std::exp2(i / 8.0); };
        std::map<int, std::int64_t> drained;  // grid index -> runs that drained
        const auto passes = [&](int i) {
          if (!drained.contains(i)) {
            Scenario s = burst_scenario(m);
            s.backoff.cap = cap_of(i);
            const auto res = run(s, runs, ctx);
            drained[i] = std::count_if(res.begin(), res.end(), [](const RunResult& r) { return r.drained; });
          }
          return drained[i] == runs;
        };
        // Walk the grid from the model's cap: down while the cap below also passes, or up to the first
        // that passes. The engine's threshold is then the least passing cap with a failing one below.
        const int start = static_cast<int>(std::lround(8.0 * std::log2(*model_cap / base)));
        int i = start;
        if (passes(i)) {
          while (i > 0 && start - i < max_steps && passes(i - 1)) --i;
        } else {
          while (i - start < max_steps && !passes(i)) ++i;
        }
        out.closed_form = fmt::format("ESTIMATE (stage model): least draining cap {}", g(*model_cap));
        out.expected = *model_cap;
        if (!passes(i)) {
          out.check = fmt::format("the engine drained all {} runs at no cap up to {}", runs, g(cap_of(i)));
          return out;
        }
        out.observed = cap_of(i);
        out.rel_error = *model_cap / out.observed - 1.0;
        // The engine's threshold lies in (the failing cap below, the least passing cap]; at the base,
        // in (0, base]: then the estimate's error is only bounded below (nothing is, if both are the base).
        const bool below_failed = drained.contains(i - 1) && drained[i - 1] < runs;
        const double lo = out.rel_error, hi = below_failed ? *model_cap / cap_of(i - 1) - 1.0 : nan;
        std::string where;
        if (below_failed)
          where = fmt::format("{}: {} of {} drained", g(cap_of(i - 1)), drained[i - 1], runs);
        else if (i == 0)
          where = "the base: the threshold is at most the base";
        else
          where = fmt::format("the walk stopped after {} steps", max_steps);
        std::string band;
        if (below_failed)
          band = against_band(lo, hi, out.tolerance);
        else if (i == 0 && *model_cap == base)
          band = "model and engine both drain at the base: they agree";
        else
          band = against_band(lo, std::numeric_limits<double>::infinity(), out.tolerance);
        out.check =
            fmt::format("engine: least cap with all {} runs drained {} ({}); estimate/engine − 1 in [{}, {}): {}", runs,
                        g(cap_of(i)), where, pct(lo), below_failed ? pct(hi) : "∞", band);
        return out;
      });
}

namespace {

// The engine's collapse load: the least load of the grid i·step at which at least half of `runs` runs
// reach K within T (paper 1's threshold is the load below it: the last at which most runs survived).
struct EngineCollapse {
  double load = nan;
  std::int64_t at = 0, below = 0;  // runs that collapsed at the load and at the one below
};

EngineCollapse engine_collapse(const SteadyModel& sm, double collapse, double horizon, double step, std::int64_t runs,
                               const CaseContext& ctx) {
  EngineCollapse e;
  for (int i = 1; i * step < 1.0 - 1e-9; ++i) {
    Scenario s;
    s.model = sm.model;
    s.backoff = sm.backoff;
    s.traffic.rate = i * step;
    s.measurement.horizon = horizon;
    s.measurement.collapse = static_cast<std::int64_t>(collapse);
    const auto res = run(s, runs, ctx);
    const auto n = std::count_if(res.begin(), res.end(), [](const RunResult& r) { return r.collapsed; });
    if (2 * n >= runs) return {i * step, n, e.below};
    e.below = n;
  }
  return e;
}

// An estimated collapse load placed on the engine's grid (the first grid load at or above it) and its
// distance from the engine's in grid steps.
std::string on_grid(double estimate, double engine, double step, double band) {
  if (!std::isfinite(estimate)) return "none below 1";
  const double grid = std::ceil(estimate / step - 1e-9) * step;
  const double steps = std::round((grid - engine) / step);
  std::string verdict = "no band claimed (analytic/README.md: lock-step, which the model cannot see)";
  if (!std::isnan(band))
    verdict = std::abs(grid - engine) <= band + 1e-9 ? fmt::format("inside the claimed one step of {}", g(band))
                                                     : fmt::format("OUTSIDE the claimed one step of {}", g(band));
  return fmt::format("{} on the grid {} = {:+.0f} steps: {}", g(estimate), g(grid), steps, verdict);
}

}  // namespace

ValidationCase steady_collapse_estimate_case(const SteadyModel& sm, double collapse, double horizon, double step,
                                             std::int64_t runs) {
  check_steady_model(sm);
  if (!(collapse >= 1.0 && collapse <= 1e6) || collapse != std::floor(collapse))
    throw InputError("collapse", fmt::format("must be a whole number in [1, 1e6] (got {})", collapse));
  if (!(horizon > 0.0) || !std::isfinite(horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", horizon));
  if (!(step >= 0.005 && step <= 0.25))
    throw InputError("step", fmt::format("must be in [0.005, 0.25] (got {})", step));
  if (runs < 2) throw InputError("runs", fmt::format("must be >= 2 (got {})", runs));
  const std::string name = fmt::format("estimate-steady-collapse-{}-{}-K{}", to_string(sm.model),
                                       to_string(sm.backoff.strategy), g(collapse));
  const std::string params = fmt::format("{} {} K={} T={} step={} runs={}", to_string(sm.model),
                                         backoff_text(sm.backoff), g(collapse), g(horizon), g(step), runs);
  // The engine's cost: loads up to the collapse load, each `runs` runs of up to λT arrivals.
  const double cost = static_cast<double>(runs) * horizon * (sm.model == Model::free ? 5.0 : 0.2);
  return make_case(name, params, CaseKind::info, cost, [sm, collapse, horizon, step, runs](const CaseContext& ctx) {
    const MeanField f(sm);
    const CollapseLoads c = collapse_loads(f, collapse, horizon);
    const EngineCollapse e = engine_collapse(sm, collapse, horizon, step, runs, ctx);
    CaseResult out;
    out.kind = CaseKind::info;
    out.n = runs;
    out.closed_form =
        fmt::format("ESTIMATE (mean field): collapse load {} (passage; escape over n_u {}, drift alone {})",
                    g(c.passage), g(c.escape), g(c.no_escape));
    out.expected = c.passage;
    out.observed = e.load;
    out.rel_error = c.passage / e.load - 1.0;
    // analytic/README.md claims one step of paper 1's 0.05 grid, except for nojitter on collision.
    out.tolerance = sm.model == Model::collision && sm.backoff.strategy == Strategy::nojitter ? nan : 0.05;
    if (std::isnan(e.load)) {
      out.check = fmt::format("no grid load below 1 collapsed half the runs (passage: {})", g(c.passage));
      return out;
    }
    out.check = fmt::format(
        "engine: at least half the runs collapse first at λ = {} ({} of {}; at {}: {}); passage {}; "
        "escape {}",
        g(e.load), e.at, runs, g(e.load - step), e.below, on_grid(c.passage, e.load, step, out.tolerance),
        on_grid(c.escape, e.load, step, out.tolerance));
    return out;
  });
}

std::vector<ValidationCase> estimate_cases(Scale scale) {
  const bool full = scale == Scale::full;
  // Paper 1's settings: bursts at λ = 0.05 with horizon 60,000 and K = 3,000 (base 1); steady
  // traffic with horizon 20,000, base 1, cap 1000, window 1000, on its 0.05 grid of loads.
  auto burst = [](Model model, Strategy strategy, std::int64_t clients, double cap) {
    return BurstModel{model, Backoff{strategy, 1.0, cap, 0.0}, clients, 0.05, 60000.0, 3000.0};
  };
  auto steady = [](Model model, Strategy strategy) {
    return SteadyModel{model, Backoff{strategy, 1.0, 1000.0, strategy == Strategy::window ? 1000.0 : 0.0}};
  };
  std::vector<ValidationCase> out;
  // Quick: the two cheap ones (the model 0.02 s each; the engine 40 and 60 short runs).
  out.push_back(burst_drain_estimate_case(burst(Model::collision, Strategy::full, 100, 250.0), 40));
  out.push_back(steady_collapse_estimate_case(steady(Model::collision, Strategy::full), 100.0, 20000.0, 0.05, 20));
  if (!full) return out;
  // Full: the drain times of analytic/README.md's table (equal jitter at B = 1000 is left out: its
  // 27 phases per stage take over a minute), decorrelated and shared beside them (no band claimed).
  for (auto [strategy, clients, cap] :
       {std::tuple{Strategy::full, 300, 500.0}, std::tuple{Strategy::full, 1000, 2000.0},
        std::tuple{Strategy::equal, 100, 250.0}, std::tuple{Strategy::equal, 300, 500.0},
        std::tuple{Strategy::decorrelated, 100, 500.0}})
    out.push_back(burst_drain_estimate_case(burst(Model::collision, strategy, clients, cap), 40));
  out.push_back(burst_drain_estimate_case(burst(Model::shared, Strategy::full, 100, 1000.0), 40));
  // The cap searches (the model's own search dominates: 7-20 s each; equal jitter's takes minutes).
  out.push_back(burst_cap_estimate_case(burst(Model::collision, Strategy::full, 100, 1000.0), 20));
  out.push_back(burst_cap_estimate_case(burst(Model::collision, Strategy::full, 300, 1000.0), 20));
  out.push_back(burst_cap_estimate_case(burst(Model::collision, Strategy::decorrelated, 100, 1000.0), 20));
  out.push_back(burst_cap_estimate_case(burst(Model::shared, Strategy::full, 100, 1000.0), 20));
  // Collapse loads: where the model holds and where analytic/README.md says it fails.
  for (auto [model, strategy, k] :
       {std::tuple{Model::collision, Strategy::full, 3000.0}, std::tuple{Model::collision, Strategy::equal, 100.0},
        std::tuple{Model::collision, Strategy::decorrelated, 1000.0},
        std::tuple{Model::collision, Strategy::window, 1000.0}, std::tuple{Model::free, Strategy::full, 100.0},
        std::tuple{Model::free, Strategy::full, 300.0}, std::tuple{Model::shared, Strategy::full, 100.0}})
    out.push_back(steady_collapse_estimate_case(steady(model, strategy), k, 20000.0, 0.05, 20));
  return out;
}

}  // namespace retrylab::validation
