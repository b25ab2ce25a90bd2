// The importers (policy/policy.hpp) on the published example files of tests/policy (README.md):
// every field each file sets, worked out by hand from the file and the format's documentation
// (docs/policies.md states the rules), what each names as not modelled, and the one-line errors
// of malformed files (file, line, key). Exact tests; no randomness.
#include <gtest/gtest.h>
#include <map>
#include <string>

#include "analytic/error.hpp"
#include "policy/detail.hpp"
#include "policy/policy.hpp"

namespace policy_test {

namespace pol = retrylab::policy;

namespace {

const std::string dir = RETRYLAB_POLICY_DIR;

// field -> "value unit" (unit only when the entry has one), the last setting of each field.
std::map<std::string, std::string> fields(const pol::Policy& p) {
  std::map<std::string, std::string> out;
  for (const pol::Entry& e : p.entries) out[e.field] = e.unit.empty() ? e.value : e.value + " " + e.unit;
  return out;
}

// The notes' keys, with "!" for those that change what a real client does.
std::map<std::string, bool> notes(const pol::Policy& p) {
  std::map<std::string, bool> out;
  for (const pol::Note& n : p.notes) out[n.key] = n.effect;
  return out;
}

const pol::Entry& entry(const pol::Policy& p, const std::string& field) {
  const pol::Entry* e = p.find(field);
  EXPECT_NE(e, nullptr) << field;
  static const pol::Entry none;
  return e ? *e : none;
}

// The error's text for a policy file that must be refused.
std::string refusal(pol::Format f, const std::string& text, const std::string& select = {}) {
  try {
    pol::parse(f, text, "bad", select);
  } catch (const retrylab::InputError& e) {
    EXPECT_EQ(e.field(), "policy");
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

}  // namespace

TEST(Policy, FormatFromNameAndContent) {
  EXPECT_EQ(pol::detect("a.toml", ""), pol::Format::toml);
  EXPECT_EQ(pol::detect("sc.JSON", ""), pol::Format::grpc);
  EXPECT_EQ(pol::detect("envoy.yaml", "static_resources:\n"), pol::Format::envoy);
  EXPECT_EQ(pol::detect("app.yml", "resilience4j.retry:\n  instances: {}\n"), pol::Format::resilience4j);
  EXPECT_EQ(pol::detect("app.yml", "resilience4j:\n  retry: {}\n"), pol::Format::resilience4j);
  EXPECT_EQ(pol::detect("/home/u/.aws/config", "[default]\n"), pol::Format::aws);
}

TEST(Policy, GrpcRetryingExample) {
  const pol::Policy p = pol::load(dir + "/grpc/retrying_service_config.json");
  EXPECT_EQ(p.format, pol::Format::grpc);
  EXPECT_EQ(p.selected, "helloworld.Greeter/SayHello");
  // maxAttempts 5; random(0, min(0.5 s * 2^(n-1), 30 s)): full jitter, base 0.5 s, cap 30 s, m 2;
  // retryableStatusCodes [UNAVAILABLE]: only retryable failures are retried.
  const std::map<std::string, std::string> want{{"max_attempts", "5"}, {"strategy", "full"}, {"base", "0.5 s"},
                                                {"cap", "30 s"},       {"multiplier", "2"},  {"retry_on", "retryable"}};
  EXPECT_EQ(fields(p), want);
  EXPECT_EQ(entry(p, "max_attempts").line, 12);
  EXPECT_EQ(entry(p, "max_attempts").source, "methodConfig[0].retryPolicy.maxAttempts");
  EXPECT_EQ(entry(p, "cap").line, 14);
  EXPECT_EQ(entry(p, "retry_on").line, 16);
  EXPECT_EQ(entry(p, "retry_on").source.rfind("methodConfig[0].retryPolicy.retryableStatusCodes: UNAVAILABLE is", 0),
            0u);
  EXPECT_TRUE(p.notes.empty());  // every key mapped
}

TEST(Policy, GrpcStatusCodesMapOntoFailureKinds) {
  const auto codes = [](const std::string& list) {
    return pol::parse(pol::Format::grpc,
                      R"({"methodConfig": [{"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 3,
                      "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": )" +
                          list + "}}]}",
                      "x.json");
  };
  EXPECT_EQ(fields(codes(R"(["RESOURCE_EXHAUSTED"])")).at("retry_on"), "throttled");
  EXPECT_EQ(fields(codes(R"(["unavailable", 8])")).at("retry_on"), "retryable+throttled");
  const pol::Policy other = codes(R"(["DEADLINE_EXCEEDED", "UNAVAILABLE"])");
  EXPECT_EQ(fields(other).at("retry_on"), "retryable");
  ASSERT_EQ(other.notes.size(), 1u);  // DEADLINE_EXCEEDED: no simulated failure carries it
  EXPECT_FALSE(other.notes.front().effect);
  EXPECT_NE(other.notes.front().text.find("DEADLINE_EXCEEDED"), std::string::npos);
  EXPECT_EQ(fields(codes(R"(["ABORTED"])")).at("retry_on"), "none");
}

TEST(Policy, GrpcHedgingExampleHedges) {
  const pol::Policy p = pol::load(dir + "/grpc/hedging_service_config.json");
  // hedgingPolicy maxAttempts 3, hedgingDelay 1s: hedged, the others cancelled at the first success,
  // never retried; retryThrottling maxTokens 10, tokenRatio 0.1: the grpc preset, one per channel.
  const std::map<std::string, std::string> want{
      {"hedge_attempts", "3"}, {"hedge_delay", "1 s"}, {"hedge_cancel", "on"}, {"hedge_in_service", "finish"},
      {"max_attempts", "1"},   {"strategy", "none"},   {"budget", "grpc"},     {"budget_scope", "shared"}};
  EXPECT_EQ(fields(p), want);
  EXPECT_EQ(entry(p, "hedge_attempts").line, 12);
  EXPECT_EQ(entry(p, "hedge_delay").source, "methodConfig[0].hedgingPolicy.hedgingDelay");
  EXPECT_TRUE(p.notes.empty());
}

TEST(Policy, GrpcHedgingCapsAtFiveAndNotesStatusCodes) {
  const pol::Policy p = pol::parse(pol::Format::grpc,
                                   R"({"methodConfig": [{"name": [{"service": "a.B"}],
                                      "hedgingPolicy": {"maxAttempts": 9, "nonFatalStatusCodes": ["UNAVAILABLE"]}}]})",
                                   "x.json");
  const std::map<std::string, std::string> want{{"hedge_attempts", "5"}, {"hedge_delay", "0 s"},
                                                {"hedge_cancel", "on"},  {"hedge_in_service", "finish"},
                                                {"max_attempts", "1"},   {"strategy", "none"}};
  EXPECT_EQ(fields(p), want);
  const std::map<std::string, bool> n{{"methodConfig[0].hedgingPolicy.maxAttempts", true},
                                      {"methodConfig[0].hedgingPolicy.nonFatalStatusCodes", true}};
  EXPECT_EQ(notes(p), n);
  EXPECT_THROW(pol::parse(pol::Format::grpc, R"({"methodConfig": [{"name": [{"service": "a.B"}],
                                      "hedgingPolicy": {"maxAttempts": 1}}]})",
                          "x.json"),
               retrylab::InputError);
}

TEST(Policy, GrpcThrottlingOtherThanThePresetIsAPerFailureBucket) {
  const pol::Policy p = pol::parse(pol::Format::grpc,
                                   R"({"methodConfig": [{"name": [{"service": "a.B"}], "timeout": "2s",
                                      "retryPolicy": {"maxAttempts": 7, "initialBackoff": "2s", "maxBackoff": "1s",
                                      "backoffMultiplier": 1.5, "retryableStatusCodes": ["UNAVAILABLE"]}},
                                      {"name": [{"service": "c.D"}]}],
                                      "retryThrottling": {"maxTokens": 100, "tokenRatio": 0.25}})",
                                   "x.json");
  // maxAttempts above 5 is 5; maxBackoff below initialBackoff makes every window 1 s.
  const std::map<std::string, std::string> want{{"max_attempts", "5"},
                                                {"strategy", "full"},
                                                {"base", "1 s"},
                                                {"cap", "1 s"},
                                                {"multiplier", "1.5"},
                                                {"deadline", "2 s"},
                                                {"deadline_cancel", "on"},  // the deadline cancels
                                                {"budget", "token-bucket"},
                                                {"bucket_charge", "per-failure"},
                                                {"bucket_capacity", "100"},
                                                {"bucket_cost", "1"},
                                                {"bucket_timeout_cost", "1"},
                                                {"bucket_refund", "0.25"},
                                                {"bucket_threshold", "50"},
                                                {"budget_scope", "shared"},
                                                {"retry_on", "retryable"}};
  EXPECT_EQ(fields(p), want);
  const auto n = notes(p);
  EXPECT_TRUE(n.at("methodConfig[0].retryPolicy.maxAttempts"));  // 7 treated as 5
  EXPECT_FALSE(n.at("methodConfig[1]"));                         // another method, not simulated
  EXPECT_EQ(pol::parse(pol::Format::grpc, R"({"methodConfig": [{"name": [{"service": "a.B"}]},
      {"name": [{"service": "c.D", "method": "M"}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s",
      "maxBackoff": "1s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]})",
                       "x.json", "c.D/M")
                .selected,
            "c.D/M");
}

TEST(Policy, EnvoyDocsExampleTakesEnvoysDefaults) {
  const pol::Policy p = pol::load(dir + "/envoy/retry-previous-hosts.yaml");
  EXPECT_EQ(p.format, pol::Format::envoy);
  // num_retries defaults to 1; base_interval 25 ms, max_interval 10 x base; the route timeout 15 s.
  const std::map<std::string, std::string> want{
      {"max_attempts", "2"},     {"strategy", "full"},     {"base", "25 ms"},         {"cap", "250 ms"},
      {"multiplier", "2"},       {"deadline", "15000 ms"}, {"deadline_cancel", "on"},  // the route timeout resets
      {"retries_in_flight", "3"}};  // no circuit_breakers: Envoy's default
  EXPECT_EQ(fields(p), want);
  const std::string at =
      "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config."
      "virtual_hosts[0].routes[0].route.retry_policy";
  const std::map<std::string, bool> n{{at, true},  // no retry_on
                                      {at + ".retry_host_predicate", false},
                                      {at + ".host_selection_retry_max_attempts", false}};
  EXPECT_EQ(notes(p), n);
}

TEST(Policy, EnvoyRouteWithBackOffTimeoutsAndRetryBudget) {
  const pol::Policy p = pol::load(dir + "/envoy/route-retry-budget.yaml");
  // retry_on "5xx,reset,connect-failure": retryable failures only.
  const std::map<std::string, std::string> want{{"max_attempts", "4"},
                                                {"timeout", "250 ms"},
                                                {"strategy", "full"},
                                                {"base", "100 ms"},
                                                {"cap", "1000 ms"},
                                                {"multiplier", "2"},
                                                {"retry_on", "retryable"},
                                                {"deadline", "2000 ms"},
                                                {"deadline_cancel", "on"},
                                                {"retries_in_flight", "5"},
                                                {"retries_in_flight_percent", "25"}};
  EXPECT_EQ(fields(p), want);
  EXPECT_EQ(entry(p, "retry_on").line, 45);
  EXPECT_EQ(entry(p, "retries_in_flight_percent").line, 12);  // budget_percent
  EXPECT_EQ(entry(p, "retries_in_flight").line, 13);          // min_retry_concurrency
  for (const pol::Note& n : p.notes) EXPECT_EQ(n.key.find("circuit_breakers"), std::string::npos) << n.key;
}

TEST(Policy, EnvoyRetriesInFlightFromTheCircuitBreaker) {
  const auto with = [](const std::string& breakers) {
    return pol::parse(pol::Format::envoy,
                      "clusters:\n- name: b\n" + breakers +
                          "routes:\n- route:\n    cluster: b\n    retry_policy: {retry_on: 5xx, num_retries: 2}\n",
                      "x.yaml");
  };
  const auto value = [](const pol::Policy& p, const char* field) {
    const pol::Entry* e = p.find(field);
    return e == nullptr ? std::string("(none)") : e->value;
  };
  // max_retries, at DEFAULT priority (given or implied); a HIGH threshold is named without effect.
  pol::Policy p =
      with("  circuit_breakers:\n    thresholds:\n    - {priority: HIGH, max_retries: 9}\n    - {max_retries: 7}\n");
  EXPECT_EQ(value(p, "retries_in_flight"), "7");
  EXPECT_EQ(value(p, "retries_in_flight_percent"), "(none)");
  EXPECT_FALSE(notes(p).at("clusters[0].circuit_breakers.thresholds[0]"));
  // A threshold without max_retries or a budget: the default 3.
  EXPECT_EQ(value(with("  circuit_breakers:\n    thresholds:\n    - {max_connections: 5}\n"), "retries_in_flight"),
            "3");
  // A budget with Envoy's defaults (20%, minimum 3); max_retries beside it has no effect.
  p = with("  circuit_breakers:\n    thresholds:\n    - {max_retries: 7, retry_budget: {}}\n");
  EXPECT_EQ(value(p, "retries_in_flight"), "3");
  EXPECT_EQ(value(p, "retries_in_flight_percent"), "20");
  EXPECT_FALSE(notes(p).at("clusters[0].circuit_breakers.thresholds[0].max_retries"));
  // max_retries 0 and an empty budget (no retry ever sent) are notes with effect, no field.
  p = with("  circuit_breakers:\n    thresholds:\n    - {max_retries: 0}\n");
  EXPECT_EQ(value(p, "retries_in_flight"), "(none)");
  EXPECT_TRUE(notes(p).at("clusters[0].circuit_breakers.thresholds[0].max_retries"));
  p = with(
      "  circuit_breakers:\n    thresholds:\n    - retry_budget: {budget_percent: {value: 0}, "
      "min_retry_concurrency: 0}\n");
  EXPECT_EQ(value(p, "retries_in_flight"), "(none)");
  EXPECT_TRUE(notes(p).at("clusters[0].circuit_breakers.thresholds[0].retry_budget"));
  // A budget percent out of range is refused, naming the key.
  try {
    with("  circuit_breakers:\n    thresholds:\n    - retry_budget: {budget_percent: 150}\n");
    ADD_FAILURE() << "accepted";
  } catch (const retrylab::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("budget_percent"), std::string::npos) << e.what();
  }
}

TEST(Policy, AwsModesFollowBotocore) {
  const pol::Policy standard = pol::load(dir + "/aws/config");
  EXPECT_EQ(standard.selected, "default");
  // Transient and throttling errors are retried, no other: retry_on retryable+throttled.
  const std::map<std::string, std::string> want{{"max_attempts", "3"},
                                                {"strategy", "full"},
                                                {"base", "1 s"},
                                                {"cap", "20 s"},
                                                {"multiplier", "2"},
                                                {"budget", "aws-standard"},
                                                {"budget_scope", "shared"},
                                                {"retry_on", "retryable+throttled"}};
  EXPECT_EQ(fields(standard), want);
  const auto n = notes(standard);
  EXPECT_FALSE(n.at("region"));
  EXPECT_FALSE(n.at("[legacy]"));
  EXPECT_EQ(n.count("retry_mode"), 0u);  // every retry_mode rule is mapped
  const std::map<std::string, std::string> legacy{{"max_attempts", "5"},
                                                  {"strategy", "full"},
                                                  {"base", "1 s"},
                                                  {"cap", "none"},
                                                  {"multiplier", "2"},
                                                  {"budget", "none"},
                                                  {"retry_on", "retryable+throttled"}};
  EXPECT_EQ(fields(pol::load(dir + "/aws/config", "legacy")), legacy);
  const pol::Policy adaptive = pol::load(dir + "/aws/config", "adaptive");
  EXPECT_EQ(fields(adaptive).at("max_attempts"), "5");
  EXPECT_EQ(fields(adaptive).at("budget"), "aws-standard");
  // Its client-side rate limiter is simulated (botocore's, cited as the source), no longer a note.
  EXPECT_EQ(fields(adaptive).at("adaptive_rate"), "on");
  for (const pol::Entry& x : adaptive.entries)
    if (x.field == "adaptive_rate") EXPECT_NE(x.source.find("botocore/retries/adaptive.py"), std::string::npos);
  for (const pol::Note& x : adaptive.notes) EXPECT_EQ(x.text.find("rate limiter"), std::string::npos) << x.text;
  EXPECT_EQ(fields(standard).count("adaptive_rate"), 0u);
  EXPECT_EQ(
      fields(pol::parse(pol::Format::aws, "AWS_RETRY_MODE=legacy\nAWS_MAX_ATTEMPTS=2\n", "env")).at("max_attempts"),
      "2");
}

TEST(Policy, Resilience4jDocumentedExample) {
  const pol::Policy a = pol::load(dir + "/resilience4j/application.yml");
  EXPECT_EQ(a.format, pol::Format::resilience4j);
  EXPECT_EQ(a.selected, "backendA");
  // retry: 3 attempts, 10 s doubling, no jitter; breaker: every CircuitBreakerConfig default but
  // slidingWindowSize 100; timelimiter backendA 2 s per attempt.
  const std::map<std::string, std::string> want{{"max_attempts", "3"},
                                                {"strategy", "nojitter"},
                                                {"base", "10000 ms"},
                                                {"cap", "none"},
                                                {"multiplier", "2"},
                                                {"breaker", "resilience4j"},
                                                {"breaker_scope", "shared"},
                                                {"breaker_calls", "100"},
                                                {"breaker_minimum_calls", "100"},
                                                {"breaker_failure_threshold", "0.5"},
                                                {"breaker_open_duration", "60000 ms"},
                                                {"breaker_half_open_calls", "10"},
                                                {"timeout", "2000 ms"},
                                                {"retry_on", "retryable"}};
  EXPECT_EQ(fields(a), want);
  const auto n = notes(a);
  // retryExceptions HttpServerErrorException, IOException: retryable failures only; the ignored
  // BusinessException is a fatal failure, not retried either (no effect beyond retry_on).
  EXPECT_EQ(n.count("resilience4j.retry.instances.backendA.retryExceptions"), 0u);
  EXPECT_FALSE(n.at("resilience4j.retry.instances.backendA.ignoreExceptions"));
  EXPECT_FALSE(n.at("resilience4j.circuitbreaker.instances.backendA.registerHealthIndicator"));
  EXPECT_TRUE(n.at("resilience4j.bulkhead"));
  EXPECT_FALSE(n.at("resilience4j.retry.instances.backendB"));
  EXPECT_EQ(entry(a, "breaker_calls").line, 5);

  const pol::Policy b = pol::load(dir + "/resilience4j/application.yml", "backendB");
  const std::map<std::string, std::string> want_b{{"max_attempts", "3"},
                                                  {"strategy", "nojitter"},
                                                  {"base", "10000 ms"},
                                                  {"cap", "none"},
                                                  {"multiplier", "1"},
                                                  {"breaker", "resilience4j"},
                                                  {"breaker_scope", "shared"},
                                                  {"breaker_window", "10 s"},
                                                  {"breaker_minimum_calls", "20"},
                                                  {"breaker_failure_threshold", "0.5"},
                                                  {"breaker_open_duration", "50000 ms"},
                                                  {"breaker_half_open_calls", "3"},
                                                  {"timeout", "1000 ms"},
                                                  {"retry_on", "retryable"}};
  EXPECT_EQ(fields(b), want_b);
  EXPECT_TRUE(notes(b).at("resilience4j.circuitbreaker.instances.backendB.recordFailurePredicate"));
}

TEST(Policy, Resilience4jRandomizedWaitIsTheNearestJitterAtTheSameMean) {
  const auto with = [](const std::string& factor) {
    return pol::parse(pol::Format::resilience4j,
                      "resilience4j:\n  retry:\n    configs:\n      default:\n        wait-duration: 300ms\n"
                      "        enable-randomized-wait: true\n" +
                          factor,
                      "r.yml");
  };
  // f = 1: uniform [0, 2w], full jitter on 2w, exact (no note).
  const pol::Policy full = with("        randomized-wait-factor: 1\n");
  EXPECT_EQ(fields(full).at("strategy"), "full");
  EXPECT_EQ(fields(full).at("base"), "600 ms");
  EXPECT_TRUE(full.notes.empty());
  // f = 0.5 (the default): uniform [150, 450] ms, simulated as equal jitter on 400 ms: [200, 400].
  const pol::Policy half = with("");
  EXPECT_EQ(fields(half).at("strategy"), "equal");
  EXPECT_EQ(fields(half).at("base"), "400 ms");
  EXPECT_EQ(fields(half).at("max_attempts"), "3");
  ASSERT_EQ(half.notes.size(), 1u);
  EXPECT_TRUE(half.notes.front().effect);
}

TEST(Policy, RetrylabToml) {
  const pol::Policy p = pol::load(dir + "/retrylab/policy.toml");
  EXPECT_EQ(p.format, pol::Format::toml);
  EXPECT_EQ(fields(p).at("base"), "100 ms");
  EXPECT_EQ(fields(p).at("budget"), "token-bucket");
  EXPECT_EQ(fields(p).at("max_attempts"), "4 ms");  // every number carries the file's unit; api/ applies it to times
  EXPECT_EQ(entry(p, "budget").unit, "");
  EXPECT_EQ(entry(p, "strategy").source, "backoff.strategy");
  EXPECT_EQ(entry(p, "strategy").line, 6);
  EXPECT_TRUE(p.notes.empty());
}

TEST(Policy, MalformedFilesNameFileLineAndKey) {
  EXPECT_EQ(refusal(pol::Format::grpc, "{\n  \"methodConfig\": [\n    {\"name\": }\n  ]\n}")
                .rfind("policy bad:3: (syntax) is not valid JSON", 0),
            0u);
  EXPECT_EQ(
      refusal(pol::Format::grpc,
              "{\"methodConfig\": [{\n\"retryPolicy\": {\n\"maxAttempts\": \"five\",\n\"initialBackoff\": \"1s\","
              "\"maxBackoff\": \"1s\", \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}"),
      "policy bad:3: methodConfig[0].retryPolicy.maxAttempts must be a number");
  EXPECT_EQ(refusal(pol::Format::grpc, "{\"methodConfig\": [{\"retryPolicy\": {\"maxAttempts\": 3}}]}"),
            "policy bad:1: methodConfig[0].retryPolicy needs initialBackoff (required by gRFC A6 (grpc/proposal "
            "A6-client-retries.md))");
  EXPECT_EQ(refusal(pol::Format::envoy, "route:\n  retry_policy:\n    num_retries: -1\n"),
            "policy bad:3: route.retry_policy.num_retries must be in [0, 999999999] (got -1)");
  EXPECT_EQ(refusal(pol::Format::envoy, "a: [b\n").rfind("policy bad:2: (syntax) is not valid YAML", 0), 0u);
  EXPECT_EQ(refusal(pol::Format::aws, "[default]\nretry_mode = fast\n"),
            "policy bad:2: retry_mode must be legacy, standard or adaptive (got \"fast\")");
  EXPECT_EQ(refusal(pol::Format::aws, "[default]\nmax_attempts = 0\n"),
            "policy bad:2: max_attempts must be an integer >= 1 (got \"0\")");
  EXPECT_EQ(refusal(pol::Format::resilience4j, "resilience4j.retry:\n  instances:\n    a:\n      maxAttempts: x\n"),
            "policy bad:4: resilience4j.retry.instances.a.maxAttempts must be a number");
  EXPECT_EQ(refusal(pol::Format::toml, "[server]\nlimit = 3\n").rfind("policy bad:1: server is not a key", 0), 0u);
  EXPECT_EQ(refusal(pol::Format::toml, "unit = \"ms\"\n[client\n").rfind("policy bad:2: (syntax)", 0), 0u);
  EXPECT_EQ(refusal(pol::Format::toml, "[client]\n", "x"),
            "policy bad: select applies to gRPC service configs, resilience4j and AWS profiles only (got \"x\" for a "
            "retrylab TOML file)");
}

TEST(Policy, Durations) {
  namespace d = retrylab::policy::detail;
  EXPECT_EQ(d::proto_duration("0.5s"), 0.5);
  EXPECT_EQ(d::proto_duration(".01s"), 0.01);
  EXPECT_FALSE(d::proto_duration("5"));
  EXPECT_FALSE(d::proto_duration("1ms"));
  EXPECT_EQ(d::spring_duration("500"), 500.0);
  EXPECT_EQ(d::spring_duration("10s"), 10000.0);
  EXPECT_EQ(d::spring_duration("2m"), 120000.0);
  EXPECT_EQ(d::spring_duration("PT1M30S"), 90000.0);
  EXPECT_FALSE(d::spring_duration("10 s"));
  EXPECT_FALSE(d::spring_duration("ten"));
}

// What fuzz_policy found: a scalar where a map belongs, a name of the wrong type, a number JSON
// cannot hold, a key scan past a closed object; each is now one InputError, not an escape.
TEST(Policy, FuzzFindingsAreRefusals) {
  EXPECT_EQ(
      refusal(pol::Format::resilience4j, "resilience4j.retry: 5\n").rfind("policy bad:1: (structure) is malformed", 0),
      0u);
  EXPECT_EQ(refusal(pol::Format::grpc, R"({"methodConfig": [{"name": [{"service": 5}], "retryPolicy": {}}]})")
                .rfind("policy bad: (structure) is malformed", 0),
            0u);
  EXPECT_EQ(refusal(pol::Format::grpc, "[11111E1110]").rfind("policy bad: (syntax) is not valid JSON", 0), 0u);
  EXPECT_TRUE(retrylab::policy::detail::json_key_lines("{}, \"a\" {\"b\": 1}", "x.json").count("b"));
}

TEST(Policy, GrpcGoExampleSpellsKeysInCapitals) {
  const pol::Policy p = pol::load(dir + "/grpc/grpc-go-retry-example.json");
  // MaxAttempts 4, InitialBackoff = MaxBackoff = .01 s, BackoffMultiplier 1: a constant 10 ms window.
  const std::map<std::string, std::string> want{{"max_attempts", "4"}, {"strategy", "full"}, {"base", "0.01 s"},
                                                {"cap", "0.01 s"},     {"multiplier", "1"},  {"retry_on", "retryable"}};
  EXPECT_EQ(fields(p), want);
  EXPECT_EQ(entry(p, "max_attempts").line, 6);
  const std::map<std::string, bool> n{{"methodConfig[0].retryPolicy.MaxAttempts", true},
                                      {"methodConfig[0].retryPolicy.InitialBackoff", true},
                                      {"methodConfig[0].retryPolicy.MaxBackoff", true},
                                      {"methodConfig[0].retryPolicy.BackoffMultiplier", true},
                                      {"methodConfig[0].retryPolicy.RetryableStatusCodes", true},
                                      {"methodConfig[0].waitForReady", true}};
  EXPECT_EQ(notes(p), n);
}

TEST(Policy, EnvoyRetryOnConditionsMapOntoFailureKinds) {
  const auto on = [](const std::string& conditions, const std::string& extra = "") {
    return pol::parse(pol::Format::envoy,
                      "route:\n  cluster: c\n  retry_policy:\n    retry_on: \"" + conditions + "\"\n" + extra,
                      "e.yaml");
  };
  EXPECT_EQ(fields(on("5xx")).at("retry_on"), "retryable");
  EXPECT_EQ(fields(on("resource-exhausted,unavailable")).at("retry_on"), "retryable+throttled");
  EXPECT_EQ(fields(on("retriable-status-codes", "    retriable_status_codes: [429]\n")).at("retry_on"), "throttled");
  const pol::Policy other = on("retriable-4xx, deadline-exceeded");
  EXPECT_EQ(fields(other).at("retry_on"), "none");
  int conditions = 0;
  for (const pol::Note& n : other.notes)
    if (n.key == "route.retry_policy.retry_on") {
      ++conditions;
      EXPECT_FALSE(n.effect);
      EXPECT_NE(n.text.find("retriable-4xx, deadline-exceeded"), std::string::npos) << n.text;
    }
  EXPECT_EQ(conditions, 1);
}

TEST(Policy, Resilience4jKeysWithoutTheirFlagHaveNoEffect) {
  // exponentialBackoffMultiplier, exponentialMaxWaitDuration and randomizedWaitFactor without
  // enableExponentialBackoff / enableRandomizedWait: a fixed wait, each key a note without effect,
  // and the mapping's source the rule, not the key.
  const pol::Policy p = pol::parse(pol::Format::resilience4j,
                                   "resilience4j.retry:\n  configs:\n    default:\n      waitDuration: 100ms\n"
                                   "      exponentialBackoffMultiplier: 3\n      exponentialMaxWaitDuration: 5s\n"
                                   "      randomizedWaitFactor: 0.2\n",
                                   "r.yml");
  EXPECT_EQ(fields(p).at("multiplier"), "1");
  EXPECT_EQ(fields(p).at("cap"), "none");
  EXPECT_EQ(fields(p).at("strategy"), "nojitter");
  EXPECT_EQ(entry(p, "multiplier").line, 0);
  EXPECT_EQ(entry(p, "multiplier").source, "a fixed wait: 1");
  EXPECT_EQ(entry(p, "cap").line, 0);
  const auto n = notes(p);
  EXPECT_FALSE(n.at("resilience4j.retry.configs.default.exponentialBackoffMultiplier"));
  EXPECT_FALSE(n.at("resilience4j.retry.configs.default.exponentialMaxWaitDuration"));
  EXPECT_FALSE(n.at("resilience4j.retry.configs.default.randomizedWaitFactor"));
  // With the flag the multiplier is the key's.
  const pol::Policy q = pol::parse(pol::Format::resilience4j,
                                   "resilience4j.retry:\n  configs:\n    default:\n      waitDuration: 100ms\n"
                                   "      enableExponentialBackoff: true\n      exponentialBackoffMultiplier: 3\n",
                                   "r.yml");
  EXPECT_EQ(fields(q).at("multiplier"), "3");
  EXPECT_EQ(entry(q, "multiplier").line, 6);
}

TEST(Policy, Resilience4jExceptionsMapOntoFailureKinds) {
  const auto with = [](const std::string& lists) {
    return pol::parse(pol::Format::resilience4j,
                      "resilience4j.retry:\n  configs:\n    default:\n      waitDuration: 100ms\n" + lists, "r.yml");
  };
  EXPECT_EQ(fields(with("      retryExceptions:\n        - io.github.resilience4j.ratelimiter.RequestNotPermitted\n"
                        "        - java.util.concurrent.TimeoutException\n"))
                .at("retry_on"),
            "retryable+throttled");
  EXPECT_EQ(fields(with("      ignoreExceptions:\n        - com.example.BusinessException\n")).at("retry_on"),
            "retryable+throttled");
  const pol::Policy unknown = with("      retryExceptions:\n        - com.example.FlakyThing\n");
  EXPECT_EQ(fields(unknown).at("retry_on"), "retryable");  // taken as the retryable failures, with a note
  EXPECT_FALSE(notes(unknown).at("resilience4j.retry.configs.default.retryExceptions"));
  EXPECT_EQ(fields(with("")).count("retry_on"), 0u);  // neither list: every exception, retry_on all
}

}  // namespace policy_test
