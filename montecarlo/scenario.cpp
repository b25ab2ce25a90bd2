#include "montecarlo/scenario.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/fields.hpp"

namespace retrylab::montecarlo {

namespace {
constexpr std::string_view service_names[] = {"deterministic", "exponential", "lognormal", "round-trip"};
constexpr std::string_view delay_names[] = {"fixed", "exponential", "normal"};
constexpr std::string_view overflow_names[] = {"reject", "queue"};
constexpr std::string_view retry_after_names[] = {"fixed", "uniform"};

template <class E, std::size_t N>
std::optional<E> parse_name(const std::string_view (&names)[N], std::string_view name) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

bool same_backoff(const Backoff& a, const Backoff& b) noexcept {
  return a.strategy == b.strategy && a.base == b.base && a.cap == b.cap && a.window == b.window;
}

void check_server(const ServerOptions& o) {
  if (o.service == ServiceDist::lognormal) {
    if (!(o.service_cv > 0.0) || !(o.service_cv <= max_service_cv))
      throw InputError("service_cv",
                       fmt::format("must be in (0, {}] for lognormal service (got {})", max_service_cv, o.service_cv));
  } else if (o.service_cv != 0.0) {
    throw InputError("service_cv", fmt::format("only applies to lognormal service: must be 0 with {} service (got {})",
                                               to_string(o.service), o.service_cv));
  }
  if (o.delay == 0.0 && o.delay_dist != DelayDist::fixed)
    throw InputError("delay_dist",
                     fmt::format("needs delay > 0 (got delay_dist={} with delay=0)", to_string(o.delay_dist)));
  if (o.delay_sd != 0.0 && o.delay_dist != DelayDist::normal)
    throw InputError("delay_sd", fmt::format("only applies to delay_dist normal: must be 0 with {} delay (got {})",
                                             to_string(o.delay_dist), o.delay_sd));
  if (o.service == ServiceDist::round_trip && !(o.delay > 0.0))
    throw InputError("service", "round-trip is two network legs: it needs delay > 0 (got delay=0)");
  if (o.aimd && o.limit != 0)
    throw InputError("limit", fmt::format("must be 0 with aimd (the adaptive limit replaces it) (got {})", o.limit));
  const bool limited = o.limit > 0 || o.aimd;
  if (o.overflow == Overflow::queue && !limited)
    throw InputError("overflow", "queue needs a concurrency limit (limit > 0 or aimd)");
  const bool rejects = limited && o.overflow == Overflow::reject;
  if (o.reject_cost > 0.0 && !rejects)
    throw InputError("reject_cost", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
  if (o.retry_after > 0.0 && !rejects)
    throw InputError("retry_after", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
  if (o.retry_after == 0.0 && o.retry_after_rule != RetryAfterRule::fixed)
    throw InputError("retry_after_rule", "needs retry_after > 0");
  if (o.ignore_retry_after > 0.0 && o.retry_after == 0.0)
    throw InputError("ignore_retry_after", "needs retry_after > 0");
  if (!o.aimd) {
    const Aimd& a = o.aimd_params;
    const Aimd da{};
    if (a.initial != da.initial || a.min != da.min || a.max != da.max || a.backoff != da.backoff ||
        a.timeout != da.timeout)
      throw InputError("aimd",
                       "must be on for aimd_initial, aimd_min, aimd_max, aimd_backoff or aimd_timeout to apply");
  } else {
    const Aimd& a = o.aimd_params;
    if (a.min < 1 || a.min > max_limit)
      throw InputError("aimd_min", fmt::format("must be in [1, {}] (got {})", max_limit, a.min));
    if (a.max < a.min || a.max > max_limit)
      throw InputError("aimd_max", fmt::format("must be in [aimd_min={}, {}] (got {})", a.min, max_limit, a.max));
    if (a.initial < a.min || a.initial > a.max)
      throw InputError("aimd_initial",
                       fmt::format("must be in [aimd_min={}, aimd_max={}] (got {})", a.min, a.max, a.initial));
    if (!(a.backoff >= 0.5 && a.backoff < 1.0))
      throw InputError("aimd_backoff", fmt::format("must be in [0.5, 1) (got {})", a.backoff));
    if (!(a.timeout > 0.0)) throw InputError("aimd_timeout", fmt::format("must be > 0 or +inf (got {})", a.timeout));
  }
  if (o.mix == 0.0 && !same_backoff(o.mix_backoff, ServerOptions{}.mix_backoff))
    throw InputError("mix", "must be > 0 for the mixed population's strategy, base, cap or window to apply");
  if (o.mix > 0.0) {
    try {
      check_backoff(o.mix_backoff);
    } catch (const InputError& e) {
      // Same rule, the mixed population's field: "mix_base must be ...".
      const std::string what = e.what();
      throw InputError("mix_" + e.field(), what.substr(e.field().size() + 1));
    }
  }
}

}  // namespace

std::string_view to_string(ServiceDist d) noexcept { return service_names[static_cast<int>(d)]; }
std::string_view to_string(DelayDist d) noexcept { return delay_names[static_cast<int>(d)]; }
std::string_view to_string(Overflow o) noexcept { return overflow_names[static_cast<int>(o)]; }
std::string_view to_string(RetryAfterRule r) noexcept { return retry_after_names[static_cast<int>(r)]; }
std::optional<ServiceDist> parse_service_dist(std::string_view n) noexcept {
  return parse_name<ServiceDist>(service_names, n);
}
std::optional<DelayDist> parse_delay_dist(std::string_view n) noexcept { return parse_name<DelayDist>(delay_names, n); }
std::optional<Overflow> parse_overflow(std::string_view n) noexcept { return parse_name<Overflow>(overflow_names, n); }
std::optional<RetryAfterRule> parse_retry_after_rule(std::string_view n) noexcept {
  return parse_name<RetryAfterRule>(retry_after_names, n);
}

bool has_server_features(const Scenario& s) noexcept {
  // Any field beyond the base ones, set, that the original loop does not implement (fields.hpp).
  for (const Field& f : scenario_fields())
    if (f.presence != Presence::always && !f.plain_loop && field_shown(f, s)) return true;
  return s.model == Model::none;  // only the full tier has injected failures
}

BudgetConfig budget_of(const ServerOptions& o) {
  BudgetConfig b = budget_preset(budget_preset_names[o.budget]);
  if (budget_preset_names[o.budget] == "token-bucket") {
    b.token_bucket.bucket = TokenBucket{o.bucket_capacity, o.bucket_cost, o.bucket_refund, o.bucket_threshold};
    b.token_bucket.timeout_cost = o.bucket_timeout_cost;
  }
  return b;
}

bool needs_clock(const ServerOptions& o) noexcept {
  const std::string_view budget = budget_preset_names[o.budget];
  return budget == "finagle" || budget == "sre-adaptive" || o.breaker != 0;
}

void check_scenario(const Scenario& s) {
  check_backoff(s.backoff);
  // Each field against its own range (the field table); the rules between fields follow.
  // Client slots are 32-bit indices and each costs memory: the table's bounds on clients and
  // collapse lie far above any study's needs.
  for (const Field& f : scenario_fields()) {
    if (std::string_view(f.name) == "horizon" && s.horizon == 0.0) continue;  // unset: see effective_horizon
    check_field(f, f.get(s));
  }
  if (s.clients == 0 && s.rate == 0.0)
    throw InputError("clients", "must be > 0 when --rate is 0 (no traffic: give a burst, steady traffic or both)");
  if (std::isnan(s.horizon) || s.horizon < 0.0 || std::isinf(s.horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", s.horizon));
  if (s.rate > 0.0 && s.horizon == 0.0)
    throw InputError("horizon",
                     fmt::format("is required with steady traffic (rate={}): give a finite time > 0", s.rate));
  const double h = effective_horizon(s);
  if (!(s.warmup >= 0.0) || !(s.warmup < h))
    throw InputError("warmup", fmt::format("must be >= 0 and < the horizon {} (got {})", h, s.warmup));
  check_server(s.server);
  const ServerOptions& o = s.server;
  const bool rejects = (o.limit > 0 || o.aimd) && o.overflow == Overflow::reject;
  const bool instant_reject =
      rejects && o.reject_cost == 0.0 && o.delay == 0.0 && !(o.retry_after > 0.0 && o.ignore_retry_after == 0.0);
  const bool some_none = (s.backoff.strategy == Strategy::none && o.mix < 1.0) ||
                         (o.mix > 0.0 && o.mix_backoff.strategy == Strategy::none);
  if (!s.retries && (o.timeout != ServerOptions{}.timeout || o.max_attempts != 0))
    throw InputError(o.max_attempts != 0 ? "max_attempts" : "timeout",
                     "needs retries on (with retries off every client makes exactly one attempt)");
  const bool controls = o.budget != 0 || o.breaker != 0;
  if (!s.retries && (controls || o.deadline != ServerOptions{}.deadline))
    throw InputError(o.deadline != ServerOptions{}.deadline ? "deadline"
                     : controls && o.budget != 0            ? "budget"
                                                            : "breaker",
                     "needs retries on (with retries off every client makes exactly one attempt)");
  if (o.outage_end != 0.0 && !(o.outage_end > o.outage_start))
    throw InputError("outage_end", fmt::format("must be > outage_start={} (got {})", o.outage_start, o.outage_end));
  if (o.outage_end == 0.0 && (o.outage_start != 0.0 || o.outage_fraction != 1.0))
    throw InputError("outage_end",
                     "must be > outage_start for outage_start or outage_fraction to apply (0 = no outage)");
  if (o.recovery_window > 0.0 && o.outage_end == 0.0)
    throw InputError("recovery_window", "needs an outage (outage_end > 0): recovery is measured after it");
  if (o.settle && s.retries && o.max_attempts == 0 && o.deadline == ServerOptions{}.deadline)
    throw InputError("settle", "needs max_attempts > 0 or a deadline (or retries off): every request must resolve");
  {
    const ServerOptions d{};
    const bool bucket_set = o.bucket_capacity != d.bucket_capacity || o.bucket_cost != d.bucket_cost ||
                            o.bucket_timeout_cost != d.bucket_timeout_cost || o.bucket_refund != d.bucket_refund ||
                            o.bucket_threshold != d.bucket_threshold;
    if (bucket_set && budget_preset_names[o.budget] != "token-bucket")
      throw InputError("budget", "must be token-bucket for the bucket_* fields to apply");
    try {
      check_budget(budget_of(o));
    } catch (const InputError& e) {
      // The bucket's own names (capacity, cost, ...) as the scenario spells them.
      const std::string f = e.field();
      const std::string field = f == "capacity"       ? "bucket_capacity"
                                : f == "cost"         ? "bucket_cost"
                                : f == "timeout_cost" ? "bucket_timeout_cost"
                                : f == "refund"       ? "bucket_refund"
                                : f == "threshold"    ? "bucket_threshold"
                                                      : f;
      throw InputError(field, std::string(e.what()).substr(f.size() + 1));
    }
  }
  if (needs_clock(o) && !(o.attempt_ms > 0.0))
    throw InputError("attempt_ms", fmt::format("must be > 0 with budget={} breaker={}: their windows are in ms (give "
                                               "--unit ms or s with --attempt-duration)",
                                               budget_preset_names[o.budget], breaker_preset_names[o.breaker]));
  const bool local_rejects = o.breaker != 0 || std::string_view(budget_preset_names[o.budget]) == "sre-adaptive";
  // A deadline does not end this: the clock never moves past the instant the retries repeat at.
  if (local_rejects && some_none && s.retries && o.max_attempts == 0)
    throw InputError(o.breaker != 0 ? "breaker" : "budget",
                     "needs max_attempts > 0 when clients on strategy none can be rejected locally: "
                     "they would retry at one instant forever (a deadline never comes)");
  if (instant_reject && some_none && s.retries)
    throw InputError("reject_cost",
                     "must be > 0 (or delay > 0, or a Retry-After every client honours) when clients "
                     "on strategy none can be rejected: they would retry at one instant forever");
}

double effective_horizon(const Scenario& s) {
  return s.horizon == 0.0 && s.rate == 0.0 ? default_burst_horizon : s.horizon;
}

std::string canonical(const Scenario& s) {
  // The field table decides what is printed and how (montecarlo/fields.hpp): the base fields always,
  // every other field only when it differs from its default (a group whole when its switch is on).
  std::string out;
  for (const Field& f : scenario_fields()) {
    if (!field_shown(f, s)) continue;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", f.name, format_field(f, field_value(f, s)));
  }
  return out;
}

std::uint64_t stable_hash(const Scenario& s) { return fnv1a64(canonical(s)); }

void check_run_plan(const RunPlan& p) {
  if (p.runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", p.runs));
  if (p.threads < 0) throw InputError("threads", fmt::format("must be >= 0 (0 = all cores) (got {})", p.threads));
}

}  // namespace retrylab::montecarlo
