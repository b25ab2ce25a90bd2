#include "montecarlo/scenario.hpp"

#include <cmath>
#include <fmt/format.h>

#include "analytic/error.hpp"

namespace retrylab::montecarlo {

namespace {
constexpr std::string_view service_names[] = {"deterministic", "exponential", "lognormal"};
constexpr std::string_view delay_names[] = {"fixed", "exponential"};
constexpr std::string_view overflow_names[] = {"reject", "queue"};
constexpr std::string_view retry_after_names[] = {"fixed", "uniform"};

template <class E, std::size_t N>
std::optional<E> parse_name(const std::string_view (&names)[N], std::string_view name) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

bool finite_at_least(double x, double lo) noexcept { return x >= lo && std::isfinite(x); }
bool in_unit(double x) noexcept { return x >= 0.0 && x <= 1.0; }

bool same_backoff(const Backoff& a, const Backoff& b) noexcept {
  return a.strategy == b.strategy && a.base == b.base && a.cap == b.cap && a.window == b.window;
}

void check_server(const ServerOptions& o) {
  if (o.rows < 1 || o.rows > max_rows)
    throw InputError("rows", fmt::format("must be in [1, {}] (got {})", max_rows, o.rows));
  if (o.service == ServiceDist::lognormal) {
    if (!(o.service_cv > 0.0) || !(o.service_cv <= max_service_cv))
      throw InputError("service_cv", fmt::format("must be in (0, {}] for lognormal service (got {})", max_service_cv,
                                                 o.service_cv));
  } else if (o.service_cv != 0.0) {
    throw InputError("service_cv", fmt::format("only applies to lognormal service: must be 0 with {} service (got {})",
                                               to_string(o.service), o.service_cv));
  }
  if (!finite_at_least(o.delay, 0.0))
    throw InputError("delay", fmt::format("must be a finite number >= 0 (got {})", o.delay));
  if (o.delay == 0.0 && o.delay_dist != DelayDist::fixed)
    throw InputError("delay_dist", fmt::format("needs delay > 0 (got delay_dist={} with delay=0)",
                                               to_string(o.delay_dist)));
  if (o.limit < 0 || o.limit > max_limit)
    throw InputError("limit", fmt::format("must be in [0, {}] (0 = none) (got {})", max_limit, o.limit));
  if (o.aimd && o.limit != 0)
    throw InputError("limit", fmt::format("must be 0 with aimd (the adaptive limit replaces it) (got {})", o.limit));
  const bool limited = o.limit > 0 || o.aimd;
  if (o.overflow == Overflow::queue && !limited)
    throw InputError("overflow", "queue needs a concurrency limit (limit > 0 or aimd)");
  if (!in_unit(o.reject_cost))
    throw InputError("reject_cost", fmt::format("must be in [0, 1] (got {})", o.reject_cost));
  const bool rejects = limited && o.overflow == Overflow::reject;
  if (o.reject_cost > 0.0 && !rejects)
    throw InputError("reject_cost", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
  if (!finite_at_least(o.retry_after, 0.0))
    throw InputError("retry_after", fmt::format("must be a finite number >= 0 (got {})", o.retry_after));
  if (o.retry_after > 0.0 && !rejects)
    throw InputError("retry_after", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
  if (o.retry_after == 0.0 && o.retry_after_rule != RetryAfterRule::fixed)
    throw InputError("retry_after_rule", "needs retry_after > 0");
  if (!in_unit(o.ignore_retry_after))
    throw InputError("ignore_retry_after", fmt::format("must be in [0, 1] (got {})", o.ignore_retry_after));
  if (o.ignore_retry_after > 0.0 && o.retry_after == 0.0)
    throw InputError("ignore_retry_after", "needs retry_after > 0");
  if (!o.aimd) {
    const Aimd& a = o.aimd_params;
    const Aimd da{};
    if (a.initial != da.initial || a.min != da.min || a.max != da.max || a.backoff != da.backoff || a.timeout != da.timeout)
      throw InputError("aimd", "must be on for aimd_initial, aimd_min, aimd_max, aimd_backoff or aimd_timeout to apply");
  } else {
    const Aimd& a = o.aimd_params;
    if (a.min < 1 || a.min > max_limit)
      throw InputError("aimd_min", fmt::format("must be in [1, {}] (got {})", max_limit, a.min));
    if (a.max < a.min || a.max > max_limit)
      throw InputError("aimd_max", fmt::format("must be in [aimd_min={}, {}] (got {})", a.min, max_limit, a.max));
    if (a.initial < a.min || a.initial > a.max)
      throw InputError("aimd_initial", fmt::format("must be in [aimd_min={}, aimd_max={}] (got {})", a.min, a.max,
                                                   a.initial));
    if (!(a.backoff >= 0.5 && a.backoff < 1.0))
      throw InputError("aimd_backoff", fmt::format("must be in [0.5, 1) (got {})", a.backoff));
    if (!(a.timeout > 0.0))
      throw InputError("aimd_timeout", fmt::format("must be > 0 or +inf (got {})", a.timeout));
  }
  if (!in_unit(o.mix)) throw InputError("mix", fmt::format("must be in [0, 1] (got {})", o.mix));
  if (o.mix == 0.0 && !same_backoff(o.mix_backoff, ServerOptions{}.mix_backoff))
    throw InputError("mix", "must be > 0 for the mixed population's strategy, base, cap or window to apply");
  if (!(o.timeout > 0.0))
    throw InputError("timeout", fmt::format("must be > 0 (attempt-durations) or +inf for none (got {})", o.timeout));
  if (o.max_attempts < 0 || o.max_attempts > max_limit)
    throw InputError("max_attempts", fmt::format("must be in [1, {}], or 0 for unlimited (got {})", max_limit, o.max_attempts));
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
  const ServerOptions& o = s.server;
  const ServerOptions d{};
  return o.rows != d.rows || o.service != d.service || o.service_cv != d.service_cv || o.delay != d.delay ||
         o.delay_dist != d.delay_dist || o.lock != d.lock || o.limit != d.limit || o.overflow != d.overflow ||
         o.reject_cost != d.reject_cost || o.retry_after != d.retry_after ||
         o.retry_after_rule != d.retry_after_rule || o.ignore_retry_after != d.ignore_retry_after ||
         o.aimd != d.aimd || o.mix != d.mix || o.timeout != d.timeout || o.max_attempts != d.max_attempts;
}

void check_scenario(const Scenario& s) {
  check_backoff(s.backoff);
  // Client slots are 32-bit indices and each costs memory: bounds far above any study's needs.
  if (s.clients < 0 || s.clients > max_clients)
    throw InputError("clients", fmt::format("must be in [0, {}] (got {})", max_clients, s.clients));
  if (!(s.rate >= 0.0) || !std::isfinite(s.rate))
    throw InputError("rate", fmt::format("must be a finite number >= 0 (got {})", s.rate));
  if (s.clients == 0 && s.rate == 0.0)
    throw InputError("clients", "must be > 0 when --rate is 0 (no traffic: give a burst, steady traffic or both)");
  if (std::isnan(s.horizon) || s.horizon < 0.0 || std::isinf(s.horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", s.horizon));
  if (s.rate > 0.0 && s.horizon == 0.0)
    throw InputError("horizon", fmt::format("is required with steady traffic (rate={}): give a finite time > 0", s.rate));
  const double h = effective_horizon(s);
  if (!(s.warmup >= 0.0) || !(s.warmup < h))
    throw InputError("warmup", fmt::format("must be >= 0 and < the horizon {} (got {})", h, s.warmup));
  if (s.collapse < 1 || s.collapse > max_collapse)
    throw InputError("collapse", fmt::format("must be in [1, {}] (got {})", max_collapse, s.collapse));
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
  if (instant_reject && some_none && s.retries)
    throw InputError("reject_cost", "must be > 0 (or delay > 0, or a Retry-After every client honours) when clients "
                                    "on strategy none can be rejected: they would retry at one instant forever");
}

double effective_horizon(const Scenario& s) {
  return s.horizon == 0.0 && s.rate == 0.0 ? default_burst_horizon : s.horizon;
}

namespace {
// Each server option only when it differs from its default (scenarios without them keep their
// canonical strings, hashes and results). Options that only mean something under another one
// (aimd parameters, the mixed population's backoff) follow it.
std::string canonical_server(const ServerOptions& o) {
  const ServerOptions d{};
  std::string out;
  if (o.rows != d.rows) out += fmt::format(" rows={}", o.rows);
  if (o.service != d.service) out += fmt::format(" service={}", to_string(o.service));
  if (o.service_cv != d.service_cv) out += fmt::format(" service_cv={}", o.service_cv);
  if (o.delay != d.delay) out += fmt::format(" delay={}", o.delay);
  if (o.delay_dist != d.delay_dist) out += fmt::format(" delay_dist={}", to_string(o.delay_dist));
  if (o.lock != d.lock) out += " lock=on";
  if (o.limit != d.limit) out += fmt::format(" limit={}", o.limit);
  if (o.overflow != d.overflow) out += fmt::format(" overflow={}", to_string(o.overflow));
  if (o.reject_cost != d.reject_cost) out += fmt::format(" reject_cost={}", o.reject_cost);
  if (o.retry_after != d.retry_after) out += fmt::format(" retry_after={}", o.retry_after);
  if (o.retry_after_rule != d.retry_after_rule) out += fmt::format(" retry_after_rule={}", to_string(o.retry_after_rule));
  if (o.ignore_retry_after != d.ignore_retry_after) out += fmt::format(" ignore_retry_after={}", o.ignore_retry_after);
  if (o.aimd) {
    const Aimd& a = o.aimd_params;
    out += fmt::format(" aimd=on aimd_initial={} aimd_min={} aimd_max={} aimd_backoff={} aimd_timeout={}", a.initial,
                       a.min, a.max, a.backoff, format_cap(a.timeout));
  }
  if (o.mix != d.mix) {
    const Backoff& b = o.mix_backoff;
    const double window = b.strategy == Strategy::window ? b.window : 0.0;
    out += fmt::format(" mix={} mix_strategy={} mix_base={} mix_cap={} mix_window={}", o.mix, to_string(b.strategy),
                       b.base, format_cap(b.cap), window);
  }
  if (o.timeout != d.timeout) out += fmt::format(" timeout={}", o.timeout);
  if (o.max_attempts != d.max_attempts) out += fmt::format(" max_attempts={}", o.max_attempts);
  return out;
}
}  // namespace

std::string canonical(const Scenario& s) {
  // The window only means something to the window strategy; elsewhere it is canonically 0, so a
  // stray --window does not change a scenario's random numbers.
  const double window = s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0;
  return fmt::format("model={} strategy={} base={} cap={} window={} clients={} rate={} horizon={} warmup={} "
                     "collapse={} retries={}",
                     to_string(s.model), to_string(s.backoff.strategy), s.backoff.base, format_cap(s.backoff.cap),
                     window, s.clients, s.rate, effective_horizon(s), s.warmup, s.collapse,
                     s.retries ? "on" : "off") +
         canonical_server(s.server);
}

std::uint64_t fnv1a64(std::string_view text) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;  // FNV prime
  }
  return h;
}

std::uint64_t stable_hash(const Scenario& s) { return fnv1a64(canonical(s)); }

void check_run_plan(const RunPlan& p) {
  if (p.runs < 1) throw InputError("runs", fmt::format("must be >= 1 (got {})", p.runs));
  if (p.threads < 0) throw InputError("threads", fmt::format("must be >= 0 (0 = all cores) (got {})", p.threads));
}

}  // namespace retrylab::montecarlo
