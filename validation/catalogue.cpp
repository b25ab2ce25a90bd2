#include "validation/catalogue.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>
#include <span>

#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/rows.hpp"
#include "analytic/sleep.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/amplification.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/simulate.hpp"
#include "validation/rules.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation {

namespace {

using namespace detail;
using montecarlo::RunPlan;
using montecarlo::RunResult;
using montecarlo::Scenario;

std::string steady_text(const char* load_name, const SteadyRuns& r) {
  return fmt::format("{}={} T={} T0={} runs={}", load_name, g(r.rate), g(r.horizon), g(r.warmup), r.runs);
}

Scenario steady_scenario(Model model, const SteadyRuns& r, bool retries) {
  Scenario s;
  s.model = model;
  s.backoff = Backoff{Strategy::none, 1.0, 1000.0, 0.0};
  s.traffic.rate = r.rate;
  s.measurement.horizon = r.horizon;
  s.measurement.warmup = r.warmup;
  s.client.retries = retries;
  return s;
}

// The paired rule for an invariant a = b inside each run: the differences a_i − b_i have mean 0.
void apply_paired_rule(CaseResult& r, std::span<const double> a, std::span<const double> b, const char* rhs_label,
                       double floor, const std::string& floor_why, double alpha) {
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  apply_mean_rule(r, d, 0.0, floor, floor_why, alpha);
  const MeanSummary ma = summarize_mean(a), mb = summarize_mean(b);
  // Show the two sides; the verdict (already set) is on their paired difference, and the ± shown is
  // that difference's 95% interval.
  r.closed_form += fmt::format(", {} = {}", rhs_label, g(mb.mean));
  const double diff_ci = r.ci95;
  r.observed = ma.mean;
  r.expected = mb.mean;
  r.ci95 = diff_ci;
  r.rel_error = relative(ma.mean, mb.mean);
}

// A case under another name (two configurations of one constructor in the same catalogue).
ValidationCase renamed(ValidationCase c, std::string name) {
  c.name = std::move(name);
  c.run = [inner = std::move(c.run), n = c.name](const CaseContext& ctx) {
    CaseResult r = inner(ctx);
    r.name = n;
    return r;
  };
  return c;
}

void check_steady(const SteadyRuns& r) {
  if (!(r.runs >= 2)) throw InputError("runs", fmt::format("must be >= 2 for a spread (got {})", r.runs));
  if (!(r.horizon > r.warmup && r.warmup >= 0))
    throw InputError("horizon",
                     fmt::format("must exceed the warmup >= 0 (got horizon={}, warmup={})", r.horizon, r.warmup));
}

}  // namespace

std::string_view to_string(Scale s) noexcept { return s == Scale::quick ? "quick" : "full"; }

// ---- 1, 2: goodput with retries off -------------------------------------------------------------

ValidationCase collision_goodput_case(const SteadyRuns& r) {
  check_steady(r);
  check_aloha(PureAloha{r.rate});
  return make_case(fmt::format("collision-goodput-{}", g(r.rate)), steady_text("λ", r), CaseKind::statistical,
                   r.rate * (r.horizon) * static_cast<double>(r.runs), [r](const CaseContext& ctx) {
                     const auto runs = run(steady_scenario(Model::collision, r, false), r.runs, ctx);
                     std::vector<double> v;
                     for (const auto& x : runs) v.push_back(x.goodput);
                     CaseResult out;
                     out.closed_form = fmt::format("λe^−2λ = {}", g(goodput(PureAloha{r.rate})));
                     // Rates over a finite window: one success straddling the window's end moves
                     // a run's goodput by at most 1/(T − T0).
                     apply_mean_rule(out, v, goodput(PureAloha{r.rate}), 1.0 / (r.horizon - r.warmup), "1/(T−T0)",
                                     ctx.alpha);
                     return out;
                   });
}

ValidationCase free_goodput_case(const SteadyRuns& r) {
  check_steady(r);
  check_occ(OccFree{r.rate});
  return make_case(fmt::format("free-goodput-{}", g(r.rate)), steady_text("λ", r), CaseKind::statistical,
                   r.rate * r.horizon * static_cast<double>(r.runs), [r](const CaseContext& ctx) {
                     const auto runs = run(steady_scenario(Model::free, r, false), r.runs, ctx);
                     std::vector<double> v;
                     for (const auto& x : runs) v.push_back(x.goodput);
                     CaseResult out;
                     out.closed_form = fmt::format("λ/(1+λ) = {}", g(goodput(OccFree{r.rate})));
                     apply_mean_rule(out, v, goodput(OccFree{r.rate}), 1.0 / (r.horizon - r.warmup), "1/(T−T0)",
                                     ctx.alpha);
                     return out;
                   });
}

// ---- 3: processor sharing --------------------------------------------------------------------------

double ps_relaxation_time(double load) {
  // Relaxation time of M/M/1 (and of the PS queue's number in system): 1/(1 − √ρ)²
  // (Cohen, "The Single Server Queue", 1982, §II.2.2; Morse 1955).
  const double s = 1.0 - std::sqrt(load);
  return 1.0 / (s * s);
}

ValidationCase ps_sojourn_case(const SteadyRuns& r) {
  check_steady(r);
  check_ps(ProcessorSharing{r.rate, 1.0});
  return make_case(fmt::format("ps-sojourn-{}", g(r.rate)), steady_text("ρ", r), CaseKind::statistical,
                   r.rate * r.horizon * static_cast<double>(r.runs) * (1.0 + 1.0 / (1.0 - r.rate)) / 2.0,
                   [r](const CaseContext& ctx) {
                     const auto runs = run(steady_scenario(Model::ps, r, false), r.runs, ctx);
                     std::vector<double> v;
                     for (const auto& x : runs) v.push_back(x.sojourn);
                     const double exact = mean_time(ProcessorSharing{r.rate, 1.0});
                     CaseResult out;
                     out.closed_form = fmt::format("1/(1−ρ) = {}", g(exact));
                     // The run starts empty; the start-up deficit decays like e^(−t/τ) with
                     // τ the relaxation time, so after the warm-up it is at most e^(−T0/τ)·exact.
                     const double tau = ps_relaxation_time(r.rate);
                     apply_mean_rule(out, v, exact, std::exp(-r.warmup / tau) * exact, "e^(−T0/τ)/(1−ρ)", ctx.alpha);
                     return out;
                   });
}

// ---- 5: classic exact forms ------------------------------------------------------------------------

ValidationCase classic_case(Model model, const Backoff& backoff, std::int64_t clients, std::int64_t runs) {
  const ClassicTest test{model, backoff, clients};
  check_classic(test);
  if (runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", runs));
  const ClassicResult exact = classic(test);
  return make_case(fmt::format("classic-{}-{}-N{}", to_string(model), to_string(backoff.strategy), clients),
                   fmt::format("{} N={} runs={}", backoff_text(backoff), clients, runs), CaseKind::exact,
                   static_cast<double>(clients * clients * runs) * 0.01,
                   [model, backoff, clients, runs, exact](const CaseContext& ctx) {
                     Scenario s;
                     s.model = model;
                     s.backoff = backoff;
                     s.traffic.clients = clients;
                     // A finishing burst gets twice its exact makespan; a never-finishing one a short horizon
                     // (it must be found still waiting there, not merely slow).
                     s.measurement.horizon = exact.finishes ? 2.0 * *exact.makespan + 10.0 : 2000.0;
                     const auto res = run(s, runs, ctx);
                     CaseResult out;
                     out.kind = CaseKind::exact;
                     out.n = runs;
                     std::int64_t bad = 0;
                     MeanAccumulator mk;
                     if (exact.finishes) {
                       const double a = *exact.attempts_per_client, m = *exact.makespan;
                       out.closed_form = fmt::format("makespan {}, attempts/client {}", g(m), g(a));
                       out.expected = m;
                       const double tol = 1e-12 * m;  // sums of integers and powers of two: exact far below 2^53
                       out.tolerance = tol;
                       for (const auto& r : res) {
                         mk.add(r.makespan);
                         const bool ok = r.stop == montecarlo::StopReason::finished &&
                                         std::abs(r.makespan - m) <= tol &&
                                         std::abs(r.attempts_per_client - a) <= 1e-12 * a;
                         bad += ok ? 0 : 1;
                       }
                       out.observed = mk.mean();
                       out.rel_error = relative(out.observed, m);
                       out.check = fmt::format("{} of {} runs differ (stop, makespan or attempts/client)", bad, runs);
                     } else {
                       out.closed_form = "never finishes";
                       out.expected = 0.0;  // runs finished
                       for (const auto& r : res)
                         bad += (r.stop == montecarlo::StopReason::horizon && r.unfinished == clients) ? 0 : 1;
                       out.observed = static_cast<double>(bad);
                       out.check = fmt::format("{} of {} runs finished or lost a client before T={}", bad, runs,
                                               g(s.measurement.horizon));
                     }
                     out.verdict = bad == 0 ? Verdict::pass : Verdict::fail;
                     return out;
                   });
}

// ---- 6: invariants -----------------------------------------------------------------------------------

ValidationCase littles_law_case(Model model, const Backoff& backoff, const SteadyRuns& r) {
  check_steady(r);
  check_backoff(backoff);
  return make_case(fmt::format("little-{}-{}", to_string(model), to_string(backoff.strategy)),
                   fmt::format("{} {}", backoff_text(backoff), steady_text("λ", r)), CaseKind::statistical,
                   r.rate * r.horizon * static_cast<double>(r.runs) * 3.0, [model, backoff, r](const CaseContext& ctx) {
                     Scenario s = steady_scenario(model, r, true);
                     s.backoff = backoff;
                     const auto res = run(s, r.runs, ctx);
                     std::vector<double> l, lw;
                     MeanAccumulator w;
                     for (const auto& x : res) {
                       l.push_back(x.mean_waiting);
                       lw.push_back(x.arrival_rate * x.mean_time_waiting);
                       w.add(x.mean_time_waiting);
                     }
                     CaseResult out;
                     out.closed_form = "L = λW";
                     // Edge floor. Over the window, ∫N dt counts the remaining time of the clients present at
                     // T0 and the age at T of those still waiting, while λ̂·Ŵ·τ imputes the mean W to the latter;
                     // in steady state the expected difference is L·(E[W²]/E[W] − E[W])/τ = L·W·CV²/τ (CV the
                     // latency's coefficient of variation). Floor: that with CV <= 3, an assumption for these
                     // stable, capped configurations (the free/equal case's measured bias corresponds to
                     // CV ≈ 2.2).
                     const double lbar = summarize_mean(l).mean;
                     const double floor = 9.0 * std::abs(lbar) * w.mean() / (r.horizon - r.warmup);
                     apply_paired_rule(out, l, lw, "λW", floor, "L·W·3²/(T−T0)", ctx.alpha);
                     return out;
                   });
}

ValidationCase work_conservation_case(Model model, const SteadyRuns& r) {
  check_steady(r);
  if (model != Model::shared && model != Model::ps)
    throw InputError("model", fmt::format("must be shared or ps for work conservation (got {})", to_string(model)));
  return make_case(fmt::format("work-{}", to_string(model)), steady_text("λ", r), CaseKind::statistical,
                   r.rate * r.horizon * static_cast<double>(r.runs) * 2.0, [model, r](const CaseContext& ctx) {
                     const auto res = run(steady_scenario(model, r, false), r.runs, ctx);
                     std::vector<double> offered, done;
                     for (const auto& x : res) {
                       offered.push_back(x.attempt_rate);  // one unit of service per attempt
                       done.push_back(x.work_done / (x.stop_time - r.warmup));
                     }
                     CaseResult out;
                     out.closed_form = "attempt rate·1 = work done/τ";
                     // One attempt's unit of service can straddle each end of the window.
                     apply_paired_rule(out, offered, done, "work/τ", 2.0 / (r.horizon - r.warmup), "2/(T−T0)",
                                       ctx.alpha);
                     return out;
                   });
}

ValidationCase busy_equals_work_case(Model model, const SteadyRuns& r) {
  check_steady(r);
  return make_case(fmt::format("busy-{}", to_string(model)), steady_text("λ", r), CaseKind::exact,
                   r.rate * r.horizon * static_cast<double>(r.runs) * 2.0, [model, r](const CaseContext& ctx) {
                     const auto res = run(steady_scenario(model, r, false), r.runs, ctx);
                     CaseResult out;
                     out.kind = CaseKind::exact;
                     out.closed_form = "work done = busy time (rate 1 while busy)";
                     out.n = r.runs;
                     MeanAccumulator busy, work;
                     std::int64_t bad = 0;
                     double worst = 0.0;
                     for (const auto& x : res) {
                       busy.add(x.busy_time);
                       work.add(x.work_done);
                       // Accumulated over ~λT events: allow 1e-9 relative for the floating sums.
                       const double err = std::abs(x.work_done - x.busy_time) / std::max(1.0, x.busy_time);
                       worst = std::max(worst, err);
                       bad += err <= 1e-9 ? 0 : 1;
                     }
                     out.expected = busy.mean();
                     out.observed = work.mean();
                     out.rel_error = relative(out.observed, out.expected);
                     out.tolerance = 1e-9;
                     out.verdict = bad == 0 ? Verdict::pass : Verdict::fail;
                     out.check = fmt::format("{} of {} runs off by > 1e-9 relative (worst {:.2g})", bad, r.runs, worst);
                     return out;
                   });
}

// ---- 7: fluid cap (info) ---------------------------------------------------------------------------

ValidationCase fluid_cap_case(const Backoff& backoff, std::int64_t clients, double rate, double horizon,
                              std::int64_t runs, const std::vector<double>& caps) {
  const FluidCap f{clients, rate, backoff};
  check_fluid_cap(f);
  if (caps.size() < 2 || !std::is_sorted(caps.begin(), caps.end()))
    throw InputError("caps", "must be at least two increasing caps");
  return make_case(
      fmt::format("fluid-cap-{}-B{}", to_string(backoff.strategy), clients),
      fmt::format("{} b={} B={} λ={} T={} runs={} caps {}..{}", to_string(backoff.strategy), g(backoff.base), clients,
                  g(rate), g(horizon), runs, g(caps.front()), g(caps.back())),
      CaseKind::info, static_cast<double>(runs * caps.size()) * horizon * 0.5,
      [f, horizon, runs, caps](const CaseContext& ctx) {
        const FluidCapEstimate est = fluid_cap(f);
        std::vector<double> frac;
        std::string curve;
        for (double c : caps) {
          Scenario s;
          s.model = Model::collision;
          s.backoff = f.backoff;
          s.backoff.cap = c;
          s.traffic.clients = f.clients;
          s.traffic.rate = f.rate;
          s.measurement.horizon = horizon;
          const auto res = run(s, runs, ctx);
          const auto drained = std::count_if(res.begin(), res.end(), [](const RunResult& x) { return x.drained; });
          frac.push_back(static_cast<double>(drained) / static_cast<double>(runs));
          curve += fmt::format("{}{}:{:.2g}", curve.empty() ? "" : " ", g(c), frac.back());
        }
        // Simulated threshold: where the drained fraction first reaches 1/2, interpolated on log(cap).
        double sim = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t i = 0; i < caps.size(); ++i) {
          if (frac[i] >= 0.5) {
            if (i == 0) {
              sim = caps[0];
              break;
            }
            const double w = (0.5 - frac[i - 1]) / (frac[i] - frac[i - 1]);
            sim = std::exp(std::log(caps[i - 1]) + w * (std::log(caps[i]) - std::log(caps[i - 1])));
            break;
          }
        }
        CaseResult out;
        out.kind = CaseKind::info;
        out.verdict = Verdict::info;
        out.closed_form = fmt::format("fluid cap c* = {} (G* = {})", g(est.cap), g(est.upper_root));
        out.expected = est.cap;
        out.observed = sim;
        out.rel_error = est.cap / sim - 1.0;  // an estimate's error: estimate/engine − 1
        out.n = runs;
        out.check = std::isfinite(sim)
                        ? fmt::format("estimate/simulated = {:.3g}; drained by cap {}", est.cap / sim, curve)
                        : fmt::format("no cap in the grid drained half the runs; drained by cap {}", curve);
        return out;
      });
}

// ---- 10: server-side mechanisms ------------------------------------------------------------

ValidationCase rows_goodput_case(Model model, std::int64_t rows, const SteadyRuns& r) {
  check_steady(r);
  if (model != Model::collision && model != Model::free)
    throw InputError(
        "model", fmt::format("rows goodput has a closed form for collision or free only (got {})", to_string(model)));
  const bool aloha = model == Model::collision;
  if (aloha)
    check_aloha_rows(AlohaRows{r.rate, rows});
  else
    check_free_rows(FreeRows{r.rate, rows});
  return make_case(aloha ? "aloha-rows" : "occ-rows", fmt::format("{} M={}", steady_text("λ", r), rows),
                   CaseKind::statistical, r.rate * r.horizon * static_cast<double>(r.runs),
                   [model, rows, r, aloha](const CaseContext& ctx) {
                     Scenario s = steady_scenario(model, r, false);
                     s.resource.rows = rows;
                     const auto runs = run(s, r.runs, ctx);
                     std::vector<double> v;
                     for (const auto& x : runs) v.push_back(x.goodput);
                     const double exact = aloha ? goodput(AlohaRows{r.rate, rows}) : goodput(FreeRows{r.rate, rows});
                     CaseResult out;
                     out.closed_form = fmt::format("{} = {}", aloha ? "λe^(−2λ/M)" : "λ/(1+λ/M)", g(exact));
                     // As cases 1 and 2: one success straddling the window's end moves a run's
                     // goodput by at most 1/(T − T0).
                     apply_mean_rule(out, v, exact, 1.0 / (r.horizon - r.warmup), "1/(T−T0)", ctx.alpha);
                     return out;
                   });
}

double lock_relaxation_time(double load, double second_moment) {
  return second_moment / 2.0 * ps_relaxation_time(load);
}

ValidationCase lock_sojourn_case(Model model, montecarlo::ServiceDist service, double cv, const SteadyRuns& r) {
  check_steady(r);
  using montecarlo::ServiceDist;
  if (service == ServiceDist::lognormal) {
    if (!(cv > 0.0 && cv <= montecarlo::max_service_cv))
      throw InputError("service_cv", fmt::format("must be in (0, {}] for lognormal service (got {})",
                                                 montecarlo::max_service_cv, cv));
  } else if (cv != 0.0) {
    throw InputError("service_cv", fmt::format("must be 0 unless the service is lognormal (got {})", cv));
  }
  const double m2 = service == ServiceDist::exponential ? service_second_moment_exponential()
                    : service == ServiceDist::lognormal ? service_second_moment_lognormal(cv)
                                                        : 1.0;
  const FifoQueue q{r.rate, m2};
  check_fifo(q);
  const char* name = service == ServiceDist::exponential ? "mm1-lock"
                     : service == ServiceDist::lognormal ? "mg1-lock-lognormal"
                                                         : "md1-lock";
  const std::string params =
      fmt::format("{} {} service {}{}", to_string(model), steady_text("λ", r), to_string(service),
                  service == ServiceDist::lognormal ? fmt::format(" cv={}", g(cv)) : "");
  return make_case(name, params, CaseKind::statistical,
                   r.rate * r.horizon * static_cast<double>(r.runs) * (1.0 + mean_time(q)) / 2.0,
                   [model, service, cv, r, q, m2](const CaseContext& ctx) {
                     Scenario s = steady_scenario(model, r, false);
                     s.resource.lock = true;
                     s.resource.service = service;
                     s.resource.service_cv = cv;
                     const auto runs = run(s, r.runs, ctx);
                     std::vector<double> v;
                     for (const auto& x : runs) v.push_back(x.sojourn);
                     const double exact = mean_time(q);
                     CaseResult out;
                     out.closed_form = service == ServiceDist::exponential
                                           ? fmt::format("1/(1−λ) = {}", g(exact))
                                           : fmt::format("1 + λE[S²]/(2(1−λ)), E[S²]={} = {}", g(m2), g(exact));
                     // The run starts empty: the start-up deficit after the warm-up is taken as
                     // e^(−T0/τ)·W (as case 3), τ = lock_relaxation_time.
                     const double tau = lock_relaxation_time(r.rate, m2);
                     apply_mean_rule(out, v, exact, std::exp(-r.warmup / tau) * exact, "e^(−T0/τ)·W", ctx.alpha);
                     return out;
                   });
}

// Client timeout τ behind the lock with exponential service, one attempt per client (max_attempts 1):
// the server serves every attempt (an orphan too), so the queue is M/M/1 FIFO and a client is lost iff
// its time in system exceeds τ: lost fraction e^(−(1−λ)τ) (analytic/rows.hpp).
ValidationCase lock_timeout_case(double timeout, const SteadyRuns& r) {
  check_steady(r);
  const FifoTimeout q{r.rate, timeout};
  check_fifo_timeout(q);
  return make_case("mm1-lock-timeout",
                   fmt::format("shared {} service exponential τ={} max_attempts=1", steady_text("λ", r), g(timeout)),
                   CaseKind::statistical,
                   r.rate * r.horizon * static_cast<double>(r.runs) * (1.0 + 1.0 / (1.0 - r.rate)) / 2.0,
                   [r, q](const CaseContext& ctx) {
                     Scenario s = steady_scenario(Model::shared, r, true);  // retry limits need retries on
                     s.resource.lock = true;
                     s.resource.service = montecarlo::ServiceDist::exponential;
                     s.client.timeout = q.timeout;
                     s.client.max_attempts = 1;
                     const auto runs = run(s, r.runs, ctx);
                     std::vector<double> v;
                     for (const auto& x : runs) v.push_back(x.lost_fraction);
                     const double exact = loss_probability(q);
                     CaseResult out;
                     out.closed_form = fmt::format("P(W > τ) = e^(−(1−λ)τ) = {}", g(exact));
                     // A run's lost fraction covers every request that ended: the run starts empty
                     // (about λ·τ_r requests see a lighter queue, τ_r = lock_relaxation_time) and
                     // the requests still waiting at the stop (fewer than λ·τ) are left out, each
                     // moving the fraction by at most 1/(λT): bias at most (τ_r + τ)/T.
                     const double floor =
                         (lock_relaxation_time(r.rate, service_second_moment_exponential()) + q.timeout) / r.horizon;
                     apply_mean_rule(out, v, exact, floor, "(τ_r+τ)/T", ctx.alpha);
                     return out;
                   });
}

// ---- the suites ------------------------------------------------------------------------------------

std::vector<ValidationCase> catalogue(Scale scale) {
  const bool full = scale == Scale::full;
  std::vector<ValidationCase> cat;
  const std::int64_t runs = full ? 200 : 64;
  const double horizon = full ? 100000.0 : 20000.0;
  // 1. collision goodput over 0.05..2, including the peak at 1/2.
  const std::vector<double> aloha_rates = full
                                              ? std::vector<double>{0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 1.0, 1.5, 2.0}
                                              : std::vector<double>{0.05, 0.25, 0.5, 1.0, 2.0};
  for (double lambda : aloha_rates) cat.push_back(collision_goodput_case({lambda, horizon, 10.0, runs}));
  // 2. free goodput.
  const std::vector<double> occ_rates =
      full ? std::vector<double>{0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0} : std::vector<double>{0.1, 0.5, 1.0, 2.0};
  for (double lambda : occ_rates) cat.push_back(free_goodput_case({lambda, horizon, 20.0, runs}));
  // 3. ps: warm-up 10 relaxation times (start-empty bias <= e^−10 of the mean), window long
  // against the relaxation time so that ρ = 0.9 is judged on a tolerance of a few per cent.
  const std::vector<double> loads =
      full ? std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} : std::vector<double>{0.1, 0.5, 0.9};
  for (double rho : loads) {
    const double tau = ps_relaxation_time(rho);
    const double warmup = std::ceil(10.0 * tau);
    const double window = std::max(horizon, (full ? 1000.0 : 200.0) * tau);
    cat.push_back(ps_sojourn_case({rho, warmup + window, warmup, runs}));
  }
  // 4. sleeps: each strategy, retry indices before, at and past the cap (b = 1, c = 1000: w_11 = c).
  const std::int64_t draws = full ? 2000000 : 200000;
  const std::vector<int> ks = full ? std::vector<int>{1, 2, 5, 10, 11, 12, 20, 30} : std::vector<int>{1, 4, 12};
  for (Strategy st : {Strategy::full, Strategy::equal, Strategy::nojitter})
    for (int k : ks) cat.push_back(sleep_case(Backoff{st, 1.0, 1000.0, 0.0}, k, draws));
  cat.push_back(sleep_case(Backoff{Strategy::none, 1.0, 1000.0, 0.0}, 1, 1000));
  cat.push_back(sleep_case(Backoff{Strategy::window, 1.0, 1000.0, 50.0}, 1, draws));
  cat.push_back(sleep_case(Backoff{Strategy::window, 1.0, 1000.0, 50.0}, 7, draws));
  // The memoryless strategy (the Markov cases' sleeps): Exp(mean w_k/2) before and past the cap.
  for (int k : {1, 12}) cat.push_back(sleep_case(Backoff{Strategy::memoryless, 1.0, 1000.0, 0.0}, k, draws));
  const std::vector<int> dks = full ? std::vector<int>{1, 2, 3, 5, 10, 20, 30} : std::vector<int>{1, 3, 10};
  for (int k : dks) cat.push_back(sleep_case(Backoff{Strategy::decorrelated, 1.0, 1000.0, 0.0}, k, draws));
  // A small cap makes the atom at c large: the capped value is what the next draw grows from.
  cat.push_back(
      renamed(sleep_case(Backoff{Strategy::decorrelated, 1.0, 5.0, 0.0}, 6, draws), "sleep-decorrelated-c5-k6"));
  if (full)
    cat.push_back(
        renamed(sleep_case(Backoff{Strategy::decorrelated, 1.0, 20.0, 0.0}, 12, draws), "sleep-decorrelated-c20-k12"));
  cat.push_back(decorrelated_growth_case(1.0, 1500, 3000, full ? 40000 : 4000));
  // 5. classic exact forms.
  const std::int64_t classic_runs = full ? 20 : 4;
  for (std::int64_t n : full ? std::vector<std::int64_t>{100, 1000} : std::vector<std::int64_t>{100}) {
    cat.push_back(classic_case(Model::free, Backoff{Strategy::none, 1.0, 1000.0, 0.0}, n, classic_runs));
    cat.push_back(classic_case(Model::free, Backoff{Strategy::nojitter, 1.0, 1000.0, 0.0}, n, classic_runs));
  }
  cat.push_back(renamed(classic_case(Model::free, Backoff{Strategy::nojitter, 1.0, 16.0, 0.0}, 30, classic_runs),
                        "classic-free-nojitter-N30-c16"));
  cat.push_back(classic_case(Model::collision, Backoff{Strategy::none, 1.0, 1000.0, 0.0}, 10, classic_runs));
  cat.push_back(classic_case(Model::collision, Backoff{Strategy::nojitter, 1.0, 1000.0, 0.0}, 10, classic_runs));
  // 6. invariants (loads and caps chosen stable: in 200 runs of 100,000 units none
  // collapsed and the peak backlog stayed below ~10, so latencies are light-tailed).
  cat.push_back(littles_law_case(Model::free, Backoff{Strategy::equal, 1.0, 16.0, 0.0}, {0.5, horizon, 500.0, runs}));
  cat.push_back(
      littles_law_case(Model::collision, Backoff{Strategy::full, 1.0, 64.0, 0.0}, {0.05, horizon, 500.0, runs}));
  cat.push_back(littles_law_case(Model::shared, Backoff{Strategy::full, 1.0, 64.0, 0.0}, {0.1, horizon, 500.0, runs}));
  cat.push_back(work_conservation_case(Model::shared, {0.5, horizon, 200.0, runs}));
  cat.push_back(work_conservation_case(Model::ps, {0.5, horizon, 200.0, runs}));
  cat.push_back(busy_equals_work_case(Model::shared, {0.5, horizon, 200.0, 4}));
  // 8. retry amplification through layers: exactly a^L = 81 at total failure; E_L at partial failure.
  cat.push_back(amplification_case(4, 3, 1.0, 100, 4));
  cat.push_back(amplification_case(3, 3, 0.5, full ? 20000 : 2000, runs));
  if (full) cat.push_back(amplification_case(4, 3, 0.3, 20000, runs));
  // 9. retry budgets at a total outage against their token-bucket bounds.
  for (const char* preset : {"aws-standard", "grpc", "finagle"})
    cat.push_back(budget_outage_case(preset, full ? 20 : 4));
  // 10. server-side mechanisms: rows and the FIFO lock against their closed forms.
  // Rows: λ = M/4 and M/2 sit on the rising side and at the peak of λe^(−2λ/M) (peak at M/2).
  // Full: 100 runs of 50,000 units (their tolerance is still < 1% of each exact value).
  const std::int64_t server_runs = full ? 100 : runs;
  const double server_horizon = full ? 50000.0 : horizon;
  cat.push_back(rows_goodput_case(Model::collision, 4, {1.0, server_horizon, 10.0, server_runs}));
  cat.push_back(rows_goodput_case(Model::free, 4, {2.0, server_horizon, 20.0, server_runs}));
  // Locks: warm-up 20 relaxation times (see lock_sojourn_case).
  auto lock_case = [&](Model model, montecarlo::ServiceDist service, double cv, double load) {
    const double m2 = service == montecarlo::ServiceDist::exponential ? service_second_moment_exponential()
                      : service == montecarlo::ServiceDist::lognormal ? service_second_moment_lognormal(cv)
                                                                      : 1.0;
    const double warmup = std::ceil(20.0 * lock_relaxation_time(load, m2));
    cat.push_back(lock_sojourn_case(model, service, cv, {load, warmup + server_horizon, warmup, server_runs}));
  };
  lock_case(Model::shared, montecarlo::ServiceDist::exponential, 0.0, 0.5);
  lock_case(Model::collision, montecarlo::ServiceDist::deterministic, 0.0, 0.6);
  lock_case(Model::free, montecarlo::ServiceDist::lognormal, 1.5, 0.5);
  // Client timeout behind the lock: τ = 2 at λ = 1/2 loses e^−1 of the clients.
  cat.push_back(lock_timeout_case(2.0, {0.5, server_horizon, 0.0, server_runs}));
  // 11. Small systems exactly: the classic test as a Markov chain (memoryless sleeps, exponential
  // service). N = 8 at cap 8: collision needs ~10 attempts per client (20,597 states), free ~2.6
  // (3,711 states: a free client fails at most N − 1 times). ~0.15 ms of CPU per run.
  const std::int64_t markov_runs = full ? 20000 : 4000;
  for (Model m : {Model::collision, Model::free})
    for (MarkovMetric metric : {MarkovMetric::attempts, MarkovMetric::makespan})
      cat.push_back(markov_case({m, Backoff{Strategy::memoryless, 1.0, 8.0, 0.0}, 8}, metric, markov_runs));
  if (full)
    for (MarkovMetric metric : {MarkovMetric::attempts, MarkovMetric::makespan})
      cat.push_back(
          markov_case({Model::collision, Backoff{Strategy::memoryless, 1.0, 64.0, 0.0}, 4}, metric, markov_runs));
  // 7. fluid cap estimate (info).
  // Collapse at the default K = 3000 (the paper's); the grid brackets the estimate, finer near it
  // (non-draining caps are the costly runs: they last until the horizon).
  cat.push_back(fluid_cap_case(Backoff{Strategy::full, 1.0, unbounded_cap, 0.0}, 100, 0.05, full ? 60000.0 : 20000.0,
                               full ? 20 : 12, {32, 64, 96, 128, 192, 256, 512}));
  if (full)
    cat.push_back(fluid_cap_case(Backoff{Strategy::full, 1.0, unbounded_cap, 0.0}, 300, 0.05, 60000.0, 20,
                                 {256, 384, 512, 768, 1024, 2048}));
  // 12. the burst and mean-field estimates (info).
  for (auto& c : estimate_cases(scale)) cat.push_back(std::move(c));
  // 13. one hedge without contention.
  for (auto& c : hedge_cases(scale)) cat.push_back(std::move(c));
  // 14. arrivals under a load profile.
  for (auto& c : profile_cases(scale)) cat.push_back(std::move(c));
  // 15. a fixed limit on retries in flight: Erlang's loss formula.
  for (auto& c : retries_in_flight_cases(scale)) cat.push_back(std::move(c));
  // 16. the adaptive rate limiter's steady fill rate without throttling.
  for (auto& c : adaptive_cases(scale)) cat.push_back(std::move(c));
  // 17. replicas: k independent M/M/c queues, a hedge over two replicas.
  for (auto& c : replica_cases(scale)) cat.push_back(std::move(c));
  return cat;
}

}  // namespace retrylab::validation
