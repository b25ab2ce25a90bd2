// The Envoy importer (api v3: config.route.v3.RetryPolicy and RouteAction.timeout,
// config.cluster.v3.CircuitBreakers): the first retry_policy anywhere in the file, the timeout of
// the route holding it, and the retry budget or max_retries of the clusters' circuit breakers.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <cmath>
#include <functional>
#include <vector>

#include "policy/detail.hpp"
#include "policy/yaml.hpp"

namespace retrylab::policy::detail {

namespace {

constexpr std::string_view route_doc = "Envoy api v3 config.route.v3.RetryPolicy";
constexpr std::string_view router_doc = "Envoy docs, HTTP router filter, \"x-envoy-max-retries\" and retry back-off";

struct Found {
  YAML::Node node;
  std::string path;
  YAML::Node parent;  // the map holding it (a RouteAction when it has `cluster`)
};

int line(const YAML::Node& n) { return n.Mark().line < 0 ? 0 : n.Mark().line + 1; }

// Every node under key `name`, depth first in file order.
void find_all(const YAML::Node& n, const std::string& path, std::string_view name, std::vector<Found>& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string k = kv.first.Scalar();
      const std::string p = path.empty() ? k : fmt::format("{}.{}", path, k);
      if (k == name) out.push_back({kv.second, p, n});
      find_all(kv.second, p, name, out);
    }
  } else if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i) find_all(n[i], fmt::format("{}[{}]", path, i), name, out);
  }
}

struct Reader {
  Policy& p;
  const std::string& path;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& message) const {
    detail::fail(path, line(n), key, message);
  }
  double seconds(const YAML::Node& n, const std::string& key, bool zero_ok = false) const {
    const auto s = n.IsScalar() ? proto_duration(n.Scalar()) : std::nullopt;
    if (!s || (!zero_ok && !(*s > 0.0))) fail(n, key, "must be a duration such as \"0.25s\"");
    return *s;
  }
  double count(const YAML::Node& n, const std::string& key, double lo, double hi) const {
    double v = NAN;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      fail(n, key, "must be a number");
    }
    if (!(v >= lo && v <= hi)) fail(n, key, fmt::format("must be in [{}, {}] (got {})", num(lo), num(hi), num(v)));
    return v;
  }
  void add(std::string field, std::string value, std::string unit, std::string source, int at) {
    p.entries.push_back({std::move(field), std::move(value), std::move(unit), std::move(source), at});
  }
  void note(const std::string& key, const YAML::Node& n, std::string text, bool effect = true) {
    p.notes.push_back({key, line(n), std::move(text), effect});
  }
};

void back_off(Reader& r, const YAML::Node& rp, const std::string& at) {
  double base = 0.025, most = 0.25;
  std::string base_src =
                  fmt::format("{}: default base interval 25 ms (runtime upstream.base_retry_backoff_ms)", router_doc),
              max_src = fmt::format("{}: max_interval defaults to 10 times base_interval", route_doc);
  int base_line = 0, max_line = 0;
  if (rp["retry_back_off"]) {
    const YAML::Node bo = rp["retry_back_off"];
    const std::string k = at + ".retry_back_off";
    if (!bo.IsMap() || !bo["base_interval"]) r.fail(bo, k, "must be a map with base_interval (RetryBackOff)");
    base = r.seconds(bo["base_interval"], k + ".base_interval");
    base = std::max(base, 0.001);  // Envoy rounds an interval under 1 ms up to 1 ms
    base_src = k + ".base_interval";
    base_line = line(bo["base_interval"]);
    most = 10 * base;
    if (bo["max_interval"]) {
      most = r.seconds(bo["max_interval"], k + ".max_interval");
      if (most < base) r.fail(bo["max_interval"], k + ".max_interval", "must be >= base_interval (RetryBackOff)");
      max_src = k + ".max_interval";
      max_line = line(bo["max_interval"]);
    }
    for (const auto& kv : bo)
      if (kv.first.Scalar() != "base_interval" && kv.first.Scalar() != "max_interval")
        r.note(fmt::format("{}.{}", k, kv.first.Scalar()), kv.second, "is not a RetryBackOff key");
  }
  r.add("strategy", "full", "",
        "Envoy's fully jittered exponential back-off: retry n waits random() % min(base_interval * 2^(n-1), "
        "max_interval) ms (source/common/common/backoff_strategy.cc, JitteredExponentialBackOffStrategy)",
        0);
  r.add("base", num(base * 1000), "ms", base_src, base_line);
  r.add("cap", num(most * 1000), "ms", max_src, max_line);
  r.add("multiplier", "2", "", "JitteredExponentialBackOffStrategy doubles the interval", 0);
}

// retry_on's conditions onto retrylab's failure kinds (retry_on): a retryable failure is a 503, a
// reset or a refused connection (5xx, gateway-error, reset, connect-failure, refused-stream,
// unavailable; retriable-status-codes listing 500-504), a throttled one a 429 or RESOURCE_EXHAUSTED
// (resource-exhausted, envoy-ratelimited; retriable-status-codes listing 429). Conditions that no
// simulated failure meets (retriable-4xx: 409; cancelled, deadline-exceeded, internal; headers) are
// a note. A failure of a kind none names ends its request (Envoy returns it).
void retry_on(Reader& r, const YAML::Node& rp, const std::string& at) {
  const YAML::Node on = rp["retry_on"];
  const std::string key = at + ".retry_on";
  if (!on.IsScalar()) r.fail(on, key, "must be a comma-separated list of conditions (RetryPolicy.retry_on)");
  unsigned kinds = 0;
  std::string other;
  const std::string text = on.Scalar();
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    std::string c = text.substr(from, comma - from);
    c.erase(0, c.find_first_not_of(" \t"));
    c.erase(c.find_last_not_of(" \t") + 1);
    from = comma + 1;
    if (c.empty()) continue;
    if (c == "5xx" || c == "gateway-error" || c == "reset" || c == "reset-before-request" || c == "connect-failure" ||
        c == "refused-stream" || c == "unavailable" || c == "http3-post-connect-failure") {
      kinds |= kind_retryable;
    } else if (c == "resource-exhausted" || c == "envoy-ratelimited") {
      kinds |= kind_throttled;
    } else if (c == "retriable-status-codes" && rp["retriable_status_codes"] &&
               rp["retriable_status_codes"].IsSequence()) {
      for (const auto& code : rp["retriable_status_codes"]) {
        const double v = r.count(code, at + ".retriable_status_codes", 100, 599);
        if (v == 429) kinds |= kind_throttled;
        if (v >= 500 && v <= 504) kinds |= kind_retryable;
      }
    } else {
      other += other.empty() ? c : ", " + c;
    }
  }
  r.add("retry_on", std::string(retry_on_name(kinds)), "",
        fmt::format("{}: 5xx, gateway-error, reset, connect-failure, refused-stream, unavailable (or 500-504 in "
                    "retriable_status_codes) retry retrylab's retryable failures; resource-exhausted, "
                    "envoy-ratelimited (or 429) its throttled ones; a failure of a kind not listed ends its request "
                    "(Envoy docs, \"x-envoy-retry-on\" and \"x-envoy-retry-grpc-on\")",
                    key),
        line(on));
  if (!other.empty())
    r.note(key, on,
           fmt::format("{}: no simulated failure meets {} (retrylab's failures are retryable, throttled or fatal)",
                       other, other.find(',') == std::string::npos ? "that condition" : "those conditions"),
           false);
}

void read_retry_policy(Reader& r, const Found& f) {
  const YAML::Node& rp = f.node;
  const std::string& at = f.path;
  if (!rp.IsMap()) r.fail(rp, at, "must be a map (RetryPolicy)");
  double retries = 1;
  if (rp["num_retries"]) {
    retries = r.count(rp["num_retries"], at + ".num_retries", 0, 1e9 - 1);
    if (retries != std::floor(retries)) r.fail(rp["num_retries"], at + ".num_retries", "must be an integer");
    r.add("max_attempts", num(retries + 1), "", at + ".num_retries (+ 1, the first attempt)", line(rp["num_retries"]));
  } else {
    r.add("max_attempts", "2", "", fmt::format("{}: num_retries defaults to 1 (+ 1, the first attempt)", route_doc), 0);
  }
  if (rp["per_try_timeout"])
    r.add("timeout", num(r.seconds(rp["per_try_timeout"], at + ".per_try_timeout") * 1000), "ms",
          at + ".per_try_timeout", line(rp["per_try_timeout"]));
  back_off(r, rp, at);
  if (!rp["retry_on"])
    r.note(at, rp,
           "has no retry_on: Envoy then retries only requests that carry x-envoy-retry-on or x-envoy-retry-grpc-on; "
           "retrylab retries every failure");
  else
    retry_on(r, rp, at);
  for (const auto& kv : rp) {
    const std::string k = kv.first.Scalar(), key = fmt::format("{}.{}", at, k);
    if (k == "num_retries" || k == "per_try_timeout" || k == "retry_back_off") continue;
    if (k == "retry_on")
      continue;  // mapped onto the failure kinds retried (retry_on above)
    else if (k == "retriable_status_codes") {
      const YAML::Node on = rp["retry_on"];
      if (!on || !on.IsScalar() || on.Scalar().find("retriable-status-codes") == std::string::npos)
        r.note(key, kv.second, "has no effect without retriable-status-codes in retry_on", false);
    } else if (k == "retry_host_predicate" || k == "host_selection_retry_max_attempts" || k == "retry_priority")
      r.note(key, kv.second, "host selection for retries: retrylab has one server", false);
    else
      r.note(key, kv.second, "is not modelled (retriable codes and headers, rate-limited back-off, idle timeouts)");
  }
}

void route_timeout(Reader& r, const Found& f) {
  const std::string at = f.path.substr(0, f.path.size() - std::string_view(".retry_policy").size());
  if (!f.parent.IsMap() || !f.parent["cluster"]) {
    r.note(f.path, f.node, "is not inside a route action: the route's timeout (default 15 s) is not known", true);
    return;
  }
  // At the route timeout the router resets the upstream request in flight and answers 504
  // (Router::Filter::onResponseTimeout): the attempt is cancelled.
  constexpr std::string_view resets =
      "when it fires, the router resets the upstream request in flight and answers 504 "
      "(source/common/router/router.cc, onResponseTimeout)";
  if (!f.parent["timeout"]) {
    r.add("deadline", "15000", "ms",
          "Envoy api v3 config.route.v3.RouteAction.timeout: defaults to 15 s, spanning every retry", 0);
    r.add("deadline_cancel", "on", "", fmt::format("Envoy's route timeout (15 s by default): {}", resets), 0);
    return;
  }
  const double t = r.seconds(f.parent["timeout"], at + ".timeout", true);
  if (t > 0) {
    r.add("deadline", num(t * 1000), "ms", at + ".timeout (spans every retry)", line(f.parent["timeout"]));
    r.add("deadline_cancel", "on", "", fmt::format("{}.timeout: {}", at, resets), line(f.parent["timeout"]));
  }
}

constexpr std::string_view breaker_doc = "Envoy api v3 config.cluster.v3.CircuitBreakers.Thresholds";

// The retries in flight (retries_in_flight, retries_in_flight_percent): the first cluster's circuit
// breaker at DEFAULT priority (a route's priority unless it says otherwise): its retry_budget
// (budget_percent default 20, min_retry_concurrency default 3), else its max_retries (default 3);
// without a circuit breaker in the file, Envoy's default max_retries 3.
void budgets(Reader& r, const YAML::Node& root) {
  std::vector<Found> found;
  find_all(root, "", "circuit_breakers", found);
  const auto default_max = [&](const std::string& why) {
    r.add("retries_in_flight", "3", "", fmt::format("{}.max_retries: defaults to 3 ({})", breaker_doc, why), 0);
  };
  if (found.empty()) return default_max("no circuit_breakers in the file");
  for (std::size_t i = 1; i < found.size(); ++i)
    r.note(found[i].path, found[i].node, "not simulated: the first cluster's circuit_breakers are", false);
  const Found& f = found.front();
  YAML::Node chosen;  // a YAML::Node is defined even when empty: `picked` says whether one was chosen
  bool picked = false;
  std::string at;
  if (f.node.IsMap() && f.node["thresholds"] && f.node["thresholds"].IsSequence()) {
    const YAML::Node th = f.node["thresholds"];
    for (std::size_t i = 0; i < th.size(); ++i) {
      const std::string p = fmt::format("{}.thresholds[{}]", f.path, i);
      if (!th[i].IsMap()) r.fail(th[i], p, "must be a map (Thresholds)");
      const bool is_default = !th[i]["priority"] || th[i]["priority"].Scalar() == "DEFAULT";
      if (!is_default || picked) {
        r.note(p, th[i], "not simulated: a route uses the DEFAULT priority's thresholds (the first)", false);
        continue;
      }
      chosen.reset(th[i]);
      picked = true;
      at = p;
    }
  }
  if (!picked) return default_max("no DEFAULT-priority thresholds in " + f.path);
  if (chosen["retry_budget"]) {
    const YAML::Node b = chosen["retry_budget"];
    const std::string k = at + ".retry_budget";
    if (!b.IsMap()) r.fail(b, k, "must be a map (RetryBudget)");
    // budget_percent is a DoubleValue: a number, or {value: number}.
    YAML::Node bp = b["budget_percent"];
    if (bp && bp.IsMap()) bp = bp["value"];
    const double pct = bp ? r.count(bp, k + ".budget_percent", 0, 100) : 20.0;
    YAML::Node mc = b["min_retry_concurrency"];
    if (mc && mc.IsMap()) mc.reset(mc["value"]);
    const double conc = mc ? std::floor(r.count(mc, k + ".min_retry_concurrency", 0, 1e9)) : 3.0;
    if (pct <= 0 && conc <= 0) {
      r.note(k, b, "a budget of 0% with min_retry_concurrency 0 (no retry is ever sent) is not modelled");
    } else {
      r.add("retries_in_flight", num(conc), "",
            mc ? k + ".min_retry_concurrency"
               : fmt::format("{}.RetryBudget.min_retry_concurrency: defaults to 3", breaker_doc),
            mc ? line(mc) : 0);
      r.add("retries_in_flight_percent", num(pct), "",
            bp ? k + ".budget_percent" : fmt::format("{}.RetryBudget.budget_percent: defaults to 20%", breaker_doc),
            bp ? line(bp) : 0);
    }
    if (chosen["max_retries"])
      r.note(at + ".max_retries", chosen["max_retries"], "has no effect while a retry_budget is set", false);
    return;
  }
  if (!chosen["max_retries"]) return default_max(at + " has no max_retries");
  YAML::Node mr = chosen["max_retries"];
  if (mr.IsMap()) mr.reset(mr["value"]);
  const double m = std::floor(r.count(mr, at + ".max_retries", 0, 1e9));
  if (m <= 0) {
    r.note(at + ".max_retries", mr, "max_retries 0 (no retry is ever sent) is not modelled");
    return;
  }
  r.add("retries_in_flight", num(m), "", at + ".max_retries", line(mr));
}

}  // namespace

Policy parse_envoy(const std::string& text, const std::string& path) {
  YAML::Node root = load_yaml(text, path);
  Policy p;
  p.path = path;
  p.format = Format::envoy;
  Reader r{p, path};
  std::vector<Found> found;
  find_all(root, "", "retry_policy", found);
  if (found.empty()) fail(path, 0, "retry_policy", "is not in the file (an Envoy route with a retry_policy)");
  try {
    read_retry_policy(r, found.front());
    route_timeout(r, found.front());
    budgets(r, root);
  } catch (const YAML::Exception& e) {
    fail(path, e.mark.line < 0 ? 0 : e.mark.line + 1, found.front().path, "is malformed: " + e.msg);
  }
  for (std::size_t i = 1; i < found.size(); ++i)
    r.note(found[i].path, found[i].node, "not simulated: the first retry_policy in the file is", false);
  return p;
}

}  // namespace retrylab::policy::detail
