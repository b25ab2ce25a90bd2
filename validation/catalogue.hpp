#pragma once
// The validation catalogue: case constructors, each one engine configuration against one
// closed form, and the two standard suites (quick, full) built from them.
// Tolerance rule of every mean case: |mean − exact| <= t_(1−α/2, n−1) · sd/√n + floor, with sd the
// sample standard deviation over n independent runs and floor a stated, derived allowance for
// discretisation or edge effects (never a bare percentage). KS cases: D_n <= the critical value at
// α (+ the closed form's stated numerical accuracy for decorrelated jitter). Exact cases: equality
// to rounding (a few ulps of the magnitude).
#include <cstdint>
#include <string_view>
#include <vector>

#include "analytic/burst.hpp"
#include "analytic/markov.hpp"
#include "analytic/model.hpp"
#include "analytic/steady.hpp"
#include "analytic/strategy.hpp"
#include "montecarlo/scenario.hpp"
#include "validation/case.hpp"

namespace retrylab::validation {

enum class Scale { quick, full };
std::string_view to_string(Scale s) noexcept;

// A retries-off steady run family: `runs` runs of Poisson traffic on [0, horizon), rates measured
// over [warmup, horizon).
struct SteadyRuns {
  double rate = 0.5;
  double horizon = 5000.0;
  double warmup = 10.0;
  std::int64_t runs = 32;
};

// 1. collision, retries off: goodput against λe^−2λ (analytic/aloha.hpp). Floor 1/(T − T0).
ValidationCase collision_goodput_case(const SteadyRuns& r);
// 2. free, retries off: goodput against λ/(1+λ) (analytic/occ.hpp). Floor 1/(T − T0).
ValidationCase free_goodput_case(const SteadyRuns& r);
// 3. ps: mean time in system against 1/(1−ρ) (analytic/ps.hpp), r.rate = ρ. The warm-up should be
// several relaxation times τ = 1/(1−√ρ)²; floor e^(−T0/τ)/(1−ρ) (the start-empty transient).
ValidationCase ps_sojourn_case(const SteadyRuns& r);
double ps_relaxation_time(double load);

// 4. KS test of `draws` engine sleeps before retry k (montecarlo::draw_sleeps) against the exact
// law (analytic/sleep.hpp); decorrelated against its numerical law with its accuracy added to the
// critical value. none/nojitter are point masses: an exact case (every draw equals w_k).
ValidationCase sleep_case(const Backoff& backoff, int retry, std::int64_t draws);
// 4b. decorrelated jitter, cap none: (E ln s_K − E ln s_J)/(K − J) against ln 3 − 1, from two
// independent samples of `draws` chains; floor bounds the pull of the floor b (decorrelated.hpp's
// exact step growth) on chains still near b.
ValidationCase decorrelated_growth_case(double base, int j, int k, std::int64_t draws);

// 5. The classic test's exact forms (analytic/classic.hpp), N clients at t = 0 alone: free with
// none/nojitter (attempts per client and makespan, every run), collision never finishing (every run
// stops at the horizon with all N waiting). Exact.
ValidationCase classic_case(Model model, const Backoff& backoff, std::int64_t clients, std::int64_t runs);

// 6. Little's law inside the engine (retries on): per run, mean number waiting − arrival rate ×
// mean time waiting; mean 0 within t·sd/√n + an edge floor L·W·CV²/(T − T0) with the latency's
// coefficient of variation CV <= 3 assumed (stable, capped configurations only).
ValidationCase littles_law_case(Model model, const Backoff& backoff, const SteadyRuns& r);
// 6b. Work conservation in `shared` (and `ps`), retries off: every attempt receives exactly one
// unit of service and the server works at rate 1 while busy, so per run
// attempt_rate − work_done/(T − T0) has mean 0 (statistical), and work_done = busy_time (exact).
ValidationCase work_conservation_case(Model model, const SteadyRuns& r);
ValidationCase busy_equals_work_case(Model model, const SteadyRuns& r);

// 7. The fluid cap estimate (analytic/fluid_cap.hpp) against the simulated cap where half the runs
// of a burst of B clients on steady traffic λ drain (collision, horizon T): info, never fails.
ValidationCase fluid_cap_case(const Backoff& backoff, std::int64_t clients, double rate, double horizon,
                              std::int64_t runs, const std::vector<double>& caps);

// 8. Retry amplification (analytic/amplification.hpp): `layers` layers each making up to
// `attempts` attempts over a bottom failing with probability p (montecarlo::simulate_layered).
// p = 1: every run makes exactly a^L bottom calls per request (exact, proofs/Budget.v:
// amplification_exact); p < 1: mean bottom calls per request against E_L (statistical, no floor:
// per-run means of i.i.d. requests, no edge effect; proofs/Budget.v: amplification_expected).
ValidationCase amplification_case(int layers, int attempts, double failure, std::int64_t requests, std::int64_t runs);

// 9. Retry budgets at a total outage (analytic/budget.hpp): the failing dependency (the engine's
// `none` model, montecarlo::simulate) with every attempt failing and up to 1000 attempts per request, so
// the budget is the only limit. Per run, retries against the bound with no success: `aws-standard`
// exactly max_retries(aws_standard, 0) = 100 (botocore's acquire takes 5 while >= 5 remain); `grpc`
// <= max_retries(grpc_throttling, 0) = 5; `finagle` (horizon within one ttl) <= finagle_max_retries
// (requests of the run). Exact (α = 0).
ValidationCase budget_outage_case(std::string_view preset, std::int64_t runs);

// 10. Server-side mechanisms (analytic/rows.hpp), retries off.
// 10a. M rows (each attempt on one uniformly at random), service exactly 1: `collision` goodput
// against λe^(−2λ/M) (ALOHA per row, "aloha-rows"), `free` against λ/(1+λ/M) (first-commit-wins per
// row, "occ-rows"). Floor 1/(T − T0), as cases 1 and 2.
ValidationCase rows_goodput_case(Model model, std::int64_t rows, const SteadyRuns& r);
// 10b. A FIFO lock on one row, service of mean 1: mean time in system against Pollaczek–Khinchine
// 1 + λ·E[S²]/(2(1−λ)): exponential "mm1-lock" (1/(1−λ)), deterministic "md1-lock", lognormal with
// coefficient of variation cv "mg1-lock-lognormal" (E[S²] = 1 + cv²). Floor e^(−T0/τ)·W (the
// start-empty transient, as case 3) with τ = lock_relaxation_time: M/M/1's 1/(1−√λ)² scaled by
// E[S²]/2 (exact for M/M/1; the heavy-traffic scaling otherwise, an approximation: lognormal service
// has no exponential moment, so the warm-up is taken 20τ).
ValidationCase lock_sojourn_case(Model model, montecarlo::ServiceDist service, double cv, const SteadyRuns& r);
double lock_relaxation_time(double load, double second_moment);

// 11. Small systems exactly (analytic/markov.hpp): the classic test with N <= 8 clients, the
// memoryless strategy and exponential service (mean 1) against the Markov chain's exact expected
// attempts per client or makespan: "markov-<model>-N<N>-c<cap>-<metric>". Floor 0 (runs are i.i.d.
// copies of the chain; a run that does not finish gives no value and fails the case).
enum class MarkovMetric { attempts, makespan };
std::string_view to_string(MarkovMetric m) noexcept;
montecarlo::Scenario markov_scenario(const MarkovBurst& m);
ValidationCase markov_case(const MarkovBurst& m, MarkovMetric metric, std::int64_t runs);

// 12. Estimates (analytic/burst.hpp, analytic/steady.hpp; estimate_cases.cpp): approximations, so
// `info` cases that never pass or fail. Each reports the estimate's error, estimate/engine − 1
// (rel_error), the band analytic/README.md claims for it (tolerance: relative for the burst cases,
// absolute in load for the collapse case; NaN where none is claimed) and whether the measurement lies
// inside it, in `check`. "estimate-…" names.
// 12a. The stage model's drain time of a burst (last client; 99% in the text) against the engine's
// mean over the runs that drained, with the error's range over the engine's 95% interval.
ValidationCase burst_drain_estimate_case(const BurstModel& m, std::int64_t runs);
// 12b. The stage model's least draining cap (burst_cap_threshold, grid b·2^(i/8)) against the
// engine's on the same grid: the least cap at which all `runs` runs drain with the cap below failing,
// found by walking the grid from the model's cap (at most max_steps caps either way).
ValidationCase burst_cap_estimate_case(const BurstModel& m, std::int64_t runs, int max_steps = 24);
// 12c. The mean field's collapse load (collapse_loads: the passage estimate; the escape estimate in the
// text) against the engine's: the least load of a grid of `step` at which at least half of `runs` runs
// reach K within T (paper 1's threshold is the grid load below it), both placed on that grid.
ValidationCase steady_collapse_estimate_case(const SteadyModel& s, double collapse, double horizon, double step,
                                             std::int64_t runs);
// The estimate cases of each scale (quick: the cheap ones; full: also the cap searches and equal jitter).
std::vector<ValidationCase> estimate_cases(Scale scale);

// 13. One hedge without contention (analytic/hedge.hpp; hedge_cases.cpp): model none, exponential
// service, hedge_attempts 2, against L = min(S1, d + S2): the mean latency, the fractions hedged and
// answered by the hedge, and the CDF at the runs' p50 and p99 (Beta order statistics). "hedge-…".
std::vector<ValidationCase> hedge_cases(Scale scale);

// 14. Arrivals under a load profile (montecarlo/profile.hpp; profile_cases.cpp): model none, no
// retries, the runs' mean count of arrivals in [0, T) against ∫_0^T λ for a ramp, steps, a sine and a
// constant profile. "profile-arrivals-…".
std::vector<ValidationCase> profile_cases(Scale scale);

// 15. A fixed limit on retries in flight without contention (analytic/erlang.hpp;
// retries_in_flight_cases.cpp): model none, failure_prob p, max_attempts 2, retries_in_flight c; the
// fraction of retries denied against Erlang B(c, λp·(E[sleep] + 1)), two holding laws of one mean
// (insensitivity). "rif-erlang-b-…".
std::vector<ValidationCase> retries_in_flight_cases(Scale scale);
// 16. AWS adaptive mode's token bucket without throttling (analytic/adaptive.hpp; adaptive_cases.cpp):
// model none, no failure, Poisson arrivals at λ: the fill rate's time-average against 2λ.
// "adaptive-fill-…".
std::vector<ValidationCase> adaptive_cases(Scale scale);
// 17. Replicas behind a load balancer (components/replicas.hpp; replica_cases.cpp): k independent
// M/M/c queues under random balancing against Erlang C's mean wait (analytic/erlang.hpp), and one
// hedge over two replicas against L = min(S1, d + S2) (analytic/hedge.hpp), beside the same hedge
// behind one FIFO queue (L = S1). "replica-…".
std::vector<ValidationCase> replica_cases(Scale scale);

// The standard suites.
std::vector<ValidationCase> catalogue(Scale scale);

}  // namespace retrylab::validation
