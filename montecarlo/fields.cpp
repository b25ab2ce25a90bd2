#include "montecarlo/fields.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/builds.hpp"
#include "montecarlo/controls.hpp"

namespace retrylab::montecarlo {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

constexpr std::string_view model_choices[] = {"collision", "free", "shared", "ps", "none"};

// The core's rows (the model, the backoff, the traffic, the measurement window and stop rules, the
// controls' clock); every component declares its own parameters (montecarlo/components/*.hpp).
constexpr Field core_fields[] = {
    Field{.name = "model",
          .group = FieldGroup::resource,
          .rank = 10,
          .kind = FieldKind::choice,
          .presence = Presence::always,
          .choices = model_choices,
          .meaning =
              "contention model: collision (pure ALOHA), free (first commit wins, failures free), shared (first commit "
              "wins on a processor-sharing server), ps (processor sharing, no conflicts), none (an uncontended "
              "dependency: "
              "attempts fail only by injected failure)",
          .access = member<&Scenario::model>()},
    Field{.name = "strategy",
          .group = FieldGroup::backoff,
          .rank = 20,
          .kind = FieldKind::choice,
          .presence = Presence::always,
          .choices = strategy_names,
          .meaning = "backoff strategy between attempts (needed only with retries on)",
          .access = member<&Scenario::backoff, &Backoff::strategy>()},
    Field{.name = "base",
          .group = FieldGroup::backoff,
          .rank = 30,
          .kind = FieldKind::number,
          .unit = FieldUnit::time,
          .presence = Presence::always,
          .hi = inf,
          .lo_open = true,
          .hi_open = true,
          .meaning = "base b of the backoff",
          .access = member<&Scenario::backoff, &Backoff::base>()},
    Field{.name = "cap",
          .group = FieldGroup::backoff,
          .rank = 40,
          .kind = FieldKind::number_or_none,
          .unit = FieldUnit::time,
          .presence = Presence::always,
          .hi = inf,
          .lo_open = true,
          .meaning = "cap c on every sleep (>= base), or none",
          .access = member<&Scenario::backoff, &Backoff::cap>()},
    Field{.name = "window",
          .group = FieldGroup::backoff,
          .rank = 50,
          .kind = FieldKind::number,
          .unit = FieldUnit::time,
          .presence = Presence::always,
          .hi = inf,
          .hi_open = true,
          .meaning = "window W of the window strategy (> 0 with it)",
          .access = member<&Scenario::backoff, &Backoff::window>(),
          .canonical_value =
              [](const Scenario& s) { return s.backoff.strategy == Strategy::window ? s.backoff.window : 0.0; }},
    Field{.name = "clients",
          .group = FieldGroup::traffic,
          .rank = 60,
          .kind = FieldKind::integer,
          .presence = Presence::always,
          .hi = static_cast<double>(max_clients),
          .meaning = "burst: N clients arriving together at t = 0",
          .access = member<&Scenario::traffic, &Traffic::clients>()},
    Field{.name = "rate",
          .group = FieldGroup::traffic,
          .rank = 70,
          .kind = FieldKind::number,
          .unit = FieldUnit::per_time,
          .presence = Presence::always,
          .hi = inf,
          .hi_open = true,
          .meaning = "steady Poisson arrivals per unit of time on [0, horizon)",
          .access = member<&Scenario::traffic, &Traffic::rate>()},
    Field{.name = "horizon",
          .group = FieldGroup::measurement,
          .rank = 80,
          .kind = FieldKind::number,
          .unit = FieldUnit::time,
          .presence = Presence::always,
          .hi = inf,
          .lo_open = true,
          .hi_open = true,
          .meaning = "stop time T (required with steady traffic; pure bursts run until every client succeeded)",
          .access = member<&Scenario::measurement, &Measurement::horizon>(),
          .canonical_value = [](const Scenario& s) { return effective_horizon(s); },
          .default_note = "1e7 for a pure burst, required with rate > 0"},
    Field{.name = "warmup",
          .group = FieldGroup::measurement,
          .rank = 90,
          .kind = FieldKind::number,
          .unit = FieldUnit::time,
          .presence = Presence::always,
          .hi = inf,
          .hi_open = true,
          .meaning = "rates and averages are measured over [warmup, stop)",
          .access = member<&Scenario::measurement, &Measurement::warmup>()},
    Field{.name = "collapse",
          .group = FieldGroup::measurement,
          .rank = 100,
          .kind = FieldKind::integer,
          .presence = Presence::always,
          .lo = 1,
          .hi = static_cast<double>(max_collapse),
          .meaning = "K: a run collapses (stops) when K clients wait at once",
          .access = member<&Scenario::measurement, &Measurement::collapse>()},
    Field{.name = "retries",
          .group = FieldGroup::client,
          .rank = 110,
          .kind = FieldKind::on_off,
          .presence = Presence::always,
          .hi = 1,
          .meaning = "on: retry until success; off: one attempt per client",
          .access = member<&Scenario::client, &ClientPolicy::retries>()},
    Field{.name = "multiplier",
          .group = FieldGroup::backoff,
          .rank = 370,
          .kind = FieldKind::number,
          .lo = 1,
          .hi = max_multiplier,
          .meaning = "growth m of the exponential windows, w_k = min(cap, base m^(k-1)); 1 gives constant backoff",
          .access = member<&Scenario::backoff, &Backoff::multiplier>(),
          .plain_loop = true},
    Field{.name = "attempt_ms",
          .group = FieldGroup::client,
          .rank = 450,
          .kind = FieldKind::number,
          .hi = inf,
          .hi_open = true,
          .meaning = "milliseconds per attempt-duration, for the controls whose windows keep time (set from the unit)",
          .access = member<&Scenario::client, &ClientPolicy::attempt_ms>()}};

// Every component's parameters (builds.hpp lists them all in FullParts).
template <class... Cs>
void append_component_fields(std::vector<Field>& out, detail::Parts<Cs...>* /*all*/) {
  (out.insert(out.end(), Cs::fields.begin(), Cs::fields.end()), ...);
}

// The table: the core's rows and every component's, in rank order (the canonical order). A name or
// rank declared twice is a bug (std::logic_error, on the first use; a test asks for the table).
const std::vector<Field>& table() {
  static const std::vector<Field> all = [] {  // a constant table, built once
    std::vector<Field> out(std::begin(core_fields), std::end(core_fields));
    append_component_fields(out, static_cast<detail::FullParts*>(nullptr));
    std::sort(out.begin(), out.end(), [](const Field& a, const Field& b) { return a.rank < b.rank; });
    for (std::size_t i = 0; i < out.size(); ++i)
      for (std::size_t k = i + 1; k < out.size(); ++k)
        if (out[i].name == out[k].name || out[i].rank == out[k].rank)
          throw std::logic_error(fmt::format("fields {} and {} share a name or a rank", out[i].name, out[k].name));
    return out;
  }();
  return all;
}

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
    case FieldKind::text: return "must be " + std::string(f.text.forms);
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

std::span<const Field> scenario_fields() noexcept { return table(); }

void text_field_has_no_number() { throw std::logic_error("a text field has no number: read it with field_text"); }

namespace {
// A component that keeps several attempts of a request in flight (sends_several: hedging) is
// refused, before its own rules, beside one that counts on one (allows_several_in_flight).
template <class P, class C>
void check_one(const Scenario& s) {
  if constexpr (C::sends_several) {
    const std::string_view other = P::one_in_flight_only(s);
    if (!other.empty())
      throw InputError(std::string(detail::field_name_of<C>()),
                       fmt::format("cannot combine with `{}`: it counts on one attempt of a request in flight, "
                                   "and this sends several",
                                   other));
  }
  C::check(s);
}
template <class... Cs>
void check_each(const Scenario& s, detail::Parts<Cs...>* /*all*/) {
  (check_one<detail::Parts<Cs...>, Cs>(s), ...);
}
}  // namespace

void check_component_rules(const Scenario& s) { check_each(s, static_cast<detail::FullParts*>(nullptr)); }
std::string_view first_refusing_component(const Scenario& s) { return detail::FullParts::first_refusing(s); }

bool field_shown(const Field& f, const Scenario& s) {
  if (f.kind == FieldKind::text) return f.text.is_set(s);  // its default is unset
  switch (f.presence) {
    case Presence::always: return true;
    case Presence::if_set: return f.get(s) != f.get(Scenario{});
    case Presence::with_aimd: return s.admission.aimd;
    case Presence::with_mix: return s.client.mix != 0.0;
  }
  return true;
}

double field_value(const Field& f, const Scenario& s) { return f.canonical_value ? f.canonical_value(s) : f.get(s); }

std::string field_text(const Field& f, const Scenario& s) {
  return f.kind == FieldKind::text ? f.text.get(s) : format_field(f, field_value(f, s));
}

void set_field_text(const Field& f, Scenario& s, std::string_view text) {
  if (f.kind == FieldKind::text) {
    if (text.empty()) reject(f, text);  // unset is the default, never typed
    f.text.set(s, text);
  } else {
    f.set(s, parse_field(f, text));
  }
}

const Field* find_field(std::string_view name) noexcept {
  for (const Field& f : table())
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
    case FieldKind::text: reject(f, number_text(v));  // a number is not a text form
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
      // "-0" is 0: a negative zero would print as "rate=-0" in the canonical string, a scenario (and
      // an RNG key) apart from the same scenario given as 0.
      return v == 0.0 ? 0.0 : v;
    }
    case FieldKind::text: text_field_has_no_number();
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
    case FieldKind::text: text_field_has_no_number();
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
    case FieldKind::text: return std::string(f.text.forms);
  }
  return {};
}

std::string_view unit_text(const Field& f) noexcept {
  if (f.kind == FieldKind::text && f.text.scale) return "attempt-durations, rates per attempt-duration";
  switch (f.unit) {
    case FieldUnit::time: return "attempt-durations";
    case FieldUnit::per_time: return "per attempt-duration";
    case FieldUnit::none: return "";
  }
  return "";
}

std::string default_text(const Field& f) {
  if (!f.default_note.empty()) return std::string(f.default_note);
  return field_text(f, Scenario{});
}

std::string fields_markdown() {
  std::string out = "| field | flag | unit | default | allowed | meaning |\n|---|---|---|---|---|---|\n";
  for (const Field& f : table())
    out += fmt::format("| `{}` | `{}` | {} | {} | {} | {} |\n", f.name, flag_of(f), unit_text(f), default_text(f),
                       range_text(f), f.meaning);
  return out;
}

std::string fields_text() {
  std::string out = fmt::format("{:<19} {:<21} {:<22} {:<28} {}\n", "field", "unit", "default", "allowed", "meaning");
  for (const Field& f : table())
    out += fmt::format("{:<19} {:<21} {:<22} {:<28} {}\n", f.name, unit_text(f), default_text(f), range_text(f),
                       f.meaning);
  return out;
}

}  // namespace retrylab::montecarlo
