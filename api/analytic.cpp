#include "api/analytic.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>
#include <utility>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/markov.hpp"
#include "analytic/sleep.hpp"
#include "analytic/units.hpp"
#include "api/analytic_parts.hpp"
#include "api/format.hpp"
#include "api/simulate.hpp"        // provenance, number
#include "montecarlo/metrics.hpp"  // TimeUnit

namespace retrylab::api {

namespace {

using P = AnalyticParam;
using K = ParamKind;
constexpr std::string_view per_attempt = "per attempt-duration";
constexpr std::string_view attempts = units::attempt_duration;

// ---- the table ------------------------------------------------------------------------------

constexpr P aloha_params[] = {
    {"rate", K::real, "Offered load λ >= 0 (attempts per attempt-duration)", per_attempt, ""},
    {"goodput", K::real, "Goodput S in [0, 1/(2e)] to invert: prints the low (<= 1/2) and high (>= 1/2) loads",
     per_attempt, ""}};
constexpr P occ_params[] = {{"rate", K::real, "Arrival rate λ >= 0 (required)", per_attempt, ""}};
constexpr P ps_params[] = {{"load", K::real, "Load ρ in [0, 1) (required)", "", ""},
                           {"service", K::real, "Mean service requirement x > 0", attempts, "1"}};
constexpr P hedge_params[] = {
    {"delay", K::real, "Hedge delay d >= 0: the second attempt goes at d unless the first has answered", attempts, "1"},
    {"service", K::real, "Mean service time x > 0 of each attempt (exponential)", attempts, "1"},
    {"quantile", K::real, "Also the latency quantile at q in [0, 1)", "", ""}};
// The help of --retry states the library's own limit (tests/cli checks it against max_sleep_retry).
static_assert(max_sleep_retry == 1'000'000);
constexpr P sleep_params[] = {
    {"strategy", K::text, "none|nojitter|full|equal|decorrelated|window|memoryless (required)", "", "", true},
    {"retry", K::integer, "Retry index k in [1, 1000000] (the sleep after the k-th failure; required)", "", "", true},
    {"base", K::real, "Base b > 0", attempts, "1"},
    {"cap", K::text, "Cap c >= base, or \"none\" (unbounded)", attempts, "1000"},
    {"window", K::real, "Window W > 0 (window strategy only)", attempts, "0"},
    {"quantile", K::real, "Quantile level q in [0, 1]: value is then the quantile, else the mean", "", ""}};
constexpr P classic_params[] = {
    {"model", K::text, "free|collision (required)", "", "", true},
    {"strategy", K::text, "none|nojitter (required; jitter has no closed form)", "", "", true},
    {"clients", K::integer, "N in [1, 1e15] (required)", "", "", true},
    {"base", K::real, "Base b > 0 (nojitter)", attempts, "1"},
    {"cap", K::text, "Cap c >= base, or \"none\" (nojitter)", attempts, "1000"}};
constexpr P growth_params[] = {
    {"sleep", K::real, "Current sleep s in [base, cap]: prints E[ln(s_k/s_(k−1)) | s_(k−1) = s] (optional)", attempts,
     ""},
    {"base", K::real, "Base b > 0", attempts, "1"},
    {"cap", K::text, "Cap c >= base, or \"none\" (unbounded)", attempts, "none"}};
constexpr P fluid_cap_params[] = {
    {"clients", K::integer, "Burst size B in [1, 1e9] (required)", "", "", true},
    {"rate", K::real, "Steady Poisson rate λ in [0, 1/(2e)) under the burst (required; 0 = a pure burst)", per_attempt,
     ""},
    {"strategy", K::text, "nojitter|full|equal|decorrelated", "", "full"},
    {"base", K::real, "Base b > 0", attempts, "1"}};
constexpr P amplification_params[] = {
    {"layers", K::integer, "Layers L in [1, 1000]", "", "3"},
    {"attempts", K::integer, "Attempts per call a in [1, 10000] (first try included)", "", "3"},
    {"failure", K::real, "Failure probability p in [0, 1] of one bottom call", "", "1"}};
constexpr P budget_params[] = {
    {"preset", K::text,
     "aws-standard (500, cost 5, refund 1) | aws-standard-timeout (cost 10) | grpc (maxTokens 10, tokenRatio 0.1, "
     "threshold 5) | finagle (ttl 10 s, minRetriesPerSec 10, percentCanRetry 0.2) | custom (`capacity`, `cost` and "
     "`refund` required; `threshold` 0 unless given)",
     "", "aws-standard"},
    {"capacity", K::real, "Bucket capacity B > 0 (overrides the preset)", "", ""},
    {"cost", K::real, "Token cost of a retry > 0 (overrides the preset)", "", ""},
    {"refund", K::real, "Tokens returned per success >= 0 (overrides the preset)", "", ""},
    {"threshold", K::real, "Retries only while tokens stay >= threshold, in [0, capacity) (overrides the preset)", "",
     ""},
    {"successes", K::real, "Successes S >= 0 so far", "", "0"},
    {"requests", K::real, "finagle only: requests >= 0 in the ttl window", "", "0"}};
// markov, steady and burst: the backoff first, then their own.
constexpr P markov_params[] = {
    {"model", K::text, "collision|free", "", "collision"},
    {"strategy", K::text, "memoryless (the chain needs memoryless sleeps)", "", "memoryless"},
    {"base", K::real, "Base b > 0", attempts, "1"},
    {"cap", K::text, "Cap c >= base (finite; on collision at most base·2^(S−1), S from 6 at N = 8 to 40 at N <= 3)",
     attempts, "8"},
    {"window", K::real, "Window W > 0 (window strategy only)", attempts, "0"},
    {"clients", K::integer, "N in [1, 8] (required; on collision more clients allow fewer stages: docs/cli.md)", "", "",
     true}};
constexpr P steady_params[] = {
    {"model", K::text, "collision|free|shared", "", "collision"},
    {"strategy", K::text, "Backoff strategy", "", "full"},
    {"base", K::real, "Base b > 0", attempts, "1"},
    {"cap", K::text, "Cap c >= base (finite)", attempts, "1000"},
    {"window", K::real, "Window W > 0 (window strategy only)", attempts, "0"},
    {"rate", K::real, "Load λ in [0, 1): prints the fixed points of the backlog at this load", per_attempt, ""},
    {"collapse", K::real, "Collapse threshold K in [1, 1e7]", "", "3000"},
    {"horizon", K::real, "Horizon T > 0 of the runs", attempts, "20000"}};
constexpr P burst_params[] = {
    {"model", K::text, "collision|free|shared", "", "collision"},
    {"strategy", K::text, "Backoff strategy", "", "full"},
    {"base", K::real, "Base b > 0", attempts, "1"},
    {"cap", K::text, "Cap c >= base (finite)", attempts, "1000"},
    {"window", K::real, "Window W > 0 (window strategy only)", attempts, "0"},
    {"clients", K::integer, "Burst size B in [2, 1e9] (required)", "", "", true},
    {"rate", K::real, "Steady load λ in [0, 1) (default 0.05)", per_attempt, ""},
    {"collapse", K::real, "Collapse threshold K >= 1", "", "3000"},
    {"horizon", K::real, "Horizon T > 0, at most 1e6 times the first stage's mean sleep", attempts, "60000"},
    {"find_cap", K::flag, "Also search the smallest cap base·2^(i/8) that drains (`cap` is then ignored for it)", "",
     ""}};

constexpr AnalyticCommand commands[] = {
    {"aloha", "Pure ALOHA goodput rate·e^(−2·rate), or its inverse (both branches, Lambert W)", aloha_params,
     detail::aloha, units::attempt_duration},
    {"occ", "First-commit-wins, failures free (M/D/1/1 loss): goodput rate/(1+rate)", occ_params, detail::occ,
     units::attempt_duration},
    {"ps", "Processor sharing: mean time in system service/(1−load), mean number load/(1−load)", ps_params, detail::ps,
     units::attempt_duration},
    {"hedge", "One hedge without contention: latency min(S1, d + S2) of exponential services, mean x − x·e^(−d/x)/2",
     hedge_params, detail::hedge, units::attempt_duration},
    {"sleep", "Exact distribution of the sleep before retry k (decorrelated: numerical, accuracy stated)", sleep_params,
     detail::sleep, units::attempt_duration},
    {"classic", "Classic test (N clients together): exact attempts per client and makespan", classic_params,
     detail::classic, units::attempt_duration},
    {"growth", "Decorrelated jitter: ln 3 − 1 and the exact one-step log growth at a given sleep", growth_params,
     detail::growth, units::attempt_duration},
    {"fluid-cap", "ESTIMATE of the least cap that lets a burst drain on collision (fluid argument, Lambert W−1)",
     fluid_cap_params, detail::fluid_cap, units::attempt_duration},
    {"amplification", "Retry amplification over layers: expected bottom calls per top request (<= attempts^layers)",
     amplification_params, detail::amplification, units::none},
    {"budget", "Retry budget: most retries allowed (aws-standard, grpc, finagle, custom)", budget_params,
     detail::budget, units::none},
    {"markov", "EXACT classic test of N <= 8 clients as a Markov chain (memoryless sleeps, exponential service)",
     markov_params, detail::markov, units::attempt_duration},
    {"steady", "ESTIMATE (mean field) of steady traffic: fixed points of the backlog, fold and collapse loads",
     steady_params, detail::steady, units::attempt_duration},
    {"burst", "ESTIMATE (stage ODEs) of a burst on steady load: drain, drain time, smallest draining cap", burst_params,
     detail::burst, units::attempt_duration},
};

static_assert(std::size(markov_collision_limits) == markov_max_clients + 1);

// ---- the documents as text ------------------------------------------------------------------

std::string scalar_text(const Document& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return number_text(v.get<double>());
  if (v.is_number_integer()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + scalar_text(v[i]);
    return s + "]";
  }
  return v.dump();
}

// Flattens {"inputs": {"rate": 1}} to ("inputs.rate", 1), keeping the document's order.
void flatten(const Document& doc, const std::string& prefix, std::vector<std::pair<std::string, Document>>& out) {
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object())
      flatten(it.value(), key, out);
    else
      out.emplace_back(key, it.value());
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// ---- values ---------------------------------------------------------------------------------

const char* kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::real: return "a number";
    case ParamKind::integer: return "an integer";
    case ParamKind::text: return "a text";
    case ParamKind::flag: return "true or false";
  }
  return "";
}

bool of_kind(const AnalyticValue& v, ParamKind k) {
  switch (k) {
    case ParamKind::real: return std::holds_alternative<double>(v);
    case ParamKind::integer: return std::holds_alternative<std::int64_t>(v);
    case ParamKind::text: return std::holds_alternative<std::string>(v);
    case ParamKind::flag: return std::holds_alternative<bool>(v);
  }
  return false;
}

template <typename T>
void take(const AnalyticValues& values, std::string_view name, T& out) {
  const auto it = values.find(name);
  if (it != values.end()) out = std::get<T>(it->second);
}

void take_int(const AnalyticValues& values, std::string_view name, int& out) {
  std::int64_t v = out;
  take(values, name, v);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw InputError(std::string(name),
                     fmt::format("must be an integer in [{}, {}] (got {})", std::numeric_limits<int>::min(),
                                 std::numeric_limits<int>::max(), v));
  out = static_cast<int>(v);
}

void take_optional(const AnalyticValues& values, std::string_view name, std::optional<double>& out) {
  const auto it = values.find(name);
  if (it != values.end()) out = std::get<double>(it->second);
}

}  // namespace

// ---- the registry ---------------------------------------------------------------------------

std::span<const AnalyticCommand> analytic_commands() noexcept { return commands; }

const AnalyticCommand* find_analytic(std::string_view name) noexcept {
  for (const AnalyticCommand& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

std::optional<double> decimal_real(const std::string& text) {
  static const std::regex re(R"([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)");
  if (text.size() > 400 || !std::regex_match(text, re)) return std::nullopt;
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE && std::fabs(v) > 1.0) return std::nullopt;  // overflow; underflow to 0 is fine
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

double parse_cap(const std::string& text) {
  if (text == "none") return HUGE_VAL;
  const auto v = decimal_real(text);
  if (!v || !(*v > 0)) throw InputError("cap", fmt::format("must be a number > 0 or \"none\" (got \"{}\")", text));
  return *v;
}

AnalyticValue fallback_value(const AnalyticParam& p) {
  const std::string text(p.fallback);
  switch (p.kind) {
    case ParamKind::real: return *decimal_real(text);
    case ParamKind::integer: return static_cast<std::int64_t>(std::stoll(text));
    case ParamKind::text: return text;
    case ParamKind::flag: return false;
  }
  return text;
}

// The document in attempt-durations (below).
Document plain_document(const AnalyticCommand& command, AnalyticValues values);

namespace {

using montecarlo::Dim;

// The document's times and rates besides its inputs (those are in their parameters' units), by
// command and key (a dotted path; an array's elements share their key).
struct Scaled {
  std::string_view command, key;
  Dim dim;
};
constexpr Scaled scaled_outputs[] = {
    {"aloha", "value", Dim::per_time},
    {"aloha", "low", Dim::per_time},
    {"aloha", "high", Dim::per_time},
    {"aloha", "argmax", Dim::per_time},
    {"aloha", "max_goodput", Dim::per_time},
    {"occ", "value", Dim::per_time},
    {"ps", "value", Dim::time},
    {"ps", "mean_time", Dim::time},
    {"hedge", "value", Dim::time},
    {"hedge", "mean_latency", Dim::time},
    {"hedge", "latency_quantile.t", Dim::time},
    {"sleep", "value", Dim::time},
    {"sleep", "mean", Dim::time},
    {"sleep", "quantile", Dim::time},
    {"sleep", "support", Dim::time},
    {"classic", "value", Dim::time},
    {"classic", "makespan", Dim::time},
    {"fluid-cap", "value", Dim::time},
    {"fluid-cap", "cap", Dim::time},
    {"fluid-cap", "upper_root", Dim::per_time},
    {"fluid-cap", "required_mean_sleep", Dim::time},
    {"fluid-cap", "mean_sleep_at_cap", Dim::time},
    {"markov", "makespan", Dim::time},
    {"steady", "fold_load", Dim::per_time},
    {"steady", "collapse_load_escape", Dim::per_time},
    {"steady", "collapse_load_no_escape", Dim::per_time},
    {"steady", "collapse_load_passage", Dim::per_time},
    {"steady", "fixed_points.attempt_rate", Dim::per_time},
    {"steady", "passage_time", Dim::time},
    {"steady", "escape_time", Dim::time},
    {"burst", "drain_time", Dim::time},
    {"burst", "drain_time_p99", Dim::time},
    {"burst", "cap_threshold", Dim::time},
};

Dim dim_of_param(const AnalyticParam& p) {
  return p.unit == attempts ? Dim::time : p.unit == per_attempt ? Dim::per_time : Dim::count;
}

montecarlo::TimeUnit time_unit_of(const AnalyticCommand& c, const AnalyticUnit& u) {
  if (!has_times(c) && (u.unit != "attempt" || u.attempt_duration))
    throw InputError(u.unit != "attempt" ? "unit" : "attempt_duration",
                     fmt::format("does not apply to analytic {}: it has no times (its counts have no unit)", c.name));
  return montecarlo::time_unit(u.unit, u.attempt_duration.value_or(0.0), u.attempt_duration.has_value());
}

// A given value into attempt-durations (a cap's text too: "none" stays).
void value_in(AnalyticValue& v, Dim d, const montecarlo::TimeUnit& u) {
  const auto scale = [&](double x) { return d == Dim::time ? x / u.attempt_duration : x * u.attempt_duration; };
  if (auto* x = std::get_if<double>(&v)) *x = scale(*x);
  if (auto* t = std::get_if<std::string>(&v))
    if (const auto x = decimal_real(*t)) *t = number_text(scale(*x));
}

void scale_out(Document& node, Dim d, const montecarlo::TimeUnit& u) {
  if (node.is_array()) {
    for (Document& e : node) scale_out(e, d, u);
  } else if (node.is_number()) {
    node = u.out(d, node.get<double>());
  }
}

void document_out(Document& node, const std::string& path, const AnalyticCommand& c, const montecarlo::TimeUnit& u) {
  if (node.is_array()) {
    for (Document& e : node)
      if (e.is_object()) document_out(e, path, c, u);
  }
  if (!node.is_object()) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = path.empty() ? it.key() : path + "." + it.key();
    if (it.value().is_object() || (it.value().is_array() && !it.value().empty() && it.value()[0].is_object())) {
      document_out(it.value(), key, c, u);
      continue;
    }
    for (const Scaled& s : scaled_outputs)
      if (s.command == c.name && s.key == key) scale_out(it.value(), s.dim, u);
  }
}

}  // namespace

bool has_times(const AnalyticCommand& command) noexcept { return command.unit == units::attempt_duration; }

Document analytic_document(const AnalyticCommand& command, AnalyticValues values, const AnalyticUnit& unit) {
  const montecarlo::TimeUnit u = time_unit_of(command, unit);
  const AnalyticValues typed = values;
  Document doc = plain_document(command, [&] {
    if (!u.plain())
      for (auto& [name, v] : values)
        for (const AnalyticParam& p : command.params)
          if (p.name == name && dim_of_param(p) != Dim::count) value_in(v, dim_of_param(p), u);
    return values;
  }());
  if (u.plain()) return doc;
  document_out(doc, "", command, u);
  if (doc.contains("inputs") && doc["inputs"].is_object())
    for (auto it = doc["inputs"].begin(); it != doc["inputs"].end(); ++it) {
      const auto p = std::find_if(command.params.begin(), command.params.end(),
                                  [&](const AnalyticParam& q) { return q.name == it.key(); });
      if (p == command.params.end() || dim_of_param(*p) == Dim::count) continue;
      const auto given = typed.find(it.key());
      const std::optional<double> as_given =
          given == typed.end()                                 ? std::nullopt
          : std::holds_alternative<double>(given->second)      ? std::optional(std::get<double>(given->second))
          : std::holds_alternative<std::string>(given->second) ? decimal_real(std::get<std::string>(given->second))
                                                               : std::nullopt;
      if (as_given)
        it.value() = *as_given;  // as given, not converted there and back
      else
        scale_out(it.value(), dim_of_param(*p), u);
    }
  return doc;
}

Document plain_document(const AnalyticCommand& command, AnalyticValues values) {
  for (const auto& given : values) {
    const std::string& name = given.first;
    const auto p = std::find_if(command.params.begin(), command.params.end(),
                                [&name](const AnalyticParam& q) { return q.name == name; });
    if (p == command.params.end())
      throw InputError(name, fmt::format("is not a parameter of analytic {}", command.name));
    if (!of_kind(given.second, p->kind)) throw InputError(name, fmt::format("must be {}", kind_name(p->kind)));
  }
  for (const AnalyticParam& p : command.params) {
    if (values.count(p.name) != 0) continue;
    if (p.required) throw InputError(std::string(p.name), "is required");
    if (!p.fallback.empty() || p.kind == ParamKind::flag) values.emplace(std::string(p.name), fallback_value(p));
  }
  return command.compute(values);
}

Document analytic_json(const AnalyticCommand& command, const Document& doc, const AnalyticUnit& unit) {
  const montecarlo::TimeUnit u = time_unit_of(command, unit);
  Document out = provenance(u.plain() ? command.unit : std::string_view(u.name));
  if (!u.plain()) out["attempt_duration"] = u.attempt_duration;
  out.update(doc);
  return out;
}

std::string analytic_table(const Document& doc) {
  std::vector<std::pair<std::string, Document>> rows;
  flatten(doc, "", rows);
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  std::string out;
  for (const auto& r : rows) out += fmt::format("{:<{}}  {}\n", r.first, width, scalar_text(r.second));
  return out;
}

std::string analytic_csv(const Document& doc) {
  std::vector<std::pair<std::string, Document>> rows;
  flatten(doc, "", rows);
  std::string head, values;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) head += ',', values += ',';
    head += csv_field(rows[i].first);
    values += csv_field(scalar_text(rows[i].second));
  }
  return head + "\n" + values + "\n";
}

// ---- what the compute functions share -------------------------------------------------------

namespace detail {

Options options_of(const AnalyticValues& v) {
  Options o;
  for (auto [name, field] : {std::pair{"rate", &o.rate},
                             {"goodput", &o.goodput},
                             {"load", &o.load},
                             {"quantile", &o.quantile},
                             {"sleep", &o.sleep},
                             {"capacity", &o.capacity},
                             {"cost", &o.cost},
                             {"refund", &o.refund},
                             {"threshold", &o.threshold}})
    take_optional(v, name, *field);
  for (auto [name, field] : {std::pair{"service", &o.service},
                             {"base", &o.base},
                             {"window", &o.window},
                             {"failure", &o.failure},
                             {"successes", &o.successes},
                             {"requests", &o.requests},
                             {"collapse", &o.collapse},
                             {"horizon", &o.horizon},
                             {"delay", &o.delay}})
    take(v, name, *field);
  for (auto [name, field] :
       {std::pair{"cap", &o.cap}, {"strategy", &o.strategy}, {"model", &o.model}, {"preset", &o.preset}})
    take(v, name, *field);
  for (auto [name, field] : {std::pair{"retry", &o.retry}, {"layers", &o.layers}, {"attempts", &o.attempts}})
    take_int(v, name, *field);
  take(v, "clients", o.clients);
  take(v, "find_cap", o.find_cap);
  return o;
}

Strategy strategy_of(const std::string& name) {
  if (auto s = parse_strategy(name)) return *s;
  throw InputError(
      "strategy", fmt::format("must be one of none|nojitter|full|equal|decorrelated|window|memoryless (got {})", name));
}

Backoff backoff_of(const Options& o) {
  const Backoff b{strategy_of(o.strategy), o.base, parse_cap(o.cap), o.window};
  if (b.strategy != Strategy::window && o.window != 0.0)
    throw InputError("window",
                     fmt::format("applies to the window strategy only (got {} with {})", o.window, o.strategy));
  return b;
}

Model model_of(const std::string& name) {
  if (auto m = parse_model(name)) return *m;
  throw InputError("model", fmt::format("must be one of collision|free|shared|ps (got {})", name));
}

Document cap_value(double cap) { return std::isinf(cap) ? Document("none") : Document(cap); }
Document number(const std::optional<double>& x) { return x ? api::number(*x) : Document(nullptr); }

Document opening(const std::string& model, Document inputs, double value) {
  Document doc;
  doc["model"] = model;
  doc["inputs"] = std::move(inputs);
  doc["value"] = api::number(value);
  return doc;
}

void cite(Document& doc, const std::string& formula, const std::string& assumptions, const std::string& proof) {
  doc["formula"] = formula;
  doc["assumptions"] = assumptions;
  doc["proof"] = proof;
}

}  // namespace detail

}  // namespace retrylab::api
