// The resilience4j importer (Spring Boot configuration, resilience4j-spring-boot2/3): the
// retry, circuitbreaker and timelimiter instance of one name, each its `configs` base (baseConfig,
// else `default`) overridden by the instance's own keys. Keys are read with Spring's relaxed
// binding (maxAttempts, max-attempts and max_attempts are one key). Defaults are resilience4j's
// RetryConfig, IntervalFunction, CircuitBreakerConfig and TimeLimiterConfig (docs/policies.md).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <vector>

#include "policy/detail.hpp"
#include "policy/yaml.hpp"

namespace retrylab::policy::detail {

namespace {

struct Key {
  std::string path;  // as written, for messages
  YAML::Node node;
  // Copied, never moved (a YAML::Node's move may throw).
  Key() = default;
  Key(std::string p, const YAML::Node& n) : path(std::move(p)), node(n) {}
  Key(const Key&) = default;
  Key& operator=(const Key&) = default;
  ~Key() = default;
};
using Settings = std::map<std::string, Key>;  // relaxed key -> value

std::string relaxed(const std::string& k) {
  std::string out;
  for (char c : k)
    if (c != '-' && c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int yaml_line(const YAML::Node& n) { return n.Mark().line < 0 ? 0 : n.Mark().line + 1; }

// Spring's relaxed binding makes maxAttempts, max-attempts and max_attempts one key: two of them in
// one map are a key given twice, refused as YAML refuses a repeated key (never last-wins).
void put(Settings& out, std::map<std::string, std::string>& seen, const std::string& file, const std::string& name,
         Key k) {
  const std::string r = relaxed(name);
  if (const auto [it, fresh] = seen.emplace(r, k.path); !fresh)
    fail(file, yaml_line(k.node), k.path,
         fmt::format("is {} again (Spring's relaxed binding reads both as one key)", it->second));
  out[r] = std::move(k);
}

struct SpringReader {
  Policy& p;
  const std::string& path;
  [[noreturn]] void fail(const Key& k, const std::string& message) const {
    detail::fail(path, yaml_line(k.node), k.path, message);
  }
  double number(const Key& k, double lo, double hi) const {
    double v = NAN;
    try {
      v = k.node.as<double>();
    } catch (const YAML::Exception&) {
      fail(k, "must be a number");
    }
    if (!(v >= lo && v <= hi)) fail(k, fmt::format("must be in [{}, {}] (got {})", num(lo), num(hi), num(v)));
    return v;
  }
  double integer(const Key& k, double lo, double hi) const {
    const double v = number(k, lo, hi);
    if (v != std::floor(v)) fail(k, fmt::format("must be an integer (got {})", num(v)));
    return v;
  }
  double ms(const Key& k) const {
    const auto v = k.node.IsScalar() ? spring_duration(k.node.Scalar()) : std::nullopt;
    if (!v || !(*v >= 0)) fail(k, "must be a duration such as 500 (ms), \"500ms\", \"10s\" or \"PT10S\"");
    return *v;
  }
  bool flag(const Key& k) const {
    try {
      return k.node.as<bool>();
    } catch (const YAML::Exception&) {
      fail(k, "must be true or false");
    }
  }
  void add(std::string field, std::string value, std::string unit, const Key* k, const std::string& rule) {
    p.entries.push_back(
        {std::move(field), std::move(value), std::move(unit), k ? k->path : rule, k ? yaml_line(k->node) : 0});
  }
  void note(const Key& k, std::string text, bool effect = true) {
    p.notes.push_back({k.path, yaml_line(k.node), std::move(text), effect});
  }
};

// The sections, by relaxed name ("retry", "circuitbreaker", ...), from "resilience4j.retry:" keys or
// a "resilience4j:" map.
std::map<std::string, Key> spring_sections(const YAML::Node& root, SpringReader& r) {
  std::map<std::string, Key> out;
  if (!root.IsMap()) detail::fail(r.path, yaml_line(root), "(top level)", "must be a map (Spring Boot YAML)");
  for (const auto& kv : root) {
    const std::string k = kv.first.Scalar();
    if (k == "resilience4j" && kv.second.IsMap()) {
      for (const auto& s : kv.second)
        out[relaxed(s.first.Scalar())] = {fmt::format("{}.{}", k, s.first.Scalar()), s.second};
    } else if (k.rfind("resilience4j.", 0) == 0) {
      out[relaxed(k.substr(13))] = {k, kv.second};
    } else {
      r.p.notes.push_back({k, yaml_line(kv.second), "is not a resilience4j key", false});
    }
  }
  return out;
}

// The instance's settings: its base config's, overridden by its own.
Settings settings(SpringReader& r, const Key& section, const std::string& name, bool& found) {
  Settings out;
  const YAML::Node inst = section.node["instances"] ? section.node["instances"] : section.node["backends"];
  const std::string inst_key = section.path + (section.node["instances"] ? ".instances" : ".backends");
  YAML::Node own = inst && inst.IsMap() ? inst[name] : YAML::Node();
  found = own.IsDefined() && own.IsMap();
  std::string base = "default";
  if (found && own["baseConfig"]) base = own["baseConfig"].Scalar();
  const YAML::Node configs = section.node["configs"];
  std::map<std::string, std::string> seen_base, seen_own;
  if (configs && configs.IsMap() && configs[base] && configs[base].IsMap())
    for (const auto& kv : configs[base])
      put(out, seen_base, r.path, kv.first.Scalar(),
          {fmt::format("{}.configs.{}.{}", section.path, base, kv.first.Scalar()), kv.second});
  else if (found && own["baseConfig"])
    detail::fail(r.path, yaml_line(own["baseConfig"]), fmt::format("{}.{}.baseConfig", inst_key, name),
                 fmt::format("names a config \"{}\" that {}.configs does not have", base, section.path));
  if (found)
    for (const auto& kv : own)
      if (kv.first.Scalar() != "baseConfig")
        put(out, seen_own, r.path, kv.first.Scalar(),
            {fmt::format("{}.{}.{}", inst_key, name, kv.first.Scalar()), kv.second});
  for (const auto& kv : section.node)
    if (kv.first.Scalar() != "instances" && kv.first.Scalar() != "backends" && kv.first.Scalar() != "configs")
      r.note({fmt::format("{}.{}", section.path, kv.first.Scalar()), kv.second}, "aspect order and registry settings",
             false);
  return out;
}

std::string first_instance(const std::map<std::string, Key>& secs) {
  for (const char* s : {"retry", "circuitbreaker"}) {
    auto it = secs.find(s);
    if (it == secs.end()) continue;
    for (const char* k : {"instances", "backends"})
      if (it->second.node[k] && it->second.node[k].IsMap() && it->second.node[k].size() > 0)
        return it->second.node[k].begin()->first.Scalar();
  }
  return "default";
}

const Key* get(const Settings& s, std::string_view k) {
  auto it = s.find(std::string(k));
  return it == s.end() ? nullptr : &it->second;
}

void retry(SpringReader& r, const Settings& s);
void breaker(SpringReader& r, const Settings& s);

void other_instances(SpringReader& r, const std::map<std::string, Key>& secs, const std::string& name) {
  for (const auto& [sec, key] : secs)
    for (const char* k : {"instances", "backends"})
      if (key.node[k] && key.node[k].IsMap())
        for (const auto& kv : key.node[k])
          if (kv.first.Scalar() != name)
            r.note({fmt::format("{}.{}.{}", key.path, k, kv.first.Scalar()), kv.second},
                   "another instance, not simulated: one runs at a time (select it by name)", false);
}

}  // namespace

namespace {

// The instance `select` names (else the first) of every section, as entries and notes of p.
void read_instance(Policy& p, const YAML::Node& root, const std::string& path, std::string_view select) {
  SpringReader r{p, path};
  const std::map<std::string, Key> secs = spring_sections(root, r);
  const std::string name = select.empty() ? first_instance(secs) : std::string(select);
  p.selected = name;
  bool any = false, has_retry = false;
  for (const auto& [sec, key] : secs) {
    bool found = false;
    if (sec == "retry") {
      const Settings s = settings(r, key, name, found);
      if (found || !s.empty()) retry(r, s);
      found = found || !s.empty();
      has_retry = found;
    } else if (sec == "circuitbreaker") {
      const Settings s = settings(r, key, name, found);
      if (found || !s.empty()) breaker(r, s);
      found = found || !s.empty();
    } else if (sec == "timelimiter") {
      const Settings s = settings(r, key, name, found);
      if (const Key* t = get(s, "timeoutduration"); found && t)
        r.add("timeout", num(r.ms(*t)), "ms", t, "");
      else if (found)
        r.add("timeout", "1000", "ms", nullptr, "resilience4j TimeLimiterConfig: timeoutDuration defaults to 1 s");
    } else {
      r.note(key, "bulkheads, rate limiters and caches are not modelled");
    }
    any = any || found;
  }
  if (!has_retry) {
    p.entries.push_back({"max_attempts", "1", "", fmt::format("no retry instance \"{}\": one attempt", name), 0});
    p.entries.push_back({"strategy", "none", "", "no retry, so no backoff", 0});
  }
  if (!any && !select.empty())
    fail(path, 0, std::string(select), "is not an instance of the file's retry or circuitbreaker");
  if (!any) fail(path, 0, "resilience4j.retry", "is not in the file, nor a circuitbreaker: nothing to simulate");
  other_instances(r, secs, name);
}

}  // namespace

Policy parse_resilience4j(const std::string& text, const std::string& path, std::string_view select) {
  YAML::Node root = load_yaml(text, path);
  Policy p;
  p.path = path;
  p.format = Format::resilience4j;
  try {
    read_instance(p, root, path, select);
  } catch (const YAML::Exception& e) {
    // A node of the wrong kind (a scalar where a map belongs): yaml-cpp names its place.
    fail(path, e.mark.line < 0 ? 0 : e.mark.line + 1, "(structure)", "is malformed: " + e.msg);
  }
  return p;
}

namespace {

constexpr std::string_view interval_doc = "resilience4j IntervalFunction";

// An exception's failure kind, by its class name: throttled for a rate limit's (RequestNotPermitted,
// TooManyRequests, Throttl..., 429), retryable for a transport's or a server error's (IOException,
// TimeoutException, ConnectException, SocketException, HttpServerErrorException, Unavailable, 5xx),
// else unknown (0).
unsigned kind_of_exception(const std::string& name) {
  std::string n;
  for (const char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* t : {"requestnotpermitted", "toomanyrequests", "throttl", "ratelimit", "429"})
    if (n.find(t) != std::string::npos) return kind_throttled;
  for (const char* t : {"ioexception", "timeout", "connect", "socket", "servererror", "unavailable", "5xx", "503",
                        "retryable", "transient"})
    if (n.find(t) != std::string::npos) return kind_retryable;
  return 0;
}

// retryExceptions and ignoreExceptions onto retrylab's failure kinds (retry_on): with
// retryExceptions, only the kinds of the classes it names are retried (resilience4j retries only
// those, and the ones that extend them); without it every exception but ignoreExceptions' is retried,
// and ignoreExceptions names what no client should retry (retrylab's fatal): retryable and throttled.
void exceptions(SpringReader& r, const Settings& s) {
  const Key* retry = get(s, "retryexceptions");
  const Key* ignore = get(s, "ignoreexceptions");
  if (!retry && !ignore) return;  // every exception is retried: retry_on all, the default
  if (!retry) {
    r.add("retry_on", "retryable+throttled", "", ignore, "");
    r.p.entries.back().source =
        ignore->path +
        ": every exception but these is retried (RetryConfig.ignoreExceptions); they are retrylab's "
        "fatal failures, so retryable and throttled failures are retried";
    return;
  }
  if (!retry->node.IsSequence()) r.fail(*retry, "must be a list of exception class names");
  unsigned kinds = 0;
  std::string unknown;
  for (const auto& e : retry->node) {
    const std::string name = e.IsScalar() ? e.Scalar() : std::string();
    const unsigned k = kind_of_exception(name);
    kinds |= k;
    if (k == 0) unknown += unknown.empty() ? name : ", " + name;
  }
  const bool none_known = kinds == 0;
  if (none_known) kinds = kind_retryable;  // none recognised: the listed are the transient ones
  r.add("retry_on", std::string(retry_on_name(kinds)), "", retry, "");
  r.p.entries.back().source =
      retry->path +
      ": only these are retried (RetryConfig.retryExceptions); by class name, an I/O, timeout, "
      "connection or 5xx exception is retrylab's retryable failure, a rate limit's "
      "(RequestNotPermitted, 429) its throttled one; a failure of another kind ends its request";
  if (!unknown.empty())
    r.note(
        *retry,
        fmt::format("{}: not a class retrylab can give a failure kind by its name; {}", unknown,
                    none_known ? "the list is taken as the retryable failures" : "the others decide the kinds retried"),
        false);
  if (ignore)
    r.note(*ignore, "retrylab's fatal failures: with retryExceptions given, they are not retried either", false);
}

// The wait before retry k: waitDuration w (resilience4j default 500 ms), times multiplier^(k-1) when
// exponential (capped by exponentialMaxWaitDuration), randomized to uniform [w(1-f), w(1+f)].
void retry(SpringReader& r, const Settings& s) {
  const Key* attempts = get(s, "maxattempts");
  if (!attempts) attempts = get(s, "maxretryattempts");  // the name before resilience4j 1.0
  if (attempts)
    r.add("max_attempts", num(r.integer(*attempts, 1, 1e9)), "", attempts, "");
  else
    r.add("max_attempts", "3", "", nullptr,
          "resilience4j RetryConfig: maxAttempts defaults to 3 (the first call included)");
  const Key* wait = get(s, "waitduration");
  double w = wait ? r.ms(*wait) : 500.0;
  if (!wait && get(s, "waitdurationmillis")) {
    wait = get(s, "waitdurationmillis");
    w = r.number(*wait, 0, 1e15);
  }
  if (!(w > 0)) r.fail(*wait, "must be > 0 for retrylab (a retry at once is strategy none; give 1ms)");
  const Key* exp = get(s, "enableexponentialbackoff");
  const Key* rnd = get(s, "enablerandomizedwait");
  const bool exponential = exp && r.flag(*exp), randomized = rnd && r.flag(*rnd);
  // The exponential keys apply only with enableExponentialBackoff true, the factor only with
  // enableRandomizedWait true (resilience4j-spring-boot's CommonRetryConfigurationProperties builds the
  // interval function from the flags): without its flag a key has no effect, said in a note, and the
  // mapping's source is the rule, not the key. Its value is still checked (resilience4j's builder
  // refuses it either way), never passed over in silence.
  const Key* mk = get(s, "exponentialbackoffmultiplier");
  const Key* ck = get(s, "exponentialmaxwaitduration");
  const Key* fk = get(s, "randomizedwaitfactor");
  const double given_m = mk ? r.number(*mk, 1, 100) : 1.5;
  const double given_cap = ck ? r.ms(*ck) : INFINITY;
  const double given_f = fk ? r.number(*fk, 0, 1) : 0.5;
  for (const Key* k : {mk, ck})
    if (k && !exponential)
      r.note(*k, "has no effect: enableExponentialBackoff is not true, so the wait is not exponential", false);
  if (fk && !randomized)
    r.note(*fk, "has no effect: enableRandomizedWait is not true, so the wait is not random", false);
  if (!exponential) mk = ck = nullptr;
  if (!randomized) fk = nullptr;
  const double m = exponential ? given_m : 1.0;
  const double cap = exponential ? given_cap : INFINITY;
  if (cap < w) r.fail(*ck, fmt::format("must be >= waitDuration ({} ms) for retrylab", num(w)));
  const double f = randomized ? given_f : 0.0;
  // Uniform [w(1-f), w(1+f)]: full jitter on 2w when f = 1, equal jitter on 4w/3 when f = 1/3
  // (both exact); otherwise the nearer of the two, at the same mean w.
  const bool full = randomized && f > 2.0 / 3.0, equal = randomized && f > 0 && !full;
  const double scale = full ? 2.0 : equal ? 4.0 / 3.0 : 1.0;
  const std::string rule =
      fmt::format("{}: wait w = waitDuration{}{}", interval_doc, exponential ? " * multiplier^(k-1), capped" : "",
                  randomized ? ", uniform in [w(1-f), w(1+f)]" : "");
  r.add("strategy", full ? "full" : equal ? "equal" : "nojitter", "", exp ? exp : rnd, rule);
  r.add("base", num(w * scale), "ms", wait, "resilience4j RetryConfig: waitDuration defaults to 500 ms");
  r.add("cap", std::isinf(cap) ? "none" : num(cap * scale), std::isinf(cap) ? "" : "ms", ck,
        exponential ? "exponentialMaxWaitDuration not set: no cap" : "a fixed wait needs no cap");
  r.add("multiplier", num(m), "", mk, exponential ? "IntervalFunction.DEFAULT_MULTIPLIER 1.5" : "a fixed wait: 1");
  if (randomized && std::abs(f - 1.0) > 1e-12 && std::abs(f - 1.0 / 3.0) > 1e-12 && f > 0)
    r.note(fk ? *fk : *rnd,
           fmt::format("a wait uniform in [{0}w, {1}w] is not a retrylab jitter: simulated as {2} jitter on {3}w, "
                       "uniform in [{4}w, {3}w] (the same mean w)",
                       num(1 - f), num(1 + f), full ? "full" : "equal", num(scale), full ? "0" : num(scale / 2)));
  exceptions(r, s);
  for (const auto& [k, key] : s) {
    if (k == "retryexceptions" || k == "ignoreexceptions") continue;  // mapped onto the kinds retried
    if (k == "retryexceptionpredicate" || k == "resultpredicate" || k == "retryonresultpredicate" ||
        k == "intervalbifunction")
      r.note(key,
             "a predicate or function in code: retrylab retries the failure kinds retryExceptions and "
             "ignoreExceptions give");
    else if (k == "eventconsumerbuffersize" || k == "registerhealthindicator" || k == "failaftermaxattempts" ||
             k == "writablestacktraceenabled")
      r.note(key, "events, health and exception reporting", false);
    else if (k != "maxattempts" && k != "maxretryattempts" && k != "waitduration" && k != "waitdurationmillis" &&
             k != "enableexponentialbackoff" && k != "enablerandomizedwait" && k != "exponentialbackoffmultiplier" &&
             k != "exponentialmaxwaitduration" && k != "randomizedwaitfactor")
      r.note(key, "is not a retry key retrylab knows");
  }
}

constexpr std::string_view cb_doc = "resilience4j CircuitBreakerConfig";

void breaker_numbers(SpringReader& r, const Settings& s) {
  const Key* type = get(s, "slidingwindowtype");
  const bool time = type && type->node.IsScalar() && type->node.Scalar() == "TIME_BASED";
  if (type && !time && !(type->node.IsScalar() && type->node.Scalar() == "COUNT_BASED"))
    r.fail(*type, "must be COUNT_BASED or TIME_BASED");
  const Key* size = get(s, "slidingwindowsize");
  if (!size) size = get(s, "ringbuffersizeinclosedstate");  // before resilience4j 1.0
  const double n = size ? r.integer(*size, 1, 1e9) : 100;
  const std::string size_rule = fmt::format("{}: slidingWindowSize defaults to 100", cb_doc);
  if (time)
    r.add("breaker_window", num(n), "s", size, size_rule);
  else
    r.add("breaker_calls", num(n), "", size, size_rule + (type ? "" : " (COUNT_BASED, the default)"));
  const Key* min_calls = get(s, "minimumnumberofcalls");
  r.add("breaker_minimum_calls", min_calls ? num(r.integer(*min_calls, 1, 1e9)) : "100", "", min_calls,
        fmt::format("{}: minimumNumberOfCalls defaults to 100", cb_doc));
  const Key* rate = get(s, "failureratethreshold");
  r.add("breaker_failure_threshold", rate ? num(r.number(*rate, 1e-9, 100) / 100) : "0.5", "", rate,
        fmt::format("{}: failureRateThreshold defaults to 50 (%)", cb_doc));
  const Key* open = get(s, "waitdurationinopenstate");
  if (!open) open = get(s, "waitinterval");  // before resilience4j 1.0
  const double open_ms = open ? r.ms(*open) : 60000.0;
  if (!(open_ms > 0)) r.fail(*open, "must be > 0");
  r.add("breaker_open_duration", num(open_ms), "ms", open,
        fmt::format("{}: waitDurationInOpenState defaults to 60 s", cb_doc));
  const Key* half = get(s, "permittednumberofcallsinhalfopenstate");
  if (!half) half = get(s, "ringbuffersizeinhalfopenstate");  // before resilience4j 1.0
  r.add("breaker_half_open_calls", half ? num(r.integer(*half, 1, 1e9)) : "10", "", half,
        fmt::format("{}: permittedNumberOfCallsInHalfOpenState defaults to 10", cb_doc));
}

void breaker(SpringReader& r, const Settings& s) {
  r.add("breaker", "resilience4j", "", nullptr, fmt::format("{} (montecarlo/controls.hpp)", cb_doc));
  r.add("breaker_scope", "shared", "", nullptr,
        "a resilience4j instance lives in its registry: one per name, shared by every thread of the process");
  breaker_numbers(r, s);
  static constexpr std::string_view mapped[] = {"slidingwindowtype",
                                                "slidingwindowsize",
                                                "ringbuffersizeinclosedstate",
                                                "minimumnumberofcalls",
                                                "failureratethreshold",
                                                "waitdurationinopenstate",
                                                "waitinterval",
                                                "permittednumberofcallsinhalfopenstate",
                                                "ringbuffersizeinhalfopenstate"};
  for (const auto& [k, key] : s) {
    if (std::find(std::begin(mapped), std::end(mapped), k) != std::end(mapped)) continue;
    if (k == "automatictransitionfromopentohalfopenenabled")
      r.note(key,
             "retrylab's breaker turns half-open at the first call after the wait; a timer doing it sooner "
             "admits the same calls",
             false);
    else if (k == "eventconsumerbuffersize" || k == "registerhealthindicator" || k == "allowhealthindicatortofail" ||
             k == "writablestacktraceenabled")
      r.note(key, "events, health and exception reporting", false);
    else if (k.rfind("slowcall", 0) == 0)
      r.note(key, "slow calls are not counted: only failures (and timeouts) open retrylab's breaker");
    else if (k.find("exception") != std::string::npos || k.find("predicate") != std::string::npos)
      r.note(key,
             "retrylab's breaker records every failure and timeout as a failure, whatever its kind (retryable, "
             "throttled or fatal): exceptions it records or ignores by class have no counterpart");
    else
      r.note(key, "is not modelled (half-open wait limits, state transitions by hand)");
  }
}

}  // namespace

}  // namespace retrylab::policy::detail
