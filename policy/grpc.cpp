// The gRPC service config importer (gRFC A6 "gRPC Retry Design"; grpc/doc/service_config.md):
// methodConfig[].retryPolicy, hedgingPolicy, timeout and the channel's retryThrottling.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "policy/detail.hpp"

namespace retrylab::policy::detail {

namespace {

using nlohmann::json;

constexpr std::string_view a6 = "gRFC A6 (grpc/proposal A6-client-retries.md)";

// The JSON text's parse with the line of every key, for messages and sources.
struct Doc {
  const std::string& path;
  std::map<std::string, int> lines;
  int line(const std::string& key) const {
    auto it = lines.find(key);
    return it == lines.end() ? 0 : it->second;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    detail::fail(path, line(key), key, message);
  }
};

double number(const Doc& d, const json& j, const std::string& key) {
  if (!j.is_number() || !std::isfinite(j.get<double>())) d.fail(key, "must be a number");
  return j.get<double>();
}

double seconds(const Doc& d, const json& j, const std::string& key) {
  if (!j.is_string()) d.fail(key, "must be a duration string such as \"0.5s\"");
  const auto s = proto_duration(j.get<std::string>());
  if (!s || !(*s > 0.0))
    d.fail(key, fmt::format("must be a duration > 0 such as \"0.5s\" (got \"{}\")", j.get<std::string>()));
  return *s;
}

std::string names_of(const json& mc) {
  std::string out;
  if (!mc.contains("name") || !mc["name"].is_array()) return out;
  for (const json& n : mc["name"]) {
    if (!n.is_object()) continue;
    std::string one = n.value("service", std::string());
    if (n.contains("method") && n["method"].is_string()) one += fmt::format("/{}", n["method"].get<std::string>());
    out += (out.empty() ? "" : ", ") + (one.empty() ? std::string("(every service)") : one);
  }
  return out;
}

bool matches(const json& mc, std::string_view select) {
  if (!mc.contains("name") || !mc["name"].is_array()) return false;
  for (const json& n : mc["name"]) {
    if (!n.is_object()) continue;
    const std::string service = n.value("service", std::string());
    const std::string method = n.value("method", std::string());
    if (select == service || (!method.empty() && select == fmt::format("{}/{}", service, method))) return true;
  }
  return false;
}

void add(Policy& p, const Doc& d, std::string field, std::string value, std::string unit, const std::string& key) {
  p.entries.push_back({std::move(field), std::move(value), std::move(unit), key, d.line(key)});
}

void note(Policy& p, const Doc& d, const std::string& key, std::string text, bool effect = true) {
  p.notes.push_back({key, d.line(key), std::move(text), effect});
}

// retryableStatusCodes onto retrylab's failure kinds (retry_on): UNAVAILABLE (14) is a retryable
// failure, RESOURCE_EXHAUSTED (8) a throttled one; a code that names neither is retried by the client
// but no simulated failure carries it (a note); a failure whose kind is not listed ends its request.
void retryable_codes(Policy& p, const Doc& d, const json& codes, const std::string& key) {
  unsigned kinds = 0;
  std::string other;
  for (const auto& c : codes) {
    std::string name = c.is_string() ? c.get<std::string>() : c.is_number_integer() ? std::to_string(c.get<int>()) : "";
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (name == "UNAVAILABLE" || name == "14") {
      kinds |= kind_retryable;
    } else if (name == "RESOURCE_EXHAUSTED" || name == "8") {
      kinds |= kind_throttled;
    } else {
      if (name.empty()) d.fail(key, "must list status codes (names such as \"UNAVAILABLE\", or numbers)");
      other += other.empty() ? name : ", " + name;
    }
  }
  add(p, d, "retry_on", std::string(retry_on_name(kinds)), "", key);
  p.entries.back().source = fmt::format(
      "{}: UNAVAILABLE is retrylab's retryable failure, RESOURCE_EXHAUSTED its throttled one; a "
      "failure of a kind not listed (fatal: a status not in the list) ends its request ({})",
      key, a6);
  if (!other.empty())
    note(p, d, key,
         fmt::format("{} retried too, but no simulated failure carries {}: retrylab's failures are retryable "
                     "(UNAVAILABLE), throttled (RESOURCE_EXHAUSTED) or fatal",
                     other, other.find(',') == std::string::npos ? "that code" : "those codes"),
         false);
}

void retry_policy(Policy& p, const Doc& d, const json& rp, const std::string& at) {
  if (!rp.is_object()) d.fail(at, "must be an object");
  for (const char* k : {"maxAttempts", "initialBackoff", "maxBackoff", "backoffMultiplier", "retryableStatusCodes"})
    if (!rp.contains(k)) d.fail(at, fmt::format("needs {} (required by {})", k, a6));
  const std::string ma = at + ".maxAttempts";
  const double attempts = number(d, rp["maxAttempts"], ma);
  if (attempts < 2 || attempts != std::floor(attempts) || attempts > 1e9)
    d.fail(ma, fmt::format("must be an integer >= 2 ({}; got {})", a6, num(attempts)));
  const double used = std::min(attempts, 5.0);
  add(p, d, "max_attempts", num(used), "", ma);
  if (attempts > 5)
    note(p, d, ma,
         fmt::format("{} is treated as 5 by gRPC clients ({}: values above 5 are treated as 5; a channel "
                     "argument can raise the limit, which a service config cannot)",
                     num(attempts), a6));
  const std::string ib = at + ".initialBackoff", mb = at + ".maxBackoff", bm = at + ".backoffMultiplier";
  const double initial = seconds(d, rp["initialBackoff"], ib), most = seconds(d, rp["maxBackoff"], mb);
  const double mult = number(d, rp["backoffMultiplier"], bm);
  if (!(mult > 0)) d.fail(bm, fmt::format("must be > 0 ({}; got {})", a6, num(mult)));
  if (mult < 1 || mult > 100)
    d.fail(bm,
           fmt::format("must be in [1, 100] for retrylab's multiplier (a shrinking backoff is not modelled; got {})",
                       num(mult)));
  p.entries.push_back({"strategy", "full", "",
                       fmt::format("gRPC's jitter: attempt n+1 waits random(0, min(initialBackoff * "
                                   "backoffMultiplier^(n-1), maxBackoff)) ({}, \"Exponential backoff\")",
                                   a6),
                       0});
  // maxBackoff below initialBackoff makes every window maxBackoff: the same as base = cap = maxBackoff.
  add(p, d, "base", num(std::min(initial, most)), "s", initial <= most ? ib : mb);
  add(p, d, "cap", num(most), "s", mb);
  add(p, d, "multiplier", num(mult), "", bm);
  const std::string rc = at + ".retryableStatusCodes";
  if (!rp[std::string("retryableStatusCodes")].is_array() || rp["retryableStatusCodes"].empty())
    d.fail(rc, fmt::format("must be a non-empty array of status codes ({})", a6));
  retryable_codes(p, d, rp["retryableStatusCodes"], rc);
  for (const auto& [k, v] : rp.items()) {
    if (k == "maxAttempts" || k == "initialBackoff" || k == "maxBackoff" || k == "backoffMultiplier" ||
        k == "retryableStatusCodes")
      continue;
    const std::string key = fmt::format("{}.{}", at, k);
    if (k == "perAttemptRecvTimeout")
      add(p, d, "timeout", num(seconds(d, v, key)), "s", key);
    else
      note(p, d, key, "is not a retryPolicy key of gRFC A6");
  }
}

// A6's hedging: maxAttempts (required, > 1; above 5 it is 5) attempts at most, one every
// hedgingDelay (default 0s) while none has succeeded; the first success cancels the others; a hedged
// RPC is not retried once every attempt has failed.
void hedging_policy(Policy& p, const Doc& d, const json& hp, const std::string& at) {
  if (!hp.is_object()) d.fail(at, "must be an object");
  if (!hp.contains("maxAttempts")) d.fail(at, fmt::format("needs maxAttempts (required by {})", a6));
  const std::string ma = at + ".maxAttempts";
  const double attempts = number(d, hp["maxAttempts"], ma);
  if (attempts < 2 || attempts != std::floor(attempts) || attempts > 1e9)
    d.fail(ma, fmt::format("must be an integer >= 2 ({}; got {})", a6, num(attempts)));
  add(p, d, "hedge_attempts", num(std::min(attempts, 5.0)), "", ma);
  if (attempts > 5)
    note(p, d, ma,
         fmt::format("{} is treated as 5 by gRPC clients ({}: values above 5 are treated as 5)", num(attempts), a6));
  const std::string hd = at + ".hedgingDelay";
  if (hp.contains("hedgingDelay")) {
    add(p, d, "hedge_delay", num(seconds(d, hp["hedgingDelay"], hd)), "s", hd);
  } else {
    p.entries.push_back({"hedge_delay", "0", "s", fmt::format("{}: hedgingDelay defaults to 0s", a6), d.line(at)});
  }
  p.entries.push_back({"hedge_cancel", "on", "",
                       fmt::format("{}: the first success commits the RPC and cancels the other attempts", a6),
                       d.line(at)});
  p.entries.push_back({"hedge_in_service", "finish", "",
                       fmt::format("{}: a cancelled attempt leaves the server's queue, but a handler already running "
                                   "runs on unless it checks for cancellation (as at the deadline)",
                                   a6),
                       d.line(at)});
  p.entries.push_back(
      {"max_attempts", "1", "", at + " (a hedged RPC is not retried once its attempts failed)", d.line(at)});
  p.entries.push_back({"strategy", "none", "", at + " (no retry, so no backoff)", d.line(at)});
  for (const auto& [k, v] : hp.items()) {
    const std::string key = fmt::format("{}.{}", at, k);
    if (k == "maxAttempts" || k == "hedgingDelay") continue;
    if (k == "nonFatalStatusCodes")
      note(
          p, d, key,
          fmt::format("retrylab's failures carry no status code: every failure is non-fatal, as if its code were in {}",
                      v.dump()));
    else
      note(p, d, key, "is not a hedgingPolicy key of gRFC A6");
  }
}

void throttling(Policy& p, const Doc& d, const json& rt) {
  const std::string at = "retryThrottling";
  if (!rt.is_object()) d.fail(at, "must be an object");
  if (!rt.contains("maxTokens") || !rt.contains("tokenRatio")) d.fail(at, "needs maxTokens and tokenRatio (gRFC A6)");
  const double max_tokens = number(d, rt["maxTokens"], at + ".maxTokens");
  const double ratio = number(d, rt["tokenRatio"], at + ".tokenRatio");
  if (!(max_tokens > 0 && max_tokens <= 1000))
    d.fail(at + ".maxTokens", fmt::format("must be in (0, 1000] ({}; got {})", a6, num(max_tokens)));
  if (!(ratio > 0)) d.fail(at + ".tokenRatio", fmt::format("must be > 0 ({}; got {})", a6, num(ratio)));
  for (const auto& [k, v] : rt.items())
    if (k != "maxTokens" && k != "tokenRatio")
      note(p, d, fmt::format("{}.{}", at, k), "is not a retryThrottling key of gRFC A6");
  const std::string scope_source =
      fmt::format("{}: the token count is kept per server name and shared by every RPC of the client", a6);
  p.entries.push_back({"budget_scope", "shared", "", scope_source, 0});
  if (max_tokens == 10 && ratio == 0.1) {
    add(p, d, "budget", "grpc", "", at);
    return;
  }
  add(p, d, "budget", "token-bucket", "", at);
  add(p, d, "bucket_charge", "per-failure", "", at);
  add(p, d, "bucket_capacity", num(max_tokens), "", at + ".maxTokens");
  p.entries.push_back({"bucket_cost", "1", "", fmt::format("{}: every failed RPC attempt takes 1 token", a6), 0});
  p.entries.push_back(
      {"bucket_timeout_cost", "1", "", fmt::format("{}: a timeout is a failure like any other", a6), 0});
  add(p, d, "bucket_refund", num(ratio), "", at + ".tokenRatio");
  p.entries.push_back({"bucket_threshold", num(max_tokens / 2), "",
                       fmt::format("{}: retries are throttled while the count is <= maxTokens / 2", a6),
                       d.line(at + ".maxTokens")});
}

// The methodConfig entry to simulate: the one `select` names, else the first with a retry or
// hedging policy (else the first); the others are named.
std::size_t pick(Policy& p, const Doc& d, const json& mcs, std::string_view select) {
  std::size_t chosen = mcs.size();
  for (std::size_t i = 0; i < mcs.size() && chosen == mcs.size(); ++i) {
    if (!mcs[i].is_object()) d.fail(fmt::format("methodConfig[{}]", i), "must be an object");
    const bool has = mcs[i].contains("retryPolicy") || mcs[i].contains("hedgingPolicy");
    if (select.empty() ? has : matches(mcs[i], select)) chosen = i;
  }
  if (chosen == mcs.size() && !select.empty())
    d.fail("methodConfig", fmt::format("has no entry named \"{}\" (select a service or service/method)", select));
  if (chosen == mcs.size()) chosen = 0;
  for (std::size_t i = 0; i < mcs.size(); ++i)
    if (i != chosen)
      note(p, d, fmt::format("methodConfig[{}]", i),
           fmt::format("another method ({}), not simulated: one runs at a time (select it by name)", names_of(mcs[i])),
           false);
  p.selected = names_of(mcs[chosen]);
  return chosen;
}

void method_config(Policy& p, const Doc& d, const json& mc, const std::string& at) {
  if (mc.contains("retryPolicy") && mc.contains("hedgingPolicy"))
    d.fail(at, fmt::format("has both retryPolicy and hedgingPolicy ({}: only one may be set)", a6));
  bool retries = false;
  for (const auto& [k, v] : mc.items()) {
    const std::string key = fmt::format("{}.{}", at, k);
    if (k == "name") continue;
    if (k == "retryPolicy") {
      retry_policy(p, d, v, key);
      retries = true;
    } else if (k == "hedgingPolicy") {
      hedging_policy(p, d, v, key);
      retries = true;
    } else if (k == "timeout") {
      add(p, d, "deadline", num(seconds(d, v, key)), "s", key);
      p.entries.push_back({"deadline_cancel", "on", "",
                           fmt::format("{}: at the deadline the call ends with DEADLINE_EXCEEDED and its attempt "
                                       "in flight is cancelled (grpc/doc/deadlines.md; the server's handler runs on "
                                       "unless it checks for cancellation: cancel_in_service finish)",
                                       key),
                           d.line(key)});
    } else if (k == "waitForReady") {
      note(p, d, key, "an RPC waiting for a ready connection: retrylab has no connection state");
    } else if (k == "maxRequestMessageBytes" || k == "maxResponseMessageBytes") {
      note(p, d, key, "message size limits", false);
    } else {
      note(p, d, key, "is not a methodConfig key retrylab knows");
    }
  }
  if (!retries) {
    p.entries.push_back({"max_attempts", "1", "", at + " has no retryPolicy: gRPC makes one attempt", d.line(at)});
    p.entries.push_back({"strategy", "none", "", at + " (no retry, so no backoff)", d.line(at)});
  }
}

}  // namespace

std::map<std::string, int> json_key_lines(const std::string& text, const std::string& file) {
  struct Frame {
    bool array;
    std::string path;
    std::size_t index = 0;
    std::set<std::string> keys{};  // an object's keys so far
  };
  std::map<std::string, int> out;
  std::vector<Frame> stack;
  std::string key_path;  // the path of the value about to come, in an object
  std::size_t path_bytes = 0;
  int line = 1;
  bool expect_key = false;
  auto value_path = [&]() {
    if (stack.empty()) return std::string();
    if (stack.back().array) return fmt::format("{}[{}]", stack.back().path, stack.back().index);
    return key_path;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
        if (i < text.size()) s += text[i];
      }
      if (expect_key && !stack.empty()) {
        key_path = stack.back().path.empty() ? s : fmt::format("{}.{}", stack.back().path, s);
        if (!stack.back().keys.insert(s).second)
          fail(file, line, key_path,
               fmt::format("is given twice (first on line {}): a JSON object's keys must be unique", out[key_path]));
        path_bytes += key_path.size();
        if (path_bytes > max_json_path_bytes)
          fail(file, line, "(structure)",
               fmt::format("has over {} MiB of key paths (keys too long or nested too deep)",
                           max_json_path_bytes >> 20));
        out.emplace(key_path, line);
        expect_key = false;
      }
    } else if (c == '{' || c == '[') {
      if (stack.size() == max_json_depth)
        fail(file, line, "(structure)", fmt::format("nests deeper than {} levels", max_json_depth));
      stack.push_back({c == '[', value_path()});
      expect_key = c == '{';
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
      expect_key = false;
    } else if (c == ',' && !stack.empty()) {
      if (stack.back().array)
        ++stack.back().index;
      else
        expect_key = true;
    }
  }
  return out;
}

namespace {

// The keys of the service config schema (grpc/doc/service_config.md, gRFC A6).
constexpr std::string_view schema_keys[] = {"methodConfig",
                                            "name",
                                            "service",
                                            "method",
                                            "retryPolicy",
                                            "hedgingPolicy",
                                            "timeout",
                                            "waitForReady",
                                            "maxAttempts",
                                            "initialBackoff",
                                            "maxBackoff",
                                            "backoffMultiplier",
                                            "retryableStatusCodes",
                                            "perAttemptRecvTimeout",
                                            "hedgingDelay",
                                            "nonFatalStatusCodes",
                                            "retryThrottling",
                                            "maxTokens",
                                            "tokenRatio",
                                            "loadBalancingPolicy",
                                            "loadBalancingConfig",
                                            "healthCheckConfig",
                                            "maxRequestMessageBytes",
                                            "maxResponseMessageBytes"};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A schema key spelled in another case ("MaxAttempts", as grpc-go's own example writes it) is read
// as grpc-go reads it (Go's JSON matches field names ignoring case), with a note: the C++ and Java
// implementations match case exactly and would not find the key.
void schema_case(json& j, const std::string& at, Doc& d, Policy& p) {
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) schema_case(j[i], fmt::format("{}[{}]", at, i), d, p);
    return;
  }
  if (!j.is_object()) return;
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  for (const std::string& k : keys) {
    const std::string old_path = at.empty() ? k : fmt::format("{}.{}", at, k);
    std::string key = k;
    for (std::string_view s : schema_keys)
      if (s != k && same_ignoring_case(s, k) && !j.contains(std::string(s))) key = std::string(s);
    const std::string path = at.empty() ? key : fmt::format("{}.{}", at, key);
    if (key != k) {
      j[key] = std::move(j[k]);
      j.erase(k);
      d.lines[path] = d.line(old_path);
      p.notes.push_back({old_path, d.line(old_path),
                         fmt::format("read as {}, as grpc-go reads it; gRPC C++ and Java match keys exactly and would "
                                     "not find {}",
                                     key, key),
                         true});
    }
    schema_case(j[key], path, d, p);
  }
}

void read_config(Policy& p, const json& given, std::map<std::string, int> lines, const std::string& path,
                 std::string_view select) {
  Doc d{path, std::move(lines)};
  json root = given;
  schema_case(root, "", d, p);
  if (!root.is_object()) d.fail("(top level)", "must be a JSON object (a gRPC service config)");
  for (const auto& [k, v] : root.items()) {
    if (k == "methodConfig" || k == "retryThrottling") continue;
    const bool lb = k == "loadBalancingPolicy" || k == "loadBalancingConfig" || k == "healthCheckConfig";
    note(p, d, k,
         lb ? "load balancing and health checking (retrylab has one server)"
            : "is not a service config key "
              "retrylab knows",
         !lb);
  }
  if (root.contains("methodConfig")) {
    const json& mcs = root["methodConfig"];
    if (!mcs.is_array() || mcs.empty()) d.fail("methodConfig", "must be a non-empty array");
    const std::size_t i = pick(p, d, mcs, select);
    method_config(p, d, mcs[i], fmt::format("methodConfig[{}]", i));
  } else {
    if (!select.empty()) d.fail("methodConfig", fmt::format("is missing, so \"{}\" cannot be selected", select));
    p.entries.push_back({"max_attempts", "1", "", "no methodConfig: gRPC makes one attempt per RPC", 0});
    p.entries.push_back({"strategy", "none", "", "no methodConfig (no retry, so no backoff)", 0});
  }
  if (root.contains("retryThrottling")) throttling(p, d, root["retryThrottling"]);
}

}  // namespace

Policy parse_grpc(const std::string& text, const std::string& path, std::string_view select) {
  // Nesting, key paths and duplicate keys bounded before the parse.
  std::map<std::string, int> lines = json_key_lines(text, path);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, line_of_offset(text, e.byte == 0 ? 0 : e.byte - 1), "(syntax)",
         fmt::format("is not valid JSON: {}", std::string(e.what()).substr(std::string(e.what()).find(':') + 2)));
  } catch (const json::exception& e) {  // a number out of range, ...
    fail(path, 0, "(syntax)", fmt::format("is not valid JSON: {}", e.what()));
  }
  Policy p;
  p.path = path;
  p.format = Format::grpc;
  try {
    read_config(p, root, std::move(lines), path, select);
  } catch (const json::exception& e) {
    // A value of a type the format does not allow where it is read (a number for a name, ...).
    fail(path, 0, "(structure)", fmt::format("is malformed: {}", e.what()));
  }
  return p;
}

}  // namespace retrylab::policy::detail
