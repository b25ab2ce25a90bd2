#include "montecarlo/scenario.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/fields.hpp"

namespace retrylab::montecarlo {

namespace {

template <class E, std::size_t N>
std::optional<E> parse_name(const std::string_view (&names)[N], std::string_view name) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
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

Scenario without_server_options(const Scenario& s) {
  Scenario p;
  p.model = s.model;
  p.backoff = s.backoff;
  p.traffic = s.traffic;
  p.measurement.horizon = s.measurement.horizon;
  p.measurement.warmup = s.measurement.warmup;
  p.measurement.collapse = s.measurement.collapse;
  p.client.retries = s.client.retries;
  return p;
}

bool has_server_features(const Scenario& s) noexcept {
  // Any field beyond the base ones, set, that the original loop does not implement (fields.hpp).
  for (const Field& f : scenario_fields())
    if (f.presence != Presence::always && !f.plain_loop && field_shown(f, s)) return true;
  // Only the full tier has injected failures and the load profile's thinning.
  return s.model == Model::none || s.traffic.load_profile.set();
}

bool needs_clock(const ClientPolicy& c) noexcept {
  const std::string_view budget = budget_preset_names[c.budget.preset];
  return budget == "finagle" || budget == "sre-adaptive" || c.breaker.on() || c.adaptive_rate;
}

void check_scenario(const Scenario& s) {
  check_backoff(s.backoff);
  // Each field against its own range (the field table); the rules between fields follow.
  // Client slots are 32-bit indices and each costs memory: the table's bounds on clients and
  // collapse lie far above any study's needs.
  for (const Field& f : scenario_fields()) {
    if (std::string_view(f.name) == "horizon" && s.measurement.horizon == 0.0)
      continue;  // unset: see effective_horizon
    if (f.kind != FieldKind::text) check_field(f, f.get(s));
  }
  s.traffic.load_profile.check();  // a text field's own ranges (its parser checked it as typed)
  if (s.traffic.clients == 0 && candidate_rate(s) == 0.0)
    throw InputError("clients", "must be > 0 when `rate` is 0 (no traffic: give a burst, steady traffic or both)");
  if (std::isnan(s.measurement.horizon) || s.measurement.horizon < 0.0 || std::isinf(s.measurement.horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", s.measurement.horizon));
  if (s.traffic.load_profile.set() && s.measurement.horizon == 0.0)
    throw InputError("horizon", "is required with a load_profile: give a finite time > 0");
  if (s.traffic.rate > 0.0 && s.measurement.horizon == 0.0)
    throw InputError("horizon",
                     fmt::format("is required with steady traffic (rate={}): give a finite time > 0", s.traffic.rate));
  const double h = effective_horizon(s);
  if (!(s.measurement.warmup >= 0.0) || !(s.measurement.warmup < h))
    throw InputError("warmup", fmt::format("must be >= 0 and < the horizon {} (got {})", h, s.measurement.warmup));
  check_component_rules(s);  // each component's rules between its parameters and the rest
  const Scenario& o = s;
  const bool rejects = (o.admission.limit > 0 || o.admission.aimd) && o.admission.overflow == Overflow::reject;
  const bool instant_reject = rejects && o.admission.reject_cost == 0.0 && o.resource.delay == 0.0 &&
                              !(o.admission.retry_after > 0.0 && o.client.ignore_retry_after == 0.0);
  const bool some_none = (s.backoff.strategy == Strategy::none && o.client.mix < 1.0) ||
                         (o.client.mix > 0.0 && o.client.mix_backoff.strategy == Strategy::none);
  if (needs_clock(o.client) && !(o.client.attempt_ms > 0.0))
    throw InputError("attempt_ms", fmt::format("must be > 0 with budget={} breaker={}: their windows are in ms (give "
                                               "`unit=ms` or s with `attempt_duration`)",
                                               budget_preset_names[o.client.budget.preset],
                                               breaker_preset_names[o.client.breaker.preset]));
  // The first component on that may refuse a call locally (its refuses_locally trait).
  const std::string_view local_rejects = first_refusing_component(s);
  // A deadline does not end this: the clock never moves past the instant the retries repeat at.
  if (!local_rejects.empty() && some_none && s.client.retries && o.client.max_attempts == 0)
    throw InputError(std::string(local_rejects),
                     "needs max_attempts > 0 when clients on strategy none can be rejected locally: "
                     "they would retry at one instant forever (a deadline never comes)");
  if (instant_reject && some_none && s.client.retries)
    throw InputError("reject_cost",
                     "must be > 0 (or delay > 0, or a Retry-After every client honours) when clients "
                     "on strategy none can be rejected: they would retry at one instant forever");
}

double effective_horizon(const Scenario& s) {
  return s.measurement.horizon == 0.0 && candidate_rate(s) == 0.0 ? default_burst_horizon : s.measurement.horizon;
}

std::string canonical(const Scenario& s) {
  // The field table decides what is printed and how (montecarlo/fields.hpp): the base fields always,
  // every other field only when it differs from its default (a group whole when its switch is on).
  std::string out;
  for (const Field& f : scenario_fields()) {
    if (!field_shown(f, s)) continue;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", f.name, field_text(f, s));
  }
  return out;
}

std::uint64_t stable_hash(const Scenario& s) { return fnv1a64(canonical(s)); }

void check_run_plan(const RunPlan& p) {
  if (p.runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", p.runs));
  if (p.threads < 0) throw InputError("threads", fmt::format("must be >= 0 (0 = all cores) (got {})", p.threads));
}

}  // namespace retrylab::montecarlo
