#include "montecarlo/metrics.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab::montecarlo {

namespace {

using S = Summary;
using R = RunResult;

const std::vector<Metric> base = {
    {"attempts_per_client", "attempts per client", Dim::count, &S::attempts_per_client, &R::attempts_per_client},
    {"makespan", "makespan ({})", Dim::time, &S::makespan, &R::makespan},
    {"latency", "latency ({})", Dim::time, &S::latency, &R::latency},
    {"goodput", "goodput (successes per {})", Dim::per_time, &S::goodput, &R::goodput},
    {"attempt_rate", "attempt rate (per {})", Dim::per_time, &S::attempt_rate, &R::attempt_rate},
    {"sojourn", "time in system ({})", Dim::time, &S::sojourn, &R::sojourn},
    {"drain_time", "drain time ({})", Dim::time, &S::drain_time, &R::drain_time},
    {"drain_time_p99", "99% drain time ({})", Dim::time, &S::drain_time_p99, &R::drain_time_p99},
    {"unfinished", "unfinished (clients)", Dim::count, &S::unfinished, nullptr},
    {"max_waiting", "peak backlog (clients)", Dim::count, &S::max_waiting, nullptr},
    {"mean_waiting", "mean waiting (clients)", Dim::count, &S::mean_waiting, &R::mean_waiting},
    {"mean_time_waiting", "mean time waiting ({})", Dim::time, &S::mean_time_waiting, &R::mean_time_waiting},
    {"arrival_rate", "arrival rate (per {})", Dim::per_time, &S::arrival_rate, &R::arrival_rate},
    {"busy_time", "busy time ({})", Dim::time, &S::busy_time, &R::busy_time},
    {"work_done", "work done ({})", Dim::time, &S::work_done, &R::work_done}};

const std::vector<Metric> server = {
    {"rejected", "rejected attempts (per run)", Dim::count, &S::rejected, nullptr},
    {"reject_fraction", "rejected / attempts", Dim::count, &S::reject_fraction, &R::reject_fraction},
    {"queue_wait", "queue wait at the server ({})", Dim::time, &S::queue_wait, &R::queue_wait},
    {"mean_limit", "mean concurrency limit (attempts)", Dim::count, &S::mean_limit, &R::mean_limit},
    {"latency_p50", "median latency ({})", Dim::time, &S::latency_p50, &R::latency_p50},
    {"latency_p99", "99th percentile latency ({})", Dim::time, &S::latency_p99, &R::latency_p99},
    {"lost", "clients that gave up (per run)", Dim::count, &S::lost, nullptr},
    {"lost_fraction", "lost / (successes + lost)", Dim::count, &S::lost_fraction, &R::lost_fraction},
    {"timed_out", "attempts timed out (per run)", Dim::count, &S::timed_out, nullptr}};

const std::vector<Metric> controls = {
    {"retries_denied", "retries the budget refused (per run)", Dim::count, &S::retries_denied, nullptr},
    {"breaker_rejected", "calls the breaker rejected (per run)", Dim::count, &S::breaker_rejected, nullptr},
    {"throttled", "calls throttled locally (per run)", Dim::count, &S::throttled, nullptr},
    {"injected", "attempts failed by injection (per run)", Dim::count, &S::injected, nullptr},
    {"deadline_lost", "requests lost at their deadline (per run)", Dim::count, &S::deadline_lost, nullptr}};

const Metric breaker_opened = {"breaker_opened", "times the breaker opened (per run)", Dim::count, &S::breaker_opened,
                               nullptr};
const std::vector<Metric> effects = {
    {"effects", "successful attempts that took effect (per run)", Dim::count, &S::effects, nullptr},
    {"duplicate_effects", "effects beyond a request's first (per run)", Dim::count, &S::duplicate_effects, nullptr},
    {"hidden_effects", "lost requests that took effect (per run)", Dim::count, &S::hidden_effects, nullptr}};
const Metric recovery = {"recovery_time", "recovery after the outage ({}; recovered runs)", Dim::time,
                         &S::recovery_time, &R::recovery_time};

bool shows_controls(const ServerOptions& o) {
  return o.budget != 0 || o.breaker != 0 || o.failure_prob > 0.0 || o.outage_end > 0.0 || !std::isinf(o.deadline);
}

}  // namespace

TimeUnit time_unit(const std::string& unit, double attempt_duration, bool given) {
  TimeUnit u;
  u.name = unit;
  if (unit == "attempt") {
    if (given && attempt_duration != 1.0)
      throw InputError("--attempt-duration",
                       fmt::format("must be 1 (or left out) with --unit attempt (got {})", attempt_duration));
    return u;
  }
  if (unit != "ms" && unit != "s") throw InputError("--unit", fmt::format("must be attempt, ms or s (got {})", unit));
  if (!given)
    throw InputError("--attempt-duration",
                     fmt::format("is required with --unit {}: the mean time of one attempt in {}", unit, unit));
  if (!(attempt_duration > 0.0) || !std::isfinite(attempt_duration))
    throw InputError("--attempt-duration", fmt::format("must be a finite number > 0 (got {})", attempt_duration));
  u.attempt_duration = attempt_duration;
  return u;
}

std::vector<const Metric*> shown_metrics(const Scenario& s, bool server_engine) {
  const ServerOptions& o = s.server;
  std::vector<const Metric*> out;
  for (const auto& m : base) out.push_back(&m);
  if (has_server_features(s) || server_engine)
    for (const auto& m : server) out.push_back(&m);
  if (shows_controls(o))
    for (const auto& m : controls) out.push_back(&m);
  if (o.breaker != 0) out.push_back(&breaker_opened);
  if (!std::isinf(o.timeout) || o.idempotency != Idempotency::none)
    for (const auto& m : effects) out.push_back(&m);
  if (o.recovery_window > 0.0) out.push_back(&recovery);
  return out;
}

std::vector<ProportionMetric> shown_proportions(const Scenario& s) {
  std::vector<ProportionMetric> out{{"collapsed", "collapsed (runs)", &S::collapsed},
                                    {"drained", "drained (runs with a burst)", &S::drained}};
  if (s.server.recovery_window > 0.0) out.push_back({"recovered", "recovered after the outage (runs)", &S::recovered});
  return out;
}

std::string metric_label(const Metric& m, const TimeUnit& u) {
  return fmt::format(fmt::runtime(m.label), m.dim == Dim::time ? u.plural() : u.singular());
}

MeanSummary in_unit(MeanSummary m, Dim d, const TimeUnit& u) {
  if (u.plain() || d == Dim::count) return m;
  m.mean = u.out(d, m.mean);
  m.sd = u.out(d, m.sd);
  m.ci95.lo = u.out(d, m.ci95.lo);
  m.ci95.hi = u.out(d, m.ci95.hi);
  return m;
}

FieldOutput field_output(const Field& f, double v, const TimeUnit& u) {
  switch (f.kind) {
    case FieldKind::choice:
    case FieldKind::on_off: return format_field(f, v);
    case FieldKind::integer: return static_cast<std::int64_t>(v);
    case FieldKind::number_or_none:
      if (std::isinf(v)) return std::string("none");
      [[fallthrough]];
    case FieldKind::number: return u.out(dim_of(f), v);
  }
  return std::string("none");
}

}  // namespace retrylab::montecarlo
