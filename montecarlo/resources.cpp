#include "montecarlo/resources.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::montecarlo {

namespace {

// The attempt cycles (an attempt of length `attempt`, then the mean sleep before the next) that fit
// in `time`, following the mean sleep of each retry index up to the cap; +inf when time is. Sleep k
// (k = 0, 1, ...) has mean f·min(cap, base·g^k), with f the strategy's mean fraction of its window
// and g its growth (decorrelated: f = 5/6, its mean at the cap for cap ≫ base, and g = e^(ln 3 − 1),
// the growth of its log-sleep, analytic/decorrelated.hpp); none and window sleep 0 and W/2 always.
double cycles_within(const Backoff& b, double attempt, double time) {
  if (std::isinf(time)) return std::numeric_limits<double>::infinity();
  const auto after = [&](double elapsed, double n, double cycle) {
    return n + std::ceil(std::max(0.0, time - elapsed) / std::max(cycle, 1e-9));
  };
  if (b.strategy == Strategy::none) return after(0, 0, attempt);
  if (b.strategy == Strategy::window) return after(0, 0, attempt + 0.5 * b.window);
  const bool decorrelated = b.strategy == Strategy::decorrelated;
  const double f = decorrelated ? 5.0 / 6.0 : mean_sleep_at_cap(b, 1.0);
  const double g = decorrelated ? std::exp(std::log(3.0) - 1.0) : b.multiplier;
  const double at_cap = attempt + f * b.cap;
  if (g <= 1.0 || b.base >= b.cap) return after(0, 0, attempt + f * std::min(b.base, b.cap));
  // Cycles before the cap: k < K; the first n of them last n·attempt + f·base·(g^n − 1)/(g − 1).
  const double K = std::isinf(b.cap) ? 1e300 : std::ceil(std::log(b.cap / b.base) / std::log(g));
  const auto length = [&](double n) { return n * attempt + f * b.base * std::expm1(n * std::log(g)) / (g - 1.0); };
  double lo = 0, hi = std::min(K, 4096.0);  // g^4096 overflows any time for g >= 1.19; else the cap binds sooner
  while (hi < K && length(hi) <= time) hi = std::min(K, 2 * hi);
  if (length(hi) <= time) return after(length(hi), hi, at_cap);  // hi = K: reached the cap in time
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (length(mid) <= time ? lo : hi) = mid;
  }
  return hi;  // the cycle that was running at `time` counts
}

}  // namespace

namespace {
// A client timeout on a shared or ps server without a concurrency limit: timed-out attempts keep
// sharing the server, so each slows the next and every attempt may time out.
bool timeouts_pile_up(const Scenario& s) {
  return s.client.retries && std::isfinite(s.client.timeout) && s.admission.limit == 0 && !s.admission.aimd &&
         (s.model == Model::shared || s.model == Model::ps);
}
}  // namespace

double expected_attempts_per_client(const Scenario& s) {
  if (!s.client.retries) return 1.0;
  const Scenario& o = s;
  const double limit =
      o.client.max_attempts > 0 ? static_cast<double>(o.client.max_attempts) : std::numeric_limits<double>::infinity();
  const double attempt =
      std::min(1.0, o.client.timeout) + 2.0 * o.resource.delay;  // a completed attempt's round trip, or its timeout
  const double horizon = effective_horizon(s);
  const double lifetime =
      std::min(o.client.deadline, o.measurement.settle ? std::numeric_limits<double>::infinity() : horizon);
  const double by_time = 1.0 + cycles_within(s.backoff, attempt, lifetime);
  const double p = o.failures.failure_prob;
  double a = std::min({limit, by_time, p < 1.0 ? 1.0 / (1.0 - p) : std::numeric_limits<double>::infinity()});
  const double outage = std::max(0.0, std::min(o.failures.outage_end, horizon) - o.failures.outage_start);
  if (outage > 0 && o.failures.outage_fraction > 0) {
    // A client present during the outage retries through it: the cycles that fit in it, or 1/(1 − f).
    const double f = o.failures.outage_fraction;
    const double through = std::min(1.0 + cycles_within(s.backoff, attempt, std::min(outage, lifetime)),
                                    f < 1.0 ? 1.0 / (1.0 - f) : std::numeric_limits<double>::infinity());
    a = std::max(a, std::min(limit, through));
  }
  if (timeouts_pile_up(s)) {
    // Every attempt may time out: its time on the shared server grows with the attempts sharing it,
    // timed-out ones included. Retries are then bounded by max_attempts and by the timeout cycles
    // that fit in the client's lifetime, not by the failures.
    const double by_timeouts = 1.0 + cycles_within(s.backoff, o.client.timeout + 2.0 * o.resource.delay, lifetime);
    a = std::max(a, std::min(limit, by_timeouts));
  }
  return std::isfinite(a) ? std::max(1.0, a) : std::numeric_limits<double>::max();
}

// Steady arrivals expected per run: rate x horizon, or a load profile's integral over [0, horizon)
// (its mean rate over the horizon, times the horizon). Candidates: what the engine draws to make
// them, max rate x horizon with a profile (thinning, components/load_profile.hpp), each a draw even
// when thinned out: a spike of 10^9 per attempt-duration for a nanosecond is half an arrival but
// 10^15 candidates over a horizon of 10^6.
namespace {
double steady_arrivals(const Scenario& s) {
  const double h = effective_horizon(s);
  return s.traffic.load_profile.set() ? s.traffic.load_profile.integral(0.0, h) : s.traffic.rate * h;
}
double steady_candidates(const Scenario& s) { return candidate_rate(s) * effective_horizon(s); }
}  // namespace

ResourceEstimate estimate_resources(const Scenario& s, const RunPlan& plan, std::int64_t series_bins) {
  const double arrivals = steady_arrivals(s);
  const double per_run_clients = static_cast<double>(s.traffic.clients) + arrivals;
  const double waiting = std::min(static_cast<double>(s.measurement.collapse), per_run_clients) + 64.0;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const double threads = std::max(1.0, std::min<double>({static_cast<double>(plan.threads > 0 ? plan.threads : hw),
                                                         static_cast<double>(plan.runs), max_threads_estimated}));
  // Per run in flight: the clients waiting at once, and on the full tier every success's latency.
  const bool full_tier = plan.server_engine || has_server_features(s);
  // Timed-out attempts stay on a shared server, sharing it, until their work is done: a run may hold
  // every attempt it made there (20 clients timing out every 5 attempt-durations for 10^7 reached
  // 2.6 GB, counted as nothing before).
  const double on_server = timeouts_pile_up(s) ? per_run_clients * expected_attempts_per_client(s) : 0.0;
  const double per_run = waiting * bytes_per_waiting_client + on_server * bytes_per_server_attempt +
                         (full_tier ? per_run_clients * bytes_per_latency : 0.0);
  const auto bins = static_cast<double>(std::max<std::int64_t>(0, series_bins));
  ResourceEstimate e;
  e.bytes = static_cast<double>(plan.runs) * (static_cast<double>(sizeof(RunResult)) + per_run_summary_bytes) +
            threads * per_run + bins * (2.0 * threads * series_quantities * sizeof(double) + bytes_per_series_bin);
  e.clients = static_cast<double>(plan.runs) * per_run_clients;
  e.attempts_per_client = expected_attempts_per_client(s);
  e.attempts = e.clients * e.attempts_per_client;
  e.thinned = static_cast<double>(plan.runs) * std::max(0.0, steady_candidates(s) - arrivals);
  return e;
}

double default_max_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 4.0 * (1ull << 30);  // unknown: 4 GiB
  return 0.5 * static_cast<double>(pages) * static_cast<double>(page);
}

void check_resources(const Scenario& s, const RunPlan& plan, double max_memory, std::int64_t series_bins) {
  const ResourceEstimate e = estimate_resources(s, plan, series_bins);
  if (e.thinned > max_attempts_simulated)
    throw InputError(
        "load_profile",
        fmt::format("is too costly to simulate: its arrivals are drawn at its maximum rate {} and thinned, "
                    "runs x max rate x horizon = {} x {} x {} = {:.3g} draws, above the limit {:.3g} (lower "
                    "the profile's peak, runs or horizon)",
                    s.traffic.load_profile.max_rate(), plan.runs, s.traffic.load_profile.max_rate(),
                    effective_horizon(s), static_cast<double>(plan.runs) * steady_candidates(s),
                    max_attempts_simulated));
  if (e.attempts > max_attempts_simulated) {
    // The horizon when it makes the work: steady arrivals over it, or retries that go on through it.
    const bool steady = steady_arrivals(s) > static_cast<double>(s.traffic.clients);
    const Scenario& o = s;
    throw InputError(
        steady || e.attempts_per_client > 100 ? "horizon" : "runs",
        fmt::format("is too long to simulate: runs x (burst + rate x horizon) x attempts per client = {:.3g} x {:.3g} "
                    "= {:.3g} attempts, above the limit {:.3g} (got runs={}, clients={}, rate={}, horizon={}, "
                    "failure_prob={}, max_attempts={}, deadline={}; lower runs or horizon, or bound the retries "
                    "with max_attempts or deadline)",
                    e.clients, e.attempts_per_client, e.attempts, max_attempts_simulated, plan.runs, s.traffic.clients,
                    s.traffic.load_profile.set() ? steady_arrivals(s) / effective_horizon(s) : s.traffic.rate,
                    effective_horizon(s), o.failures.failure_prob, o.client.max_attempts, o.client.deadline));
  }
  if (e.bytes > max_memory)
    throw InputError(
        "max_memory",
        fmt::format("is {:.3g} GiB, below the estimated {:.3g} GiB of this run (runs={}, "
                    "collapse={}, series bins={}; lower `runs` or `collapse`, widen the `series` bin, or "
                    "raise `max_memory`{})",
                    max_memory / (1ull << 30), e.bytes / (1ull << 30), plan.runs, s.measurement.collapse, series_bins,
                    timeouts_pile_up(s) ? "; timed-out attempts stay on the shared server: bound them with "
                                          "`max_attempts`, `deadline` or `horizon`"
                                        : ""));
}

}  // namespace retrylab::montecarlo
