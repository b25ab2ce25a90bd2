#include "validation/trace_check.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "analytic/aloha.hpp"
#include "analytic/classic.hpp"
#include "analytic/error.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/rows.hpp"
#include "analytic/sleep.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/trace.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation {

namespace {

constexpr std::size_t max_line = 1 << 16;
constexpr double rel_tol = 1e-9;  // timestamps are printed shortest-round-trip; external ones may be rounded
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr std::int64_t max_retry = std::numeric_limits<std::int32_t>::max();  // the engine's own limit

double tol(double x) { return rel_tol * std::max(1.0, std::fabs(x)); }

[[noreturn]] void malformed(std::int64_t line, const std::string& field, const std::string& message) {
  throw InputError(fmt::format("line {}: {}", line, field), message);
}

// splitmix64: the deterministic tie-breaking uniform of the randomized PIT at an atom.
struct SplitMix {
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  double uniform() {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
};

struct Row {
  std::int64_t run = 0, client = 0, retry = 0;
  double arrival = 0, start = 0, end = 0, sleep = 0;
  bool success = false, has_sleep = false, burst = false;
};

struct RunEnd {
  std::int64_t run = 0;
  std::string stop;
  double stop_time = 0;
};

// ---- parsing ------------------------------------------------------------------------------

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

// The header as key=value strings (CSV comments or the JSON header object), then a Scenario.
struct Header {
  std::map<std::string, std::string> kv;
  std::map<std::string, std::int64_t> key_line;  // where each key was given (CSV: its own line)
  std::int64_t line = 1;
};

// The fields a version-2 header may carry beyond the version-1 ones: every field of the scenario
// field table after the base ones (montecarlo/fields.hpp; montecarlo::trace_server_fields writes
// them in canonical()'s spelling). Reads them into s; each error names the key and its line.
void declared_server(const Header& h, montecarlo::Scenario& s, bool version2) {
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    if (f.presence == montecarlo::Presence::always) continue;
    const std::string key(f.name);
    const auto it = h.kv.find(key);
    if (it == h.kv.end()) continue;
    const std::int64_t line = h.key_line.count(key) ? h.key_line.at(key) : h.line;
    const std::string& v = it->second;
    if (!version2)
      malformed(line, key, "is a server option: the header must declare version=2 (version 1 traces have none)");
    try {
      f.set(s, montecarlo::parse_field(f, v));
    } catch (const InputError&) {
      malformed(line, key, fmt::format("{} (got \"{}\")", montecarlo::field_rule(f), v.substr(0, 40)));
    }
  }
}

montecarlo::Scenario declared_scenario(const Header& h, std::uint64_t& seed) {
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
  const std::string version = need("version");
  if (version != "1" && version != "2")
    malformed(h.line, "version", fmt::format("must be 1, or 2 with server options (got \"{}\")", version));
  montecarlo::Scenario s;
  const auto model = parse_model(need("model"));
  if (!model) malformed(h.line, "model", fmt::format("must be collision, free, shared or ps (got \"{}\")", need("model")));
  const auto strategy = parse_strategy(need("strategy"));
  if (!strategy)
    malformed(h.line, "strategy",
              fmt::format("must be none, nojitter, full, equal, decorrelated or window (got \"{}\")", need("strategy")));
  s.model = *model;
  s.backoff.strategy = *strategy;
  s.backoff.base = num("base", 1.0);
  const auto cap = get("cap");
  s.backoff.cap = !cap || *cap == "none" ? (cap ? unbounded_cap : 1000.0) : need_double(*cap, h.line, "cap");
  s.backoff.window = num("window", 0.0);
  const auto clients = get("clients");
  s.clients = clients ? need_int(*clients, h.line, "clients") : 0;
  s.rate = num("rate", 0.0);
  s.horizon = num("horizon", 0.0);
  s.warmup = num("warmup", 0.0);
  const auto collapse = get("collapse");
  s.collapse = collapse ? need_int(*collapse, h.line, "collapse") : 3000;
  const std::string retries = need("retries");
  if (retries != "on" && retries != "off") malformed(h.line, "retries", fmt::format("must be on or off (got \"{}\")", retries));
  s.retries = retries == "on";
  const auto unit = get("time_unit");
  if (unit && *unit != "attempt-duration")
    malformed(h.line, "time_unit", fmt::format("must be attempt-duration (got \"{}\"): rescale times so one attempt served alone takes 1", *unit));
  const auto seed_text = get("seed");
  seed = 0;
  if (seed_text) {
    std::uint64_t x = 0;
    const auto [p, ec] = std::from_chars(seed_text->data(), seed_text->data() + seed_text->size(), x);
    if (ec != std::errc() || p != seed_text->data() + seed_text->size())
      malformed(h.line, "seed", fmt::format("must be an integer >= 0 (got \"{}\")", seed_text->substr(0, 40)));
    seed = x;
  }
  declared_server(h, s, version == "2");
  try {
    montecarlo::check_scenario(s);
  } catch (const InputError& e) {
    const auto at = h.key_line.find(e.field());
    malformed(at == h.key_line.end() ? h.line : at->second, e.field(), std::string(e.what()).substr(e.field().size() + 1));
  }
  return s;
}

// The header's optional runs=R: an integer >= 1; every run index is then below it.
std::optional<std::int64_t> runs_in_header(const Header& h) {
  const auto it = h.kv.find("runs");
  if (it == h.kv.end()) return std::nullopt;
  const auto line = h.key_line.count("runs") ? h.key_line.at("runs") : h.line;
  const auto v = to_int(it->second);
  if (!v || *v < 1) malformed(line, "runs", fmt::format("must be an integer >= 1 (got \"{}\")", it->second.substr(0, 40)));
  return v;
}

void check_run_index(std::int64_t run, const std::optional<std::int64_t>& runs, std::int64_t n) {
  if (runs && run >= *runs) malformed(n, "run", fmt::format("must be below the header's runs={} (got {})", *runs, run));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return out;
    from = at + 1;
  }
}

const char* csv_column(std::size_t i) {
  constexpr const char* names[] = {"run", "client", "arrival", "start", "end", "outcome", "retry", "sleep", "burst"};
  return i < 9 ? names[i] : "row";
}

// Retry 0 has no sleep before it (its field is empty / null); a retry k >= 1 has one.
void check_sleep_given(const Row& r, std::int64_t n) {
  if (r.retry == 0 && r.has_sleep) malformed(n, "sleep", "must be empty on a retry-0 row (no sleep precedes a first attempt)");
  if (r.retry > 0 && !r.has_sleep) malformed(n, "sleep", fmt::format("is required on a retry-{} row (the sleep before it)", r.retry));
}

// "# k=v k=v" comment -> pairs; tokens without '=' are kept with an empty value.
std::vector<std::pair<std::string, std::string>> comment_pairs(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> out;
  line.remove_prefix(1);
  for (std::string_view tok : split(line, ' ')) {
    if (tok.empty()) continue;
    const std::size_t eq = tok.find('=');
    if (eq == std::string_view::npos) out.emplace_back(std::string(tok), std::string());
    else out.emplace_back(std::string(tok.substr(0, eq)), std::string(tok.substr(eq + 1)));
  }
  return out;
}

// `columns`: 9 under the full column line, 8 under the one without burst; every row has exactly that many.
Row parse_csv_row(std::string_view line, std::int64_t n, std::size_t columns) {
  const auto f = split(line, ',');
  if (f.size() != columns)
    malformed(n, f.size() < columns ? std::string(csv_column(f.size())) : "row",
              fmt::format("{}: a row has exactly the column line's {} comma-separated fields ({}) (got {})",
                          f.size() < columns ? "is missing" : "has too many fields", columns,
                          columns == 9 ? "run,client,arrival,start,end,outcome,retry,sleep,burst"
                                       : "run,client,arrival,start,end,outcome,retry,sleep",
                          f.size()));
  Row r;
  r.run = need_int(f[0], n, "run");
  r.client = need_int(f[1], n, "client");
  r.arrival = need_double(f[2], n, "arrival");
  r.start = need_double(f[3], n, "start");
  r.end = need_double(f[4], n, "end");
  if (f[5] == "success") r.success = true;
  else if (f[5] != "failure") malformed(n, "outcome", fmt::format("must be success or failure (got \"{}\")", f[5].substr(0, 40)));
  r.retry = need_int(f[6], n, "retry");
  if (r.retry > max_retry) malformed(n, "retry", fmt::format("must be at most {} (got {})", max_retry, r.retry));
  r.has_sleep = !f[7].empty();
  if (r.has_sleep) r.sleep = need_double(f[7], n, "sleep");
  check_sleep_given(r, n);
  if (f.size() == 9) {
    if (f[8] == "1") r.burst = true;
    else if (f[8] != "0") malformed(n, "burst", fmt::format("must be 0 or 1 (got \"{}\")", f[8].substr(0, 40)));
  }
  return r;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key, std::int64_t n) {
  const auto it = j.find(key);
  if (it == j.end()) malformed(n, key, "is required");
  return *it;
}

double json_double(const nlohmann::json& j, const char* key, std::int64_t n) {
  const auto& v = member(j, key, n);
  if (!v.is_number() || !std::isfinite(v.get<double>())) malformed(n, key, "must be a finite number");
  return v.get<double>();
}

std::int64_t json_int(const nlohmann::json& j, const char* key, std::int64_t n) {
  const auto& v = member(j, key, n);
  if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
    malformed(n, key, "must be an integer >= 0");
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    malformed(n, key, "must be an integer below 2^63");
  return v.get<std::int64_t>();
}

Row parse_json_row(const nlohmann::json& j, std::int64_t n) {
  Row r;
  r.run = json_int(j, "run", n);
  r.client = json_int(j, "client", n);
  r.arrival = json_double(j, "arrival", n);
  r.start = json_double(j, "start", n);
  r.end = json_double(j, "end", n);
  const auto& o = member(j, "outcome", n);
  if (o == "success") r.success = true;
  else if (o != "failure") malformed(n, "outcome", "must be \"success\" or \"failure\"");
  r.retry = json_int(j, "retry", n);
  if (r.retry > max_retry) malformed(n, "retry", fmt::format("must be at most {} (got {})", max_retry, r.retry));
  const auto it = j.find("sleep");
  r.has_sleep = it != j.end() && !it->is_null();
  if (r.has_sleep) r.sleep = json_double(j, "sleep", n);
  check_sleep_given(r, n);
  const auto b = j.find("burst");
  if (b != j.end()) {
    if (!b->is_boolean()) malformed(n, "burst", "must be true or false");
    r.burst = b->get<bool>();
  }
  return r;
}

// ---- checks -------------------------------------------------------------------------------

class Finding {
 public:
  Finding(std::string name, std::string kind, std::string expected)
      : check_{std::move(name), std::move(kind), std::move(expected), "", CheckVerdict::pass, 0, {}, {}} {}
  void add(std::int64_t line, std::string_view text, const std::string& note = {}) {
    ++check_.count;
    if (check_.lines.size() < 10) check_.lines.push_back(line);
    if (check_.rows.size() < 3)
      check_.rows.push_back(fmt::format("line {}: {}{}", line, text.substr(0, 300), note.empty() ? "" : "  <- " + note));
  }
  std::int64_t count() const { return check_.count; }
  TraceCheck& check() { return check_; }
  TraceCheck finish(std::int64_t checked, const std::string& unit) {
    if (checked == 0 && check_.count == 0) {
      check_.verdict = CheckVerdict::skipped;
      check_.observed = "nothing to check";
    } else {
      check_.verdict = check_.count == 0 ? CheckVerdict::pass : CheckVerdict::fail;
      check_.observed = fmt::format("{} of {} {} violate it", check_.count, checked, unit);
    }
    return check_;
  }

 private:
  TraceCheck check_;
};

struct ClientState {
  double arrival = 0, last_end = 0, prev_sleep = 0;
  std::int64_t retry = 0;
  bool burst = false;
  std::int64_t last_line = 0;
  std::string last_text;
};

struct Stat {
  TraceCheck check;
  double p;  // p-value, or NaN for an exact check
};

struct GroupRow {
  double start;
  bool success;
  std::int64_t line;
  std::string text;
};

struct Overlap {
  double end;
  bool success;
  std::int64_t line;
};

// What the declared server options (montecarlo/server_engine.hpp) do to the rules: which
// hold as they are, which hold in a generalised form, and which do not hold (the reason is shown as
// "n/a"). Rows are the client's view: start = send, end = when the outcome (or the client's
// timeout) reached the client. Without server options every field below gives the version-1 rules.
struct ServerRules {
  explicit ServerRules(const montecarlo::Scenario& s) {
    using montecarlo::DelayDist;
    using montecarlo::Overflow;
    using montecarlo::ServiceDist;
    const montecarlo::ServerOptions& o = s.server;
    any = montecarlo::has_server_features(s);
    const bool limited = o.limit > 0 || o.aimd;
    rejects = limited && o.overflow == Overflow::reject;
    const bool queues = limited && o.overflow == Overflow::queue;
    instant_reject = rejects && o.reject_cost == 0.0 && o.delay == 0.0;
    deterministic = o.service == ServiceDist::deterministic;
    const double d = o.delay_dist == DelayDist::fixed ? o.delay : 0.0;  // the least one-way delay
    timeout = o.timeout;
    max_attempts = o.max_attempts;
    // Durations: a served attempt takes 2d + its service (>= 1 when deterministic: rate <= 1); a
    // rejection 2d + reject_cost (its work, at rate <= 1); a timed-out one exactly the timeout.
    const double served = 2 * d + (deterministic ? 1.0 : 0.0);
    success_min = served;
    failure_min = std::min(timeout, rejects ? 2 * d + (deterministic ? std::min(1.0, o.reject_cost) : 0.0) : served);
    // collision/free serve every attempt at rate 1: with deterministic service, fixed delay and no
    // waiting (lock, queue) the durations take known values.
    exact = (s.model == Model::collision || s.model == Model::free) && deterministic && o.delay_dist == DelayDist::fixed &&
            !o.lock && !queues;
    if (exact) {
      success_value = 1 + 2 * d;
      failure_values.push_back(std::min(1 + 2 * d, timeout));
      if (rejects) failure_values.push_back(std::min(2 * d + o.reject_cost, timeout));
      if (std::isfinite(timeout)) failure_values.push_back(timeout);
      max_duration = *std::max_element(failure_values.begin(), failure_values.end());
    }
    if (!exact && success_min <= 0 && failure_min <= 0)
      duration_na = fmt::format("{} service{}: no positive least duration to check", to_string(o.service),
                                o.delay > 0 ? fmt::format(" and {} network delay", to_string(o.delay_dist)) : "");
    // collision: a success overlaps no other attempt, in service time; rows show it only when a
    // row's interval is its service interval and a conflict can be with any attempt.
    if (o.rows > 1) overlap_na = fmt::format("conflicts are per row (rows={}) and rows do not record their row", o.rows);
    else if (o.delay > 0) overlap_na = "with network delay a row's interval (send to receipt) is not its service interval";
    else if (o.lock) overlap_na = "with the lock an attempt waits inside its row's interval, then runs alone";
    else if (limited) overlap_na = "a rejected or queued attempt's interval is not a service interval";
    // free/shared: successful commits at least 1 apart on a row (deterministic service); a fixed
    // delay shifts every end equally.
    if (o.rows > 1) spacing_na = fmt::format("commits are spaced per row only (rows={}) and rows do not record their row", o.rows);
    else if (!deterministic) spacing_na = fmt::format("{} service: an attempt can commit less than 1 after the previous commit", to_string(o.service));
    else if (o.delay > 0 && o.delay_dist != DelayDist::fixed) spacing_na = "exponential network delay: responses reach clients in other order and spacing than the commits";
    // free/shared: a failure saw a commit during its service (any row's commit: weaker, still true
    // with rows); ps never fails. Rejections and timeouts fail without one.
    const bool injects = o.failure_prob > 0 || o.outage_end > 0;
    if (injects) idle_na = "injected failures (failure_prob, outage) fail attempts with no commit";
    else if (rejects) idle_na = "a rejected attempt fails with no commit (a limit with overflow=reject)";
    else if (std::isfinite(timeout)) idle_na = "an attempt its client stopped waiting for (timeout) fails with no commit";
    else if (o.delay > 0) idle_na = "with network delay the commit that dooms an attempt is not inside its row's interval";
    // The lock: an admitted attempt waits, then runs alone on its row, so it cannot fail; only a
    // rejection or a timeout can.
    lock = o.lock;
    if (o.lock && injects) lock_na = "injected failures (failure_prob, outage) fail attempts under the lock";
    else if (o.lock && rejects) lock_na = "a rejected attempt fails without reaching the lock";
    else if (o.lock && std::isfinite(timeout)) lock_na = "an attempt its client stopped waiting for (timeout) fails";
    // Sleeps: Retry-After can only lengthen one (sleep = max(backoff, Retry-After)); a mixed
    // population draws from one of two strategies.
    retry_after_max = o.retry_after > 0 ? (o.retry_after_rule == montecarlo::RetryAfterRule::fixed ? o.retry_after : 2 * o.retry_after) : 0.0;
    retry_after_fixed = o.retry_after_rule == montecarlo::RetryAfterRule::fixed;
    // Client-side controls: a call the breaker or the throttle rejects fails unsent (no row), and a
    // budget or a deadline ends a request before its retry limit.
    const bool local = o.breaker != 0 || std::string_view(montecarlo::budget_preset_names[o.budget]) == "sre-adaptive";
    if (local) sequence_na = "calls rejected locally (breaker, adaptive throttling) fail unsent: their retries leave no row";
    if (o.budget != 0 || std::isfinite(o.deadline) || local)
      vanish_na = "a retry budget, a deadline or a local rejection can end a request before its retry limit, unrecorded";
    if (o.mix > 0) strategies_mix = true;
    if (o.mix > 0)
      ks_na = fmt::format("mix={}: the sleeps are a mixture of two strategies' laws ({} and {})", o.mix,
                          to_string(s.backoff.strategy), to_string(o.mix_backoff.strategy));
    else if (o.retry_after > 0)
      ks_na = "Retry-After lengthens some sleeps (sleep = max(backoff, Retry-After))";
    // Closed forms: goodput with rows only (analytic/rows.hpp); none with any other option.
    montecarlo::Scenario plain = s;
    plain.server.rows = 1;
    only_rows = any && !montecarlo::has_server_features(plain);
    fields = montecarlo::canonical(s).substr(montecarlo::canonical(without_server(s)).size());
    if (!fields.empty()) fields.erase(0, 1);
  }
  static montecarlo::Scenario without_server(const montecarlo::Scenario& s) {
    montecarlo::Scenario p = s;
    p.server = montecarlo::ServerOptions{};
    return p;
  }

  bool any = false, rejects = false, instant_reject = false, deterministic = true, exact = false;
  bool strategies_mix = false, retry_after_fixed = true, only_rows = false, lock = false;
  double timeout = inf;
  std::int64_t max_attempts = 0;
  double success_min = 1, failure_min = 1, success_value = 1, max_duration = inf, retry_after_max = 0;
  std::vector<double> failure_values;
  std::string duration_na, overlap_na, spacing_na, idle_na, lock_na, ks_na, sequence_na, vanish_na;
  std::string fields;  // the server options as canonical() writes them, "rows=4 lock=on"
};

class Checker {
 public:
  explicit Checker(const montecarlo::Scenario& s)
      : s_(s),
        sv_(s),
        order_("time order", "invariant",
               sv_.instant_reject ? "arrival <= start <= end (a rejection with no cost and no delay takes no time); a first attempt starts at its arrival"
                                  : "arrival <= start < end; a first attempt starts at its arrival"),
        duration_("attempt duration", "invariant", duration_text(s, sv_)),
        timeout_("attempt timeout", "invariant",
                 fmt::format("end - start <= timeout {} (the client stops waiting then)", s.server.timeout)),
        overlap_("overlapping success", "invariant", "collision: a success overlaps no other attempt"),
        spacing_("success spacing", "invariant", "free/shared: successful commits at least 1 apart"),
        idle_("failure on idle resource", "invariant",
              "free/shared: a failed attempt [s, e] saw a successful commit in (s, e]; ps: no failures"),
        lock_("failure under the lock", "invariant",
              "with the lock every admitted attempt runs alone on its row: it never fails (only a rejection or a timeout can)"),
        sequence_("retry sequence", "invariant",
                  s.retries ? "per client: retry 0, 1, 2, ... each after the previous failure; start = previous end + sleep"
                            : "retries off: one attempt per client (retry 0)"),
        limit_("retry limit", "invariant",
               fmt::format("at most max_attempts = {} attempts per client (retry <= {})", s.server.max_attempts,
                           s.server.max_attempts - 1)),
        support_("sleep support", "invariant", support_text(s, sv_)),
        vanish_("vanished clients", "invariant",
                s.server.max_attempts > 0
                    ? "a client whose last attempt failed retries before the run stops, unless it was its max_attempts-th (see docs/traces.md)"
                    : "a client whose last attempt failed retries before the run stops (see docs/traces.md)") {}

  void row(const Row& r, std::int64_t line, std::string_view text) {
    ++rows_;
    ++run_attempts_;
    // time order
    ++order_n_;
    if (!(r.arrival <= r.start + tol(r.start)) || !(sv_.instant_reject ? r.start <= r.end : r.start < r.end) ||
        (r.retry == 0 && std::fabs(r.start - r.arrival) > tol(r.start)))
      order_.add(line, text);
    // duration
    const double d = r.end - r.start;
    if (sv_.duration_na.empty() && !duration_ok(r, d)) duration_.add(line, text, fmt::format("duration {}", d));
    if (std::isfinite(sv_.timeout) && d > sv_.timeout + tol(r.end))
      timeout_.add(line, text, fmt::format("duration {} > timeout {}", d, sv_.timeout));
    if (sv_.lock && sv_.lock_na.empty()) {
      ++lock_n_;
      if (!r.success) lock_.add(line, text, "a failure under the lock");
    }
    if (sv_.max_attempts > 0 && r.retry >= sv_.max_attempts)
      limit_.add(line, text, fmt::format("attempt {} of a client allowed {}", r.retry + 1, sv_.max_attempts));
    // model invariants
    if (s_.model == Model::collision && sv_.overlap_na.empty()) collision(r, line, text);
    if ((s_.model == Model::free || s_.model == Model::shared) && (sv_.spacing_na.empty() || sv_.idle_na.empty()))
      tie_group(r, line, text);
    if (s_.model == Model::ps && sv_.idle_na.empty()) {
      ++idle_n_;
      if (!r.success) idle_.add(line, text, "failure under ps");
    }
    client(r, line, text);
    // per-run accumulators
    if (r.success) {
      ++run_successes_;
      run_last_success_ = r.end;
      if (r.end >= s_.warmup) ++run_window_successes_;
    }
    if (r.end >= s_.warmup) {
      run_sojourn_ += r.end - r.start;
      ++run_sojourn_n_;
    }
    run_last_end_ = r.end;
  }

  void end_run(const std::optional<RunEnd>& stop) {
    flush_group();
    // the stop time: the run_end record's, else the last end seen (every earlier end was written)
    const double stop_time = stop ? stop->stop_time : (s_.rate > 0 && !s_.retries ? montecarlo::effective_horizon(s_) : run_last_end_);
    const std::string reason = stop ? stop->stop : "";
    for (const auto& [id, c] : clients_) {
      // only clients whose last attempt failed are left here (a success erases its client)
      if (!s_.retries) continue;
      if (sv_.max_attempts > 0 && c.retry + 1 >= sv_.max_attempts) continue;  // it gave up: lost, not vanished
      ++vanish_n_;
      bool vanished = reason == "finished" || (reason == "drained" && c.burst);
      if (!vanished && sv_.exact) {
        const double hi = max_sleep_any(c.retry + 1, c.prev_sleep);
        vanished = std::isfinite(hi) && c.last_end + hi + sv_.max_duration < stop_time - tol(stop_time);
      }
      if (vanished)
        vanish_.add(c.last_line, c.last_text,
                    fmt::format("client {} of run {} failed and never retried (stop {} at {})", id, run_, reason.empty() ? "?" : reason, stop_time));
    }
    clients_.clear();
    overlap_window_.clear();
    overlap_successes_ = 0;
    last_commit_ = -inf;
    // goodput (retries off, steady traffic) and time in system (ps)
    const double span = stop_time - s_.warmup;
    if (span > 0) {
      goodput_.push_back(static_cast<double>(run_window_successes_) / span);
      if (run_sojourn_n_ > 0) sojourn_.push_back(run_sojourn_ / static_cast<double>(run_sojourn_n_));
    }
    // classic test
    const bool finished = stop ? stop->stop == "finished" : s_.rate == 0 && run_successes_ == s_.clients;
    flush_ks(finished, stop_time);
    classic_runs_.push_back({run_attempts_, run_successes_, run_last_success_, finished, run_line_});
    run_attempts_ = run_successes_ = run_window_successes_ = run_sojourn_n_ = 0;
    run_sojourn_ = 0;
    run_last_success_ = run_last_end_ = std::nan("");
    ++runs_;
  }

  void begin_run(std::int64_t run, std::int64_t line) {
    run_ = run;
    run_line_ = line;
  }

  std::vector<TraceCheck> finish() {
    std::vector<TraceCheck> out;
    out.push_back(order_.finish(order_n_, "rows"));
    out.push_back(applies(duration_, sv_.duration_na, rows_, "rows"));
    if (std::isfinite(sv_.timeout)) out.push_back(timeout_.finish(rows_, "rows"));
    if (s_.model == Model::collision) out.push_back(applies(overlap_, sv_.overlap_na, rows_, "rows"));
    if (s_.model == Model::free || s_.model == Model::shared)
      out.push_back(applies(spacing_, sv_.spacing_na, successes_seen_, "successes"));
    if (s_.model != Model::collision) out.push_back(applies(idle_, sv_.idle_na, idle_n_, "rows"));
    if (sv_.lock) out.push_back(applies(lock_, sv_.lock_na, lock_n_, "rows"));
    out.push_back(applies(sequence_, sv_.sequence_na, rows_, "rows"));
    if (sv_.max_attempts > 0) out.push_back(limit_.finish(rows_, "rows"));
    out.push_back(support_.finish(support_n_, "sleeps"));
    out.push_back(applies(vanish_, sv_.vanish_na, vanish_n_, "clients left failed at a run's end"));
    statistics(out);
    return out;
  }

 private:
  // A rule that holds under the declared options is checked; one that does not is reported as
  // not applicable with the reason (never as passed).
  static TraceCheck applies(Finding& f, const std::string& why_not, std::int64_t checked, const std::string& unit) {
    if (why_not.empty()) return f.finish(checked, unit);
    TraceCheck c = f.check();
    c.verdict = CheckVerdict::not_applicable;
    c.count = 0;  // what it would have flagged is no finding
    c.lines.clear();
    c.rows.clear();
    c.observed = "not applicable: " + why_not;
    return c;
  }

  static std::string duration_text(const montecarlo::Scenario& s, const ServerRules& sv) {
    if (!sv.any)
      return s.model == Model::collision || s.model == Model::free ? "end - start = 1 (one attempt-duration)"
                                                                  : "end - start >= 1 (one unit of service at rate <= 1)";
    if (sv.exact) {
      std::string failures;
      for (double v : sv.failure_values) failures += fmt::format("{}{}", failures.empty() ? "" : " or ", v);
      return fmt::format("success: end - start = {} (2*delay + 1); failure: {} (served{}{})", sv.success_value, failures,
                         sv.rejects ? ", rejected" : "", std::isfinite(sv.timeout) ? ", timed out" : "");
    }
    return fmt::format("end - start >= {} for a success, >= {} for a failure (2*delay + service{}{})", sv.success_min,
                       sv.failure_min, sv.rejects ? "; a rejection 2*delay + reject_cost" : "",
                       std::isfinite(sv.timeout) ? "; at most the timeout" : "");
  }

  static std::string support_text(const montecarlo::Scenario& s, const ServerRules& sv) {
    std::string t = support_text(s.backoff);
    if (sv.strategies_mix) t += fmt::format("; or, for the mixed population ({}): {}", to_string(s.server.mix_backoff.strategy), support_text(s.server.mix_backoff));
    if (sv.retry_after_max > 0)
      t += sv.retry_after_fixed ? fmt::format("; Retry-After can only lengthen it: or exactly {}", sv.retry_after_max)
                                : fmt::format("; Retry-After can only lengthen it: or up to {}", sv.retry_after_max);
    return t;
  }

  static std::string support_text(const Backoff& b) {
    switch (b.strategy) {
      case Strategy::none: return "sleep = 0";
      case Strategy::nojitter: return "sleep = w_k = min(c, b*2^(k-1))";
      case Strategy::full: return "sleep in [0, w_k]";
      case Strategy::equal: return "sleep in [w_k/2, w_k]";
      case Strategy::decorrelated: return "sleep in [b, min(c, 3*previous sleep)]";
      case Strategy::window: return "sleep in [0, W]";
      case Strategy::memoryless: return "sleep in [0, inf) (exponential, mean w_k/2: support only, no KS: censoring is unbounded)";
    }
    return "";
  }

  double width(std::int64_t k) const { return width(s_.backoff, k); }
  static double width(const Backoff& b, std::int64_t k) {
    return window_width(b, static_cast<int>(std::min<std::int64_t>(k, 100000)));
  }

  // The sleep bounds [lo, hi] of strategy b before retry k (prev: the previous sleep, NaN before
  // the first: then b's base, decorrelated jitter's s_0).
  static std::pair<double, double> sleep_bounds(const Backoff& b, std::int64_t k, double prev) {
    if (std::isnan(prev)) prev = b.base;
    switch (b.strategy) {
      case Strategy::none: return {0.0, 0.0};
      case Strategy::nojitter: return {width(b, k), width(b, k)};
      case Strategy::full: return {0.0, width(b, k)};
      case Strategy::equal: return {width(b, k) / 2, width(b, k)};
      case Strategy::decorrelated: return {b.base, std::min(b.cap, 3.0 * prev)};
      case Strategy::window: return {0.0, b.window};
      case Strategy::memoryless: return {0.0, inf};
    }
    return {0.0, inf};
  }

  // The largest sleep the strategy can choose before retry k (prev: the previous sleep).
  double max_sleep(std::int64_t k, double prev) const { return sleep_bounds(s_.backoff, k, prev).second; }

  // The largest sleep any declared client can take before retry k (mixed population, Retry-After).
  double max_sleep_any(std::int64_t k, double prev) const {
    double hi = max_sleep(k, prev);
    if (sv_.strategies_mix) hi = std::max(hi, sleep_bounds(s_.server.mix_backoff, k, prev).second);
    return std::max(hi, sv_.retry_after_max);
  }

  // The sleep x is allowed for strategy b: inside its bounds, or lengthened by a Retry-After.
  bool sleep_allowed(const Backoff& b, std::int64_t k, double prev, double x) const {
    const double eps = 1e-12;
    const auto [lo, hi] = sleep_bounds(b, k, prev);
    if (x < lo - eps * std::max(1.0, lo)) return false;
    if (x <= hi + eps * std::max(1.0, hi)) return true;
    if (sv_.retry_after_max <= 0) return false;
    const double ra = sv_.retry_after_max;
    return sv_.retry_after_fixed ? std::fabs(x - ra) <= eps * std::max(1.0, ra) : x <= ra + eps * std::max(1.0, ra);
  }

  bool duration_ok(const Row& r, double d) const {
    const double t = tol(r.end);
    if (sv_.exact) {
      if (r.success) return std::fabs(d - sv_.success_value) <= t;
      return std::any_of(sv_.failure_values.begin(), sv_.failure_values.end(), [&](double v) { return std::fabs(d - v) <= t; });
    }
    return d >= (r.success ? sv_.success_min : sv_.failure_min) - t;
  }

  void collision(const Row& r, std::int64_t line, std::string_view text) {
    while (!overlap_window_.empty() && overlap_window_.front().end <= r.start + tol(r.start)) {
      overlap_successes_ -= overlap_window_.front().success;
      overlap_window_.pop_front();
    }
    if (!overlap_window_.empty() && (r.success || overlap_successes_ > 0)) {
      const Overlap& o = overlap_window_.back();
      overlap_.add(line, text, fmt::format("overlaps line {} and a success is among them", o.line));
    }
    if (overlap_window_.size() >= 1000000) {  // bounded memory: forget the oldest
      overlap_successes_ -= overlap_window_.front().success;
      overlap_window_.pop_front();
    }
    overlap_window_.push_back({r.end, r.success, line});
    overlap_successes_ += r.success;
  }

  void tie_group(const Row& r, std::int64_t line, std::string_view text) {
    if (!group_.empty() && r.end != group_end_) flush_group();
    group_end_ = r.end;
    group_.push_back({r.start, r.success, line, std::string(text.substr(0, 300))});
  }

  void flush_group() {
    if (group_.empty()) return;
    const double e = group_end_;
    std::int64_t wins = 0;
    for (const auto& g : group_) wins += g.success;
    for (const auto& g : group_) {
      if (!g.success) continue;
      ++successes_seen_;
      if (wins > 1) spacing_.add(g.line, g.text, fmt::format("{} successes commit at {}", wins, e));
      else if (e - last_commit_ < 1.0 - tol(e)) spacing_.add(g.line, g.text, fmt::format("previous commit at {}", last_commit_));
    }
    const double commit = wins > 0 ? e : last_commit_;
    for (const auto& g : group_) {
      if (g.success) continue;
      ++idle_n_;
      if (!(commit > g.start - tol(g.start)))
        idle_.add(g.line, g.text, fmt::format("no successful commit in ({}, {}]{}", g.start, e, group_.size() > 1 ? fmt::format("; {} attempts end together, none won", group_.size()) : ""));
    }
    if (wins > 0) last_commit_ = e;
    group_.clear();
  }

  void client(const Row& r, std::int64_t line, std::string_view text) {
    const auto it = clients_.find(r.client);
    ClientState* c = it == clients_.end() ? nullptr : &it->second;
    bool bad = false;
    std::string why;
    if (!s_.retries) {
      if (r.retry != 0) bad = true, why = "retries off but retry > 0";
    } else if (r.retry == 0) {
      if (c) bad = true, why = "a second first attempt for a waiting client";
    } else if (!c) {
      bad = true, why = fmt::format("retry {} with no earlier failed attempt of this client in flight", r.retry);
    } else {
      if (r.retry != c->retry + 1) bad = true, why = fmt::format("retry {} after retry {}", r.retry, c->retry);
      else if (r.start < c->last_end - tol(c->last_end)) bad = true, why = "starts before the previous attempt ended";
      else if (!r.has_sleep) bad = true, why = "no sleep recorded for a retry";
      else if (std::fabs(r.start - c->last_end - r.sleep) > tol(r.start)) bad = true, why = fmt::format("start - previous end = {} but sleep = {}", r.start - c->last_end, r.sleep);
      else if (std::fabs(r.arrival - c->arrival) > tol(r.arrival)) bad = true, why = "arrival time changed";
    }
    if (bad) sequence_.add(line, text, why);

    double prev = std::nan("");  // none before the first retry: each strategy starts from its own base
    if (c) prev = c->prev_sleep;
    if (s_.retries && r.retry >= 1 && r.has_sleep) sleep_check(r, prev, line, text);

    if (r.success || !s_.retries) {
      if (c) clients_.erase(it);
      return;
    }
    ClientState& st = c ? *c : clients_[r.client];
    if (!c) st.prev_sleep = std::nan("");
    st.arrival = r.arrival;
    st.last_end = r.end;
    st.retry = r.retry;
    st.burst = r.burst;
    if (r.retry >= 1 && r.has_sleep) st.prev_sleep = r.sleep;
    st.last_line = line;
    st.last_text = std::string(text.substr(0, 300));
  }

  void sleep_check(const Row& r, double prev, std::int64_t line, std::string_view text) {
    ++support_n_;
    const double x = r.sleep;
    const Backoff& b = s_.backoff;
    const double eps = 1e-12;
    const auto [lo, hi] = sleep_bounds(b, r.retry, prev);
    if (!sleep_allowed(b, r.retry, prev, x) &&
        !(sv_.strategies_mix && sleep_allowed(s_.server.mix_backoff, r.retry, prev, x))) {
      std::string also;
      if (sv_.strategies_mix) {
        const auto [mlo, mhi] = sleep_bounds(s_.server.mix_backoff, r.retry, prev);
        also += fmt::format(" and the mixed population's [{}, {}]", mlo, mhi);
      }
      if (sv_.retry_after_max > 0) also += fmt::format(", not a Retry-After of {}{}", sv_.retry_after_fixed ? "" : "at most ", sv_.retry_after_max);
      support_.add(line, text, fmt::format("retry {}: sleep {} outside [{}, {}]{}", r.retry, x, lo, hi, also));
      return;
    }
    if (!sv_.ks_na.empty()) return;  // no law to test the sleeps against
    if (std::isnan(prev)) prev = b.base;
    // probability integral transform: U(0,1) under the declared law (conditional on the previous
    // sleep for decorrelated jitter; randomized at its atom at the cap)
    if (!std::isfinite(hi)) return;  // cap none and a width past every double: no law to test against
    double u;
    switch (b.strategy) {
      case Strategy::none:
      case Strategy::nojitter: return;  // point masses: the support check is exact
      case Strategy::full:
      case Strategy::equal:
      case Strategy::window: {
        const auto f = sleep_cdf(r.retry, x);
        if (!f) return;
        u = *f;
        break;
      }
      case Strategy::decorrelated: {
        const double top = 3.0 * prev;  // the draw is U(b, 3·prev), then capped at c
        if (top <= b.cap || x < b.cap * (1 - eps)) {
          u = (x - b.base) / (top - b.base);
        } else {
          const double a = (b.cap - b.base) / (top - b.base);
          u = a + pit_.uniform() * (1 - a);
        }
        break;
      }
      default: return;
    }
    // Censoring: a retry is written only if it ends before the stop, so long sleeps near the stop
    // would be missing. A sleep enters the KS sample only if its retry would have been written
    // whatever sleep was drawn (decided at the run's end, when the stop is known).
    if (pending_ks_.size() < static_cast<std::size_t>(max_pending))
      pending_ks_.push_back({std::clamp(u, 0.0, 1.0), r.start - x + max_sleep(r.retry, prev),
                             static_cast<int>(std::min<std::int64_t>(r.retry, 9) - 1)});
  }

  void flush_ks(bool finished, double stop_time) {
    for (const auto& p : pending_ks_) {
      if (!finished && !(sv_.exact && p.latest_start + sv_.max_duration < stop_time - tol(stop_time))) continue;
      auto& bucket = ks_[static_cast<std::size_t>(p.bucket)];
      if (bucket.size() < static_cast<std::size_t>(ks_sample_cap)) bucket.push_back(p.u);
      if (ks_all_.size() < static_cast<std::size_t>(ks_sample_cap)) ks_all_.push_back(p.u);
    }
    pending_ks_.clear();
  }

  // The exact CDF of the sleep before retry k (analytic/sleep.hpp), one law per k (cached).
  // Empty when analytic/sleep.hpp has no law for this k (outside its stated limits).
  std::optional<double> sleep_cdf(std::int64_t k, double x) {
    const int kk = static_cast<int>(std::min<std::int64_t>(k, 100000));
    auto it = laws_.find(kk);
    if (it == laws_.end()) {
      if (laws_.size() > 4096) laws_.clear();
      try {
        it = laws_.emplace(kk, SleepDistribution(s_.backoff, kk)).first;
      } catch (const InputError&) {
        return std::nullopt;
      }
    }
    return it->second.cdf(x);
  }

  void statistics(std::vector<TraceCheck>& out) {
    std::vector<Stat> stats;
    // KS of sleeps per retry index, and pooled
    const bool jittered = s_.backoff.strategy == Strategy::full || s_.backoff.strategy == Strategy::equal ||
                          s_.backoff.strategy == Strategy::window || s_.backoff.strategy == Strategy::decorrelated;
    if (s_.retries && jittered && !sv_.ks_na.empty())
      stats.push_back({not_applicable("sleep distribution", "KS against the exact sleep CDF (analytic/sleep.hpp)", sv_.ks_na),
                       std::nan("")});
    if (s_.retries && jittered && sv_.ks_na.empty()) {
      const auto uniform = [](double x) { return std::clamp(x, 0.0, 1.0); };
      for (std::size_t k = 0; k < ks_.size(); ++k) {
        if (ks_[k].size() < 20) continue;
        const KsResult r = ks_test(ks_[k], uniform);
        stats.push_back({{fmt::format("sleep distribution, retry {}", k < 8 ? std::to_string(k + 1) : "9+"), "statistic",
                          "KS against the exact sleep CDF (analytic/sleep.hpp; decorrelated: conditional on the previous sleep)",
                          fmt::format("D = {:.4g}, n = {}, p = {:.3g}", r.statistic, r.n, r.pvalue), CheckVerdict::pass, 0, {}, {}},
                         r.pvalue});
      }
      if (ks_all_.size() >= 20) {
        const KsResult r = ks_test(ks_all_, uniform);
        stats.push_back({{"sleep distribution, all retries", "statistic",
                          "KS of F_k(sleep) pooled over retries against U(0,1)",
                          fmt::format("D = {:.4g}, n = {}, p = {:.3g}", r.statistic, r.n, r.pvalue), CheckVerdict::pass, 0, {}, {}},
                         r.pvalue});
      }
    }
    const bool steady_only = s_.clients == 0 && s_.rate > 0;
    // goodput with retries off: ALOHA and the M/D/1/1 loss system
    if (steady_only && !s_.retries && (s_.model == Model::collision || s_.model == Model::free) && goodput_.size() >= 2) {
      if (!sv_.any) {
        const double expect = s_.model == Model::collision ? goodput(PureAloha{s_.rate}) : goodput(OccFree{s_.rate});
        stats.push_back(mean_check("goodput (retries off)",
                                   s_.model == Model::collision ? "lambda*exp(-2*lambda) (proofs/Aloha.v)" : "lambda/(1+lambda) (proofs/Occ.v)",
                                   goodput_, expect));
      } else if (sv_.only_rows) {
        const std::int64_t m = s_.server.rows;
        const double expect = s_.model == Model::collision ? goodput(AlohaRows{s_.rate, m}) : goodput(FreeRows{s_.rate, m});
        stats.push_back(mean_check("goodput (retries off)",
                                   s_.model == Model::collision ? "lambda*exp(-2*lambda/M) (proofs/Rows.v: aloha_rows_goodput)"
                                                                : "lambda/(1+lambda/M) (proofs/Rows.v: occ_rows_goodput)",
                                   goodput_, expect));
      } else {
        stats.push_back({not_applicable("goodput (retries off)", "the ALOHA / first-commit-wins closed forms (rows only)",
                                        fmt::format("no closed form with {}", sv_.fields)),
                         std::nan("")});
      }
    }
    // The FIFO lock with retries off: M/G/1 FIFO per row (each row sees λ/M by thinning; `shared`
    // and `ps` share one server between rows, so one row only there); mean time in system by
    // Pollaczek–Khinchine. No delay, no limit (it would add to or cut the queue).
    const montecarlo::ServerOptions& so = s_.server;
    if (steady_only && !s_.retries && so.lock && so.delay == 0 && so.limit == 0 && !so.aimd &&
        (so.rows == 1 || s_.model == Model::collision || s_.model == Model::free) &&
        s_.rate / static_cast<double>(so.rows) < 1 && sojourn_.size() >= 2) {
      const double m2 = so.service == montecarlo::ServiceDist::exponential ? service_second_moment_exponential()
                        : so.service == montecarlo::ServiceDist::lognormal ? service_second_moment_lognormal(so.service_cv)
                                                                           : 1.0;
      stats.push_back(mean_check("time in system (lock)",
                                 fmt::format("1 + lambda*E[S^2]/(2(1-lambda)), lambda = {} per row, E[S^2] = {} "
                                             "(proofs/Rows.v: pk_mean_time)", s_.rate / static_cast<double>(so.rows), m2),
                                 sojourn_, mean_time(FifoQueue{s_.rate / static_cast<double>(so.rows), m2})));
    }
    if (steady_only && s_.model == Model::ps && s_.rate < 1 && sojourn_.size() >= 2) {
      if (!sv_.any)
        stats.push_back(mean_check("time in system (ps)", "1/(1-rho) (proofs/Ps.v: ps_mean_time)", sojourn_,
                                   mean_time(ProcessorSharing{s_.rate, 1.0})));
      else
        stats.push_back({not_applicable("time in system (ps)", "1/(1-rho) (proofs/Ps.v: ps_mean_time)",
                                        fmt::format("no closed form with {}", sv_.fields)),
                         std::nan("")});
    }
    // classic test: exact
    std::optional<ClassicResult> classic_form;
    if (sv_.any && s_.rate == 0 && s_.clients >= 1 && s_.retries && has_classic_closed_form(s_.model, s_.backoff.strategy))
      stats.push_back({not_applicable("classic test (exact)", "attempts per client and makespan (proofs/Classic.v)",
                                      fmt::format("the classic closed forms assume no server options (here {})", sv_.fields)),
                       std::nan("")});
    else if (s_.rate == 0 && s_.clients >= 1 && s_.retries && has_classic_closed_form(s_.model, s_.backoff.strategy)) {
      try {
        classic_form = classic(ClassicTest{s_.model, s_.backoff, s_.clients});
      } catch (const InputError&) {
        // outside analytic/classic.hpp's limits (N > 10^15): no closed form to compare with
      }
    }
    if (classic_form) {
      const ClassicResult& c = *classic_form;
      TraceCheck t{"classic test (exact)", "statistic", "", "", CheckVerdict::pass, 0, {}, {}};
      const double n = static_cast<double>(s_.clients);
      std::int64_t checked = 0;
      if (c.finishes) {
        t.expected = fmt::format("attempts per client {} and makespan {} in every finished run (proofs/Classic.v)",
                                 *c.attempts_per_client, *c.makespan);
        for (const auto& r : classic_runs_) {
          if (!r.finished) continue;
          ++checked;
          const double apc = static_cast<double>(r.attempts) / n;
          const double mtol = 4 * n * std::numeric_limits<double>::epsilon() * *c.makespan;
          if (apc != *c.attempts_per_client || std::fabs(r.makespan - *c.makespan) > mtol) {
            ++t.count;
            if (t.lines.size() < 10) t.lines.push_back(r.line);
            if (t.rows.size() < 3)
              t.rows.push_back(fmt::format("run starting at line {}: attempts per client {}, makespan {}", r.line, apc, r.makespan));
          }
        }
      } else {
        t.expected = "no success ever (clients that start together collide forever; proofs/Classic.v)";
        for (const auto& r : classic_runs_) {
          ++checked;
          if (r.successes > 0) {
            ++t.count;
            if (t.lines.size() < 10) t.lines.push_back(r.line);
          }
        }
      }
      t.observed = fmt::format("{} of {} runs differ", t.count, checked);
      t.verdict = checked == 0 ? CheckVerdict::skipped : t.count ? CheckVerdict::fail : CheckVerdict::pass;
      stats.push_back({t, std::nan("")});
    }
    std::int64_t tests = 0;
    for (const auto& s : stats) tests += std::isfinite(s.p);
    const double alpha = tests > 0 ? bonferroni_alpha(trace_alpha_total, tests) : trace_alpha_total;
    for (auto& s : stats) {
      if (std::isfinite(s.p)) {
        s.check.verdict = s.p < alpha ? CheckVerdict::fail : CheckVerdict::pass;
        s.check.observed += fmt::format(" (fail if p < {:.2g})", alpha);
      }
      out.push_back(s.check);
    }
  }

  static TraceCheck not_applicable(const std::string& name, const std::string& form, const std::string& why) {
    return {name, "statistic", form, "not applicable: " + why, CheckVerdict::not_applicable, 0, {}, {}};
  }

  // Two-sided t-test of the run means against the closed form; the p-value from Student's t.
  static Stat mean_check(const std::string& name, const std::string& form, const std::vector<double>& xs, double expect) {
    const MeanSummary m = summarize_mean(xs);
    const double se = m.sd / std::sqrt(static_cast<double>(m.n));
    double p;
    if (se > 0) {
      const double t = std::fabs(m.mean - expect) / se;
      p = student_t_two_sided_p(t, static_cast<double>(m.n - 1));
    } else {
      p = std::fabs(m.mean - expect) <= tol(expect) ? 1.0 : 0.0;
    }
    TraceCheck c{name, "statistic", fmt::format("{} = {:.6g}", form, expect),
                 fmt::format("{:.6g} +- {:.3g} (sd/sqrt(n), n = {} runs), p = {:.3g}", m.mean, se, m.n, p),
                 CheckVerdict::pass, 0, {}, {}};
    return {c, p};
  }

  // P(|T| > t), T ~ Student-t(df): bisect validation's t_two_sided(alpha, df), which is decreasing in alpha.
  static double student_t_two_sided_p(double t, double df) {
    double lo = 1e-300, hi = 1.0;
    if (t_two_sided(lo, df) <= t) return lo;
    for (int i = 0; i < 200; ++i) {
      const double mid = std::sqrt(lo * hi);
      if (t_two_sided(mid, df) > t) lo = mid;
      else hi = mid;
      if (hi / lo < 1 + 1e-6) break;
    }
    return hi;
  }

  struct ClassicRun {
    std::int64_t attempts, successes;
    double makespan;
    bool finished;
    std::int64_t line;
  };

  const montecarlo::Scenario& s_;
  ServerRules sv_;
  Finding order_, duration_, timeout_, overlap_, spacing_, idle_, lock_, sequence_, limit_, support_, vanish_;
  std::int64_t lock_n_ = 0;
  std::int64_t rows_ = 0, order_n_ = 0, idle_n_ = 0, support_n_ = 0, vanish_n_ = 0, successes_seen_ = 0, runs_ = 0;
  std::int64_t run_ = 0, run_line_ = 0;
  std::unordered_map<std::int64_t, ClientState> clients_;
  std::deque<Overlap> overlap_window_;
  std::int64_t overlap_successes_ = 0;
  std::vector<GroupRow> group_;
  double group_end_ = 0, last_commit_ = -inf;
  std::int64_t run_attempts_ = 0, run_successes_ = 0, run_window_successes_ = 0, run_sojourn_n_ = 0;
  double run_sojourn_ = 0, run_last_success_ = std::nan(""), run_last_end_ = std::nan("");
  std::vector<double> goodput_, sojourn_;
  std::vector<ClassicRun> classic_runs_;
  std::array<std::vector<double>, 9> ks_;
  std::vector<double> ks_all_;
  struct PendingKs {
    double u, latest_start;
    int bucket;
  };
  static constexpr std::int64_t max_pending = 4000000;  // per run: bounded memory (64 MB)
  std::vector<PendingKs> pending_ks_;
  std::map<int, SleepDistribution> laws_;
  SplitMix pit_;
};

}  // namespace

std::string to_string(CheckVerdict v) {
  switch (v) {
    case CheckVerdict::pass: return "pass";
    case CheckVerdict::fail: return "FAIL";
    case CheckVerdict::skipped: return "skipped";
    case CheckVerdict::not_applicable: return "n/a";
  }
  return "";
}

bool TraceReport::passed() const {
  return std::none_of(checks.begin(), checks.end(), [](const TraceCheck& c) { return c.verdict == CheckVerdict::fail; });
}

TraceReport check_trace(std::istream& in) {
  std::streambuf* sb = in.rdbuf();
  std::string line;
  std::int64_t n = 0;
  const auto read_line = [&]() -> bool {
    line.clear();
    if (!sb) return false;
    bool any = false;
    for (;;) {
      const int c = sb->sbumpc();
      if (c == std::char_traits<char>::eof()) break;
      any = true;
      if (c == '\n') break;
      if (line.size() >= max_line) malformed(n + 1, "line", fmt::format("must be at most {} bytes", max_line));
      line.push_back(static_cast<char>(c));
    }
    if (!any) return false;
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };

  TraceReport report;
  Header header;
  bool json = false;
  std::size_t columns = 9;
  // header
  if (!read_line()) malformed(1, "header", "is missing (empty trace)");
  if (!line.empty() && line[0] == '{') {
    json = true;
    if (std::count(line.begin(), line.end(), '[') + std::count(line.begin(), line.end(), '{') > 64)
      malformed(n, "header", "nests too deeply");
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) malformed(n, "header", "must be a JSON object");
    for (const auto& [k, v] : j.items()) {
      const std::string key = k == "retrylab_trace" ? "version" : k;
      header.kv[key] = v.is_string() ? v.get<std::string>() : v.dump();
    }
    if (!header.kv.count("version")) malformed(n, "retrylab_trace", "is required in the header (the format version, 1)");
    header.line = n;
  } else {
    for (;;) {
      if (line.empty() || line[0] != '#') {
        if (line == montecarlo::trace_csv_columns) break;
        if (line == montecarlo::trace_csv_columns.substr(0, montecarlo::trace_csv_columns.size() - 6)) {
          columns = 8;
          break;
        }
        malformed(n, "header", fmt::format("must be '# key=value' lines then the column line \"{}\"", montecarlo::trace_csv_columns));
      }
      for (auto& [k, v] : comment_pairs(line)) {
        if (k == "retrylab-trace") continue;
        header.kv[k] = v;
        header.key_line[k] = n;
      }
      header.line = n;
      if (!read_line()) malformed(n + 1, "header", "ends before the column line");
    }
  }
  report.format = json ? "jsonl" : "csv";
  report.declared = declared_scenario(header, report.seed);
  Checker checker(report.declared);
  const std::optional<std::int64_t> declared_runs = runs_in_header(header);
  std::int64_t run_ends = 0;

  std::int64_t run = -1;
  double last_end = -inf;
  bool run_closed = false;
  const auto close_run = [&](const std::optional<RunEnd>& stop) {
    checker.end_run(stop);
    ++report.runs;
    run_closed = true;
  };
  while (read_line()) {
    if (line.empty()) continue;
    std::optional<Row> row;
    std::optional<RunEnd> stop;
    if (!json) {
      if (line[0] == '#') {
        const auto pairs = comment_pairs(line);
        if (pairs.empty() || pairs[0].first != "run_end") continue;  // other comments are ignored
        RunEnd e;
        bool has_run = false, has_time = false;
        for (const auto& [k, v] : pairs) {
          if (k == "run") e.run = need_int(v, n, "run"), has_run = true;
          else if (k == "stop") e.stop = v;
          else if (k == "stop_time") e.stop_time = need_double(v, n, "stop_time"), has_time = true;
        }
        if (!has_run || !has_time) malformed(n, "run_end", "needs run= and stop_time=");
        stop = e;
      } else {
        row = parse_csv_row(line, n, columns);
      }
    } else {
      if (std::count(line.begin(), line.end(), '[') + std::count(line.begin(), line.end(), '{') > 64)
        malformed(n, "row", "nests too deeply");
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) malformed(n, "row", "must be a JSON object");
      if (j.contains("run_end")) {
        RunEnd e;
        e.run = json_int(j, "run_end", n);
        e.stop_time = json_double(j, "stop_time", n);
        const auto s = j.find("stop");
        if (s != j.end() && s->is_string()) e.stop = s->get<std::string>();
        stop = e;
      } else {
        row = parse_json_row(j, n);
      }
    }
    if (stop) {
      if (stop->stop != "" && stop->stop != "finished" && stop->stop != "drained" && stop->stop != "collapsed" && stop->stop != "horizon")
        malformed(n, "stop", fmt::format("must be finished, drained, collapsed or horizon (got \"{}\")", stop->stop.substr(0, 40)));
      if (stop->run < run || (stop->run == run && run_closed))
        malformed(n, "run", fmt::format("run_end for run {} comes after run {} (runs in increasing order)", stop->run, run));
      if (stop->run == run && stop->stop_time < last_end - tol(last_end))
        malformed(n, "stop_time", fmt::format("must be >= the end {} of the run's last row (got {})", last_end, stop->stop_time));
      check_run_index(stop->run, declared_runs, n);
      ++run_ends;
      if (stop->run > run) {
        if (run >= 0 && !run_closed) close_run(std::nullopt);
        run = stop->run;
        checker.begin_run(run, n);
      }
      close_run(stop);
      last_end = -inf;
      continue;
    }
    if (row->run < run || (row->run == run && run_closed))
      malformed(n, "run", fmt::format("must not decrease and no row follows its run_end (got {} after {})", row->run, run));
    if (row->run > run) {
      check_run_index(row->run, declared_runs, n);
      if (run >= 0 && !run_closed) close_run(std::nullopt);
      run = row->run;
      run_closed = false;
      last_end = -inf;
      checker.begin_run(run, n);
    }
    if (row->end < last_end)
      malformed(n, "end", fmt::format("must be >= the previous row's end {} (rows are written when attempts end)", last_end));
    last_end = row->end;
    ++report.rows;
    checker.row(*row, n, line);
  }
  if (run >= 0 && !run_closed) close_run(std::nullopt);
  if (declared_runs && run_ends > 0 && run_ends != *declared_runs)
    malformed(header.line, "runs", fmt::format("is {} in the header but the trace ends {} runs (run_end records)",
                                               *declared_runs, run_ends));
  report.checks = checker.finish();
  return report;
}

}  // namespace retrylab::validation
