#include "validation/trace/declared.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/fields.hpp"

namespace retrylab::validation::trace {

std::optional<double> to_double(std::string_view s) {
  double x = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t x = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return x;
}

double need_double(std::string_view s, std::int64_t line, const char* field) {
  const auto x = to_double(s);
  if (!x) malformed(line, field, fmt::format("must be a finite number (got \"{}\")", s.substr(0, 40)));
  return *x;
}

std::int64_t need_int(std::string_view s, std::int64_t line, const char* field) {
  const auto x = to_int(s);
  if (!x || *x < 0) malformed(line, field, fmt::format("must be an integer >= 0 (got \"{}\")", s.substr(0, 40)));
  return *x;
}

namespace {

// A field's value in attempt-durations: text in the trace's unit (d: one attempt-duration in it),
// parsed, rescaled (times / d, rates * d), then range-checked as the field's rule says.
double field_in_attempt_durations(const montecarlo::Field& f, const std::string& v, double d) {
  using montecarlo::FieldKind;
  using montecarlo::FieldUnit;
  const bool number = f.kind == FieldKind::number || f.kind == FieldKind::number_or_none;
  if (d == 1.0 || !number || f.unit == FieldUnit::none) return montecarlo::parse_field(f, v);
  double x = 0;
  if (f.kind == FieldKind::number_or_none && v == "none")
    x = std::numeric_limits<double>::infinity();
  else if (const auto parsed = to_double(v))
    x = *parsed;
  else
    return montecarlo::parse_field(f, v);  // throws, naming the rule
  x = f.unit == FieldUnit::time ? x / d : x * d;
  montecarlo::check_field(f, x);
  return x;
}

// The fields a version-2 header may carry beyond the version-1 ones: every field of the scenario
// field table after the base ones (montecarlo/fields.hpp; montecarlo::trace_server_fields writes
// them in canonical()'s spelling). Reads them into s; each error names the key and its line.
void declared_server(const HeaderKeys& h, montecarlo::Scenario& s, bool version2, double d) {
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    if (f.presence == montecarlo::Presence::always || f.kind == montecarlo::FieldKind::text) continue;
    const std::string key(f.name);
    const auto it = h.kv.find(key);
    if (it == h.kv.end()) continue;
    const std::int64_t line = h.key_line.count(key) ? h.key_line.at(key) : h.line;
    const std::string& v = it->second;
    if (!version2)
      malformed(line, key, "is a server option: the header must declare version=2 or 3 (version 1 traces have none)");
    try {
      f.set(s, field_in_attempt_durations(f, v, d));
    } catch (const InputError&) {
      malformed(line, key,
                fmt::format("{}{} (got \"{}\")", montecarlo::field_rule(f), d == 1.0 ? "" : " in attempt-durations",
                            v.substr(0, 40)));
    }
  }
}

// The text fields (version 3; the load profile: the steady arrivals' rate over time, its canonical
// text in the trace's unit, montecarlo/profile.hpp): each read by its field's own parser, then into
// attempt-durations. The header's text is canonical, so complete: a sine names its mean.
void declared_texts(const HeaderKeys& h, montecarlo::Scenario& s, bool version3, double d) {
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    if (f.kind != montecarlo::FieldKind::text) continue;
    const std::string key(f.name);
    const auto it = h.kv.find(key);
    if (it == h.kv.end()) continue;
    const std::int64_t line = h.key_line.count(key) ? h.key_line.at(key) : h.line;
    if (!version3) malformed(line, key, "needs version=3 (versions 1 and 2 have no text fields)");
    try {
      montecarlo::set_field_text(f, s, it->second);
      if (f.text.scale) f.text.scale(s, d);
      s.traffic.load_profile.check();  // a sine without its mean is not canonical
    } catch (const InputError&) {
      // The canonical forms only (no file, no sine without its mean): as simulate writes them.
      malformed(line, key,
                fmt::format("must be a load profile's text: t:rate,..., step:t:rate,... or sine:period:amplitude:mean "
                            "(got \"{}\")",
                            it->second.substr(0, 40)));
    }
  }
}

// time_unit (attempt-duration, ms or s) and, with ms or s, attempt_duration = D > 0: how long one
// attempt-duration is in that unit. Returns D (1 for attempt-durations).
double declared_unit(const HeaderKeys& h, std::string& unit) {
  const auto at = [&](const char* key) { return h.key_line.count(key) ? h.key_line.at(key) : h.line; };
  const auto u = h.kv.find("time_unit");
  const auto ad = h.kv.find("attempt_duration");
  unit = u == h.kv.end() ? "attempt-duration" : u->second;
  if (unit == "attempt-duration") {
    if (ad != h.kv.end() && to_double(ad->second) != 1.0)
      malformed(at("attempt_duration"), "attempt_duration",
                fmt::format("must be 1 (or left out) with time_unit=attempt-duration (got \"{}\")",
                            ad->second.substr(0, 40)));
    return 1.0;
  }
  if (unit != "ms" && unit != "s")
    malformed(at("time_unit"), "time_unit",
              fmt::format("must be attempt-duration, ms or s (got \"{}\")", unit.substr(0, 40)));
  if (ad == h.kv.end())
    malformed(h.line, "attempt_duration",
              fmt::format("is required with time_unit={}: the length of one attempt-duration in {}", unit, unit));
  const auto d = to_double(ad->second);
  if (!d || !(*d > 0))
    malformed(at("attempt_duration"), "attempt_duration",
              fmt::format("must be a finite number > 0 (got \"{}\")", ad->second.substr(0, 40)));
  return *d;
}

montecarlo::Scenario declared_scenario(const HeaderKeys& h, std::uint64_t& seed, std::string& unit, double& d) {
  const auto get = [&](const char* key) -> std::optional<std::string> {
    const auto it = h.kv.find(key);
    if (it == h.kv.end()) return std::nullopt;
    return it->second;
  };
  const auto need = [&](const char* key) {
    auto v = get(key);
    if (!v) malformed(h.line, key, "is required in the header");
    return *v;
  };
  const auto num = [&](const char* key, double fallback) {
    const auto v = get(key);
    return v ? need_double(*v, h.line, key) : fallback;
  };
  d = declared_unit(h, unit);
  const auto time = [&](const char* key, double fallback) { return num(key, fallback * d) / d; };
  const std::string version = need("version");
  if (version != "1" && version != "2" && version != "3")
    malformed(h.line, "version",
              fmt::format("must be 1, 2 with server options, or 3 with failure kinds (got \"{}\")", version));
  montecarlo::Scenario s;
  const auto model = parse_model(need("model"));
  if (!model)
    malformed(h.line, "model", fmt::format("must be collision, free, shared or ps (got \"{}\")", need("model")));
  const auto strategy = parse_strategy(need("strategy"));
  if (!strategy)
    malformed(
        h.line, "strategy",
        fmt::format("must be none, nojitter, full, equal, decorrelated or window (got \"{}\")", need("strategy")));
  s.model = *model;
  s.backoff.strategy = *strategy;
  s.backoff.base = time("base", 1.0);
  const auto cap = get("cap");
  s.backoff.cap = !cap || *cap == "none" ? (cap ? unbounded_cap : 1000.0) : need_double(*cap, h.line, "cap") / d;
  s.backoff.window = time("window", 0.0);
  const auto clients = get("clients");
  s.traffic.clients = clients ? need_int(*clients, h.line, "clients") : 0;
  s.traffic.rate = num("rate", 0.0) * d;
  s.measurement.horizon = time("horizon", 0.0);
  s.measurement.warmup = time("warmup", 0.0);
  const auto collapse = get("collapse");
  s.measurement.collapse = collapse ? need_int(*collapse, h.line, "collapse") : 3000;
  const std::string retries = need("retries");
  if (retries != "on" && retries != "off")
    malformed(h.line, "retries", fmt::format("must be on or off (got \"{}\")", retries));
  s.client.retries = retries == "on";
  const auto seed_text = get("seed");
  seed = 0;
  if (seed_text) {
    std::uint64_t x = 0;
    const auto [p, ec] = std::from_chars(seed_text->data(), seed_text->data() + seed_text->size(), x);
    if (ec != std::errc() || p != seed_text->data() + seed_text->size())
      malformed(h.line, "seed", fmt::format("must be an integer >= 0 (got \"{}\")", seed_text->substr(0, 40)));
    seed = x;
  }
  declared_server(h, s, version == "2" || version == "3", d);
  declared_texts(h, s, version == "3", d);
  // The checker's rules assume one attempt of a client in flight (docs/traces.md): a hedged trace is
  // refused as unusable input, never judged FAIL by rules that do not apply to it.
  if (s.client.hedge.on())
    malformed(h.key_line.count("hedge_attempts") ? h.key_line.at("hedge_attempts") : h.line, "hedge_attempts",
              fmt::format("is {}: retrylab check does not model hedging (its rules assume one attempt of a "
                          "client in flight; docs/traces.md), so a hedged trace is not one to check",
                          s.client.hedge.attempts));
  // A cancelled attempt (deadline_cancel) has no row: such a trace lacks attempts the rules count.
  if (s.client.deadline_cancel)
    malformed(h.key_line.count("deadline_cancel") ? h.key_line.at("deadline_cancel") : h.line, "deadline_cancel",
              "is on: a cancelled attempt has no row (a row is an attempt's end), so the trace lacks the attempts "
              "its deadlines cancelled and is not one to check");
  try {
    montecarlo::check_scenario(s);
  } catch (const InputError& e) {
    const auto at = h.key_line.find(e.field());
    malformed(at == h.key_line.end() ? h.line : at->second, e.field(),
              std::string(e.what()).substr(e.field().size() + 1));
  }
  return s;
}

// The header's optional runs=R: an integer >= 1; every run index is then below it.
std::optional<std::int64_t> runs_in_header(const HeaderKeys& h) {
  const auto it = h.kv.find("runs");
  if (it == h.kv.end()) return std::nullopt;
  const auto line = h.key_line.count("runs") ? h.key_line.at("runs") : h.line;
  const auto v = to_int(it->second);
  if (!v || *v < 1)
    malformed(line, "runs", fmt::format("must be an integer >= 1 (got \"{}\")", it->second.substr(0, 40)));
  return v;
}

}  // namespace

void declare(const HeaderKeys& keys, TraceHeader& h) {
  h.declared = declared_scenario(keys, h.seed, h.unit, h.attempt_duration);
  h.runs = runs_in_header(keys);
}

TraceHeader header_from_keys(const std::map<std::string, std::string>& keys) {
  HeaderKeys h;
  h.kv = keys;
  h.line = -1;
  TraceHeader out;
  out.line = -1;
  declare(h, out);
  out.kinds = keys.at("version") == "3";  // declare() required the key
  return out;
}

}  // namespace retrylab::validation::trace
