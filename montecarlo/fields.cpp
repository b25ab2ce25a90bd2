#include "montecarlo/fields.hpp"

#include <fmt/format.h>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"

namespace retrylab::montecarlo {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

constexpr std::string_view model_choices[] = {"collision", "free", "shared", "ps", "none"};
constexpr std::string_view idempotency_choices[] = {"none", "per-attempt", "fixed"};
constexpr std::string_view strategy_choices[] = {"none",         "nojitter", "full",      "equal",
                                                 "decorrelated", "window",   "memoryless"};
constexpr std::string_view service_choices[] = {"deterministic", "exponential", "lognormal", "round-trip"};
constexpr std::string_view delay_choices[] = {"fixed", "exponential", "normal"};
constexpr std::string_view overflow_choices[] = {"reject", "queue"};
constexpr std::string_view retry_after_choices[] = {"fixed", "uniform"};

double index(auto e) { return static_cast<double>(static_cast<int>(e)); }

// One accessor pair per member; enums by index, booleans as 1/0, integers exactly (|v| < 2^53).
#define RL_REAL(path) [](const Scenario& s) { return s.path; }, [](Scenario& s, double v) { s.path = v; }
#define RL_INT(path)                                             \
  [](const Scenario& s) { return static_cast<double>(s.path); }, \
      [](Scenario& s, double v) { s.path = static_cast<std::int64_t>(v); }
#define RL_BOOL(path) \
  [](const Scenario& s) { return s.path ? 1.0 : 0.0; }, [](Scenario& s, double v) { s.path = v != 0.0; }
#define RL_INT_CHOICE(path)                                      \
  [](const Scenario& s) { return static_cast<double>(s.path); }, \
      [](Scenario& s, double v) { s.path = static_cast<int>(v); }
#define RL_ENUM(path)                              \
  [](const Scenario& s) { return index(s.path); }, \
      [](Scenario& s, double v) { s.path = static_cast<decltype(s.path)>(static_cast<int>(v)); }

constexpr auto N = FieldKind::number, I = FieldKind::integer, C = FieldKind::choice, B = FieldKind::on_off,
               X = FieldKind::number_or_none;
constexpr auto none = FieldUnit::none, time = FieldUnit::time, per_time = FieldUnit::per_time;
constexpr auto always = Presence::always, if_set = Presence::if_set, with_aimd = Presence::with_aimd,
               with_mix = Presence::with_mix;
constexpr double big_clients = static_cast<double>(max_clients), big_collapse = static_cast<double>(max_collapse),
                 big_rows = static_cast<double>(max_rows), big_limit = static_cast<double>(max_limit);

// Order: the canonical string's, which is also the order in which a study grid expands (outermost
// first). New fields go at the end, so every earlier scenario keeps its canonical string and points.
const Field table[] = {
    {"model", C, none, always, 0, 0, false, false, model_choices,
     "contention model: collision (pure ALOHA), free (first commit wins, failures free), shared (first commit "
     "wins on a processor-sharing server), ps (processor sharing, no conflicts), none (an uncontended dependency: "
     "attempts fail only by injected failure)",
     RL_ENUM(model)},
    {"strategy", C, none, always, 0, 0, false, false, strategy_choices,
     "backoff strategy between attempts (needed only with retries on)", RL_ENUM(backoff.strategy)},
    {"base", N, time, always, 0, inf, true, true, {}, "base b of the backoff", RL_REAL(backoff.base)},
    {"cap", X, time, always, 0, inf, true, false, {}, "cap c on every sleep (>= base), or none", RL_REAL(backoff.cap)},
    {"window",
     N,
     time,
     always,
     0,
     inf,
     false,
     true,
     {},
     "window W of the window strategy (> 0 with it)",
     RL_REAL(backoff.window),
     [](const Scenario& s) { return s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0; }},
    {"clients",
     I,
     none,
     always,
     0,
     big_clients,
     false,
     false,
     {},
     "burst: N clients arriving together at t = 0",
     RL_INT(clients)},
    {"rate",
     N,
     per_time,
     always,
     0,
     inf,
     false,
     true,
     {},
     "steady Poisson arrivals per unit of time on [0, horizon)",
     RL_REAL(rate)},
    {"horizon",
     N,
     time,
     always,
     0,
     inf,
     true,
     true,
     {},
     "stop time T (required with steady traffic; pure bursts run until every client succeeded)",
     RL_REAL(horizon),
     [](const Scenario& s) { return effective_horizon(s); },
     "1e7 for a pure burst, required with rate > 0"},
    {"warmup",
     N,
     time,
     always,
     0,
     inf,
     false,
     true,
     {},
     "rates and averages are measured over [warmup, stop)",
     RL_REAL(warmup)},
    {"collapse",
     I,
     none,
     always,
     1,
     big_collapse,
     false,
     false,
     {},
     "K: a run collapses (stops) when K clients wait at once",
     RL_INT(collapse)},
    {"retries",
     B,
     none,
     always,
     0,
     1,
     false,
     false,
     {},
     "on: retry until success; off: one attempt per client",
     RL_BOOL(retries)},
    {"rows",
     I,
     none,
     if_set,
     1,
     big_rows,
     false,
     false,
     {},
     "M rows, each attempt on one uniformly at random; conflicts only within a row",
     RL_INT(server.rows)},
    {"service", C, none, if_set, 0, 0, false, false, service_choices,
     "service requirement of an attempt (mean 1), or round-trip: two network legs of the delay distribution",
     RL_ENUM(server.service)},
    {"service_cv",
     N,
     none,
     if_set,
     0,
     max_service_cv,
     false,
     false,
     {},
     "coefficient of variation of lognormal service (> 0 with it, else 0)",
     RL_REAL(server.service_cv)},
    {"delay", N, time, if_set, 0, inf, false, true, {}, "one-way network delay, each way", RL_REAL(server.delay)},
    {"delay_dist", C, none, if_set, 0, 0, false, false, delay_choices,
     "network delay: fixed, exponential with mean delay, or normal: the absolute value of Normal(delay, delay_sd)",
     RL_ENUM(server.delay_dist)},
    {"lock",
     B,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "on: a FIFO lock per row (attempts wait, then run alone)",
     RL_BOOL(server.lock)},
    {"limit",
     I,
     none,
     if_set,
     0,
     big_limit,
     false,
     false,
     {},
     "concurrency limit: at most L attempts admitted at once (0 = none)",
     RL_INT(server.limit)},
    {"overflow", C, none, if_set, 0, 0, false, false, overflow_choices,
     "an attempt over the limit: rejected at once, or queued (FIFO)", RL_ENUM(server.overflow)},
    {"reject_cost",
     N,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "work of a rejection, as a fraction of an attempt's",
     RL_REAL(server.reject_cost)},
    {"retry_after",
     N,
     time,
     if_set,
     0,
     inf,
     false,
     true,
     {},
     "Retry-After sent with rejections (0 = none)",
     RL_REAL(server.retry_after)},
    {"retry_after_rule", C, none, if_set, 0, 0, false, false, retry_after_choices,
     "fixed: exactly retry_after; uniform: U(0, 2 retry_after)", RL_ENUM(server.retry_after_rule)},
    {"ignore_retry_after",
     N,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "fraction of clients that ignore Retry-After",
     RL_REAL(server.ignore_retry_after)},
    {"aimd",
     B,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "on: adaptive concurrency limit (AIMD rules of Netflix concurrency-limits)",
     RL_BOOL(server.aimd)},
    {"aimd_initial",
     I,
     none,
     with_aimd,
     1,
     big_limit,
     false,
     false,
     {},
     "AIMD initial limit (aimd_min..aimd_max)",
     RL_INT(server.aimd_params.initial)},
    {"aimd_min",
     I,
     none,
     with_aimd,
     1,
     big_limit,
     false,
     false,
     {},
     "AIMD minimum limit",
     RL_INT(server.aimd_params.min)},
    {"aimd_max",
     I,
     none,
     with_aimd,
     1,
     big_limit,
     false,
     false,
     {},
     "AIMD maximum limit (>= aimd_min)",
     RL_INT(server.aimd_params.max)},
    {"aimd_backoff",
     N,
     none,
     with_aimd,
     0.5,
     1,
     false,
     true,
     {},
     "AIMD decrease ratio on a drop",
     RL_REAL(server.aimd_params.backoff)},
    {"aimd_timeout",
     X,
     time,
     with_aimd,
     0,
     inf,
     true,
     false,
     {},
     "AIMD: an attempt admitted longer ago than this counts as a drop, or none",
     RL_REAL(server.aimd_params.timeout)},
    {"mix",
     N,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "fraction of clients on the mixed-in backoff (mix_*)",
     RL_REAL(server.mix)},
    {"mix_strategy", C, none, with_mix, 0, 0, false, false, strategy_choices, "backoff of the mixed-in clients",
     RL_ENUM(server.mix_backoff.strategy)},
    {"mix_base",
     N,
     time,
     with_mix,
     0,
     inf,
     true,
     true,
     {},
     "base of the mixed-in clients' backoff",
     RL_REAL(server.mix_backoff.base)},
    {"mix_cap",
     X,
     time,
     with_mix,
     0,
     inf,
     true,
     false,
     {},
     "cap of the mixed-in clients' backoff, or none",
     RL_REAL(server.mix_backoff.cap)},
    {"mix_window",
     N,
     time,
     with_mix,
     0,
     inf,
     false,
     true,
     {},
     "window of the mixed-in clients (window strategy)",
     RL_REAL(server.mix_backoff.window),
     [](const Scenario& s) {
       return s.server.mix_backoff.strategy == Strategy::window ? s.server.mix_backoff.window : 0.0;
     }},
    {"timeout",
     X,
     time,
     if_set,
     0,
     inf,
     true,
     false,
     {},
     "client timeout per attempt, or none; the server still does the work (needs retries on)",
     RL_REAL(server.timeout)},
    {"max_attempts",
     I,
     none,
     if_set,
     0,
     big_limit,
     false,
     false,
     {},
     "retry limit: a client gives up (a lost request) after this many attempts (0 = unlimited)",
     RL_INT(server.max_attempts)},
    {"multiplier",
     N,
     none,
     if_set,
     1,
     max_multiplier,
     false,
     false,
     {},
     "growth m of the exponential windows, w_k = min(cap, base m^(k-1)); 1 gives constant backoff",
     RL_REAL(backoff.multiplier),
     nullptr,
     {},
     true},
    {"deadline",
     X,
     time,
     if_set,
     0,
     inf,
     true,
     false,
     {},
     "request deadline: no attempt starts later than arrival + deadline; a client whose backoff would wake "
     "it later gives up (lost), or none",
     RL_REAL(server.deadline)},
    {"failure_prob",
     N,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "injected failures: probability that an attempt which would succeed fails instead (commits nothing)",
     RL_REAL(server.failure_prob)},
    {"outage_start",
     N,
     time,
     if_set,
     0,
     inf,
     false,
     true,
     {},
     "start of an outage window (see outage_end)",
     RL_REAL(server.outage_start)},
    {"outage_end",
     N,
     time,
     if_set,
     0,
     inf,
     false,
     true,
     {},
     "end of the outage window [outage_start, outage_end) (0 = no outage)",
     RL_REAL(server.outage_end)},
    {"outage_fraction",
     N,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "failure probability inside the outage window (1 = a total outage)",
     RL_REAL(server.outage_fraction)},
    {"budget", C, none, if_set, 0, 0, false, false, budget_preset_names,
     "retry budget of every client (preset of its library): a retry it refuses ends the request (lost)",
     RL_INT_CHOICE(server.budget)},
    {"breaker", C, none, if_set, 0, 0, false, false, breaker_preset_names,
     "circuit breaker of every client (preset of its library): a call it rejects fails at once, unsent",
     RL_INT_CHOICE(server.breaker)},
    {"attempt_ms",
     N,
     none,
     if_set,
     0,
     inf,
     false,
     true,
     {},
     "milliseconds per attempt-duration, for the controls whose windows keep time (set by --unit)",
     RL_REAL(server.attempt_ms)},
    {"idempotency", C, none, if_set, 0, 0, false, false, idempotency_choices,
     "idempotency key: none or per-attempt (every successful attempt takes effect), fixed (only the first)",
     RL_ENUM(server.idempotency)},
    {"recovery_window",
     N,
     time,
     if_set,
     0,
     inf,
     false,
     true,
     {},
     "bin width for recovery_time after the outage (0 = not measured; needs an outage)",
     RL_REAL(server.recovery_window)},
    {"bucket_capacity",
     N,
     none,
     if_set,
     0,
     1e12,
     true,
     false,
     {},
     "token-bucket budget: tokens, initial and most (budget = token-bucket)",
     RL_REAL(server.bucket_capacity)},
    {"bucket_cost",
     N,
     none,
     if_set,
     0,
     1e12,
     true,
     false,
     {},
     "token-bucket budget: tokens a retry takes",
     RL_REAL(server.bucket_cost)},
    {"bucket_timeout_cost",
     N,
     none,
     if_set,
     0,
     1e12,
     true,
     false,
     {},
     "token-bucket budget: tokens a retry after a timeout takes",
     RL_REAL(server.bucket_timeout_cost)},
    {"bucket_refund",
     N,
     none,
     if_set,
     0,
     1e12,
     false,
     false,
     {},
     "token-bucket budget: tokens a success returns",
     RL_REAL(server.bucket_refund)},
    {"bucket_threshold",
     N,
     none,
     if_set,
     0,
     1e12,
     false,
     false,
     {},
     "token-bucket budget: a retry is allowed only while the tokens stay >= this (< bucket_capacity)",
     RL_REAL(server.bucket_threshold)},
    {"settle",
     B,
     none,
     if_set,
     0,
     1,
     false,
     false,
     {},
     "on: arrivals stop at the horizon, the run goes on until every request resolves and every attempt "
     "has ended at the server (needs max_attempts or a deadline)",
     RL_BOOL(server.settle)},
    {"delay_sd",
     N,
     time,
     if_set,
     0,
     inf,
     false,
     true,
     {},
     "sd of each network leg with delay_dist normal (0 = every leg exactly delay)",
     RL_REAL(server.delay_sd)},
};

#undef RL_REAL
#undef RL_INT
#undef RL_BOOL
#undef RL_ENUM
#undef RL_INT_CHOICE

std::string number_text(double x) {
  if (std::isinf(x)) return x > 0 ? "+inf" : "-inf";
  return fmt::format("{}", x);
}

std::string choices_text(const Field& f, std::string_view last_joiner) {
  std::string out;
  for (std::size_t i = 0; i < f.choices.size(); ++i) {
    if (i > 0) out += i + 1 == f.choices.size() ? last_joiner : std::string_view(", ");
    out += f.choices[i];
  }
  return out;
}

// The numeric interval, "[0, 1]", "(0, +inf)".
std::string range_text_of(const Field& f) {
  return fmt::format("{}{}, {}{}", f.lo_open ? "(" : "[", number_text(f.lo), number_text(f.hi),
                     f.hi_open || std::isinf(f.hi) ? ")" : "]");
}

// "must be ..." as the CLI and spec errors print it.
std::string rule_text(const Field& f) {
  switch (f.kind) {
    case FieldKind::choice: return "must be " + choices_text(f, " or ");
    case FieldKind::on_off: return "must be on or off";
    case FieldKind::number_or_none:
      if (f.lo == 0.0 && f.lo_open && std::isinf(f.hi)) return "must be a number > 0 or \"none\"";
      return "must be in " + range_text_of(f) + " or \"none\"";
    case FieldKind::number:
      if (f.lo == 0.0 && std::isinf(f.hi))
        return f.lo_open ? "must be a finite number > 0" : "must be a finite number >= 0";
      return "must be in " + range_text_of(f);
    case FieldKind::integer: return "must be an integer in " + range_text_of(f);
  }
  return "is invalid";
}

bool in_range(const Field& f, double v) {
  const bool above = f.lo_open ? v > f.lo : v >= f.lo;
  const bool below = f.hi_open ? v < f.hi : v <= f.hi;
  return above && below;
}

[[noreturn]] void reject(const Field& f, std::string_view got) {
  throw InputError(std::string(f.name), fmt::format("{} (got {})", rule_text(f), got.empty() ? "nothing" : got));
}

}  // namespace

std::span<const Field> scenario_fields() noexcept { return table; }

bool field_shown(const Field& f, const Scenario& s) {
  switch (f.presence) {
    case Presence::always: return true;
    case Presence::if_set: return f.get(s) != f.get(Scenario{});
    case Presence::with_aimd: return s.server.aimd;
    case Presence::with_mix: return s.server.mix != 0.0;
  }
  return true;
}

double field_value(const Field& f, const Scenario& s) { return f.canonical_value ? f.canonical_value(s) : f.get(s); }

const Field* find_field(std::string_view name) noexcept {
  for (const Field& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

std::string flag_of(const Field& f) {
  std::string flag = "--" + std::string(f.name);
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

void check_field(const Field& f, double v) {
  switch (f.kind) {
    case FieldKind::choice:
      if (!(v >= 0.0 && v < static_cast<double>(f.choices.size()) && v == std::floor(v))) reject(f, number_text(v));
      return;
    case FieldKind::on_off:
      if (!(v == 0.0 || v == 1.0)) reject(f, number_text(v));
      return;
    case FieldKind::integer:
      if (!(v == std::floor(v)) || !in_range(f, v)) reject(f, number_text(v));
      return;
    case FieldKind::number_or_none:
      if (std::isinf(v) && v > 0) return;
      if (!std::isfinite(v) || !in_range(f, v)) reject(f, number_text(v));
      return;
    case FieldKind::number:
      if (!std::isfinite(v) || !in_range(f, v)) reject(f, number_text(v));
      return;
  }
}

double parse_field(const Field& f, std::string_view text) {
  switch (f.kind) {
    case FieldKind::choice:
      for (std::size_t i = 0; i < f.choices.size(); ++i)
        if (f.choices[i] == text) return static_cast<double>(i);
      reject(f, text);
    case FieldKind::on_off:
      if (text == "on") return 1.0;
      if (text == "off") return 0.0;
      reject(f, text);
    case FieldKind::integer: {
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) reject(f, text);
      const double d = static_cast<double>(v);
      if (!in_range(f, d)) reject(f, text);
      return d;
    }
    case FieldKind::number_or_none:
      if (text == "none") return inf;
      [[fallthrough]];
    case FieldKind::number: {
      double v = 0.0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
      // from_chars also reads "inf" and "nan": both are refused below, as is anything after the number.
      if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || !in_range(f, v))
        reject(f, text);
      return v;
    }
  }
  reject(f, text);
}

std::string format_field(const Field& f, double v) {
  switch (f.kind) {
    case FieldKind::choice: return std::string(f.choices[static_cast<std::size_t>(v)]);
    case FieldKind::on_off: return v != 0.0 ? "on" : "off";
    case FieldKind::integer: return fmt::format("{}", static_cast<std::int64_t>(v));
    case FieldKind::number_or_none: return std::isinf(v) ? "none" : fmt::format("{}", v);
    case FieldKind::number: return fmt::format("{}", v);
  }
  return {};
}

std::string field_rule(const Field& f) { return rule_text(f); }

std::string range_text(const Field& f) {
  switch (f.kind) {
    case FieldKind::choice: return "one of " + choices_text(f, ", ");
    case FieldKind::on_off: return "on or off";
    case FieldKind::number_or_none: return range_text_of(f) + " or none";
    case FieldKind::integer:
    case FieldKind::number: return range_text_of(f);
  }
  return {};
}

std::string_view unit_text(const Field& f) noexcept {
  switch (f.unit) {
    case FieldUnit::time: return "attempt-durations";
    case FieldUnit::per_time: return "per attempt-duration";
    case FieldUnit::none: return "";
  }
  return "";
}

std::string default_text(const Field& f) {
  if (!f.default_note.empty()) return std::string(f.default_note);
  return format_field(f, f.get(Scenario{}));
}

std::string fields_markdown() {
  std::string out = "| field | flag | unit | default | allowed | meaning |\n|---|---|---|---|---|---|\n";
  for (const Field& f : table)
    out += fmt::format("| `{}` | `{}` | {} | {} | {} | {} |\n", f.name, flag_of(f), unit_text(f), default_text(f),
                       range_text(f), f.meaning);
  return out;
}

std::string fields_text() {
  std::string out = fmt::format("{:<19} {:<21} {:<22} {:<28} {}\n", "field", "unit", "default", "allowed", "meaning");
  for (const Field& f : table)
    out += fmt::format("{:<19} {:<21} {:<22} {:<28} {}\n", f.name, unit_text(f), default_text(f), range_text(f),
                       f.meaning);
  return out;
}

}  // namespace retrylab::montecarlo
