// `retrylab simulate --policy FILE` and `retrylab policy show FILE` on the example files of
// tests/policy (README.md), one scenario per importer against a hand-worked expectation:
// on --model none with injected failures of probability p and nothing else in the way (no
// contention, timeouts and deadlines far above any sleep, budgets that cannot run out), a request
// makes A = min(G, K) attempts, G geometric with success 1 - p and K the policy's max attempts, so
// E[A] = (1 - p^K)/(1 - p) and a request is lost with probability p^K. With p = 1 the counts are
// exact; with p < 1 the mean of A over R requests lies within 5 sd/sqrt(R) of E[A] and the lost
// count within 5 sd of R p^K (normal approximation to the sum and the binomial; two-sided 5-sigma:
// false-failure rate about 6e-7 per check, fixed seeds). About 10 s.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/cli.hpp"

namespace {

using retrylab::test::Child;
using retrylab::test::run_child;
const std::string dir = RETRYLAB_POLICY_DIR;

Child run(const std::string& args) { return retrylab::test::run_cli(args); }

nlohmann::json simulate(const std::string& args) {
  const Child c = run("simulate --model none --unit ms --attempt-duration 10 --quiet --format json " + args);
  EXPECT_EQ(c.status, 0) << args << ": " << c.err;
  return c.status == 0 ? nlohmann::json::parse(c.out) : nlohmann::json::object();
}

double mean(const nlohmann::json& j, const std::string& metric) { return j["metrics"][metric]["mean"].get<double>(); }

// E[A], Var[A] of A = min(G, K) for failure probability p.
std::pair<double, double> attempts(double p, int k) {
  double m = 0, m2 = 0;
  for (int a = 1; a <= k; ++a) {
    const double prob = a < k ? std::pow(p, a - 1) * (1 - p) : std::pow(p, k - 1);
    m += a * prob;
    m2 += double(a) * a * prob;
  }
  return {m, m2 - m * m};
}

// `clients` per run times `runs` requests at failure probability p, against K attempts.
void expect_truncated_geometric(const std::string& policy_args, int k, double p, int clients, int runs) {
  const nlohmann::json j =
      simulate(fmt::format("{} --clients {} --runs {} --failure-prob {} --seed 7", policy_args, clients, runs, p));
  const double r = double(clients) * runs;
  const auto [ea, va] = attempts(p, k);
  EXPECT_NEAR(mean(j, "attempts_per_client"), ea, 5 * std::sqrt(va / r)) << policy_args;
  const double q = std::pow(p, k);
  EXPECT_NEAR(mean(j, "lost") * runs, r * q, 5 * std::sqrt(r * q * (1 - q))) << policy_args;
}

void expect_exact_when_every_attempt_fails(const std::string& policy_args, int k) {
  const nlohmann::json j = simulate(policy_args + " --clients 200 --runs 3 --failure-prob 1");
  EXPECT_EQ(mean(j, "attempts_per_client"), k) << policy_args;
  EXPECT_EQ(mean(j, "lost"), 200) << policy_args;
}

}  // namespace

TEST(PolicyCli, GrpcRetryingExampleRunsItsFiveAttempts) {
  const std::string f = "--policy " + dir + "/grpc/retrying_service_config.json";
  expect_exact_when_every_attempt_fails(f, 5);
  expect_truncated_geometric(f, 5, 0.3, 500, 40);
  const nlohmann::json j = simulate(f + " --clients 10 --runs 1");
  EXPECT_EQ(j["scenario"]["strategy"], "full");
  EXPECT_EQ(j["scenario"]["base"].get<double>(), 500.0);  // 0.5 s, printed back in ms
  EXPECT_EQ(j["scenario"]["cap"].get<double>(), 30000.0);
  // grpc-go's example, its keys in capitals: MaxAttempts 4.
  expect_exact_when_every_attempt_fails("--policy " + dir + "/grpc/grpc-go-retry-example.json", 4);
}

TEST(PolicyCli, GrpcHedgingExampleHedgesUnderItsThrottle) {
  const std::string f = "--policy " + dir + "/grpc/hedging_service_config.json";
  // Alone, a client whose every attempt fails sends its two hedges at once after each failure (the
  // bucket, 10 tokens, stays above 5 after two failures), then gives up: 3 attempts, lost.
  nlohmann::json j = simulate(f + " --clients 1 --runs 1 --failure-prob 1");
  EXPECT_EQ(mean(j, "attempts_per_client"), 3);
  EXPECT_EQ(mean(j, "hedges"), 2);
  EXPECT_EQ(mean(j, "lost"), 1);
  EXPECT_EQ(j["scenario"]["hedge_attempts"].get<double>(), 3);
  EXPECT_EQ(j["scenario"]["hedge_delay"].get<double>(), 1000.0);  // 1 s, printed back in ms
  // 200 together: their 200 first attempts fail at one instant and drain the bucket (one token each,
  // floored at 0) before any hedge is due, so every hedge is refused and every request is lost.
  expect_exact_when_every_attempt_fails(f, 1);
  j = simulate(f + " --clients 200 --runs 3 --failure-prob 1");
  EXPECT_EQ(mean(j, "hedges_throttled"), 200);
  const Child c = run("simulate --model none --unit ms --attempt-duration 10 --quiet --clients 5 " + f);
  EXPECT_EQ(c.err.find("not modelled"), std::string::npos) << c.err;
}

TEST(PolicyCli, EnvoyExamplesRunTheirRetries) {
  // The hand-worked counts need nothing else in the way: Envoy's retries in flight (3 by default,
  // 5 or 25% in the route file) are lifted here and worked by hand below.
  const std::string off = " --retries-in-flight 0 --retries-in-flight-percent 0";
  const std::string docs = "--policy " + dir + "/envoy/retry-previous-hosts.yaml";
  expect_exact_when_every_attempt_fails(docs + off, 2);  // num_retries 1 by default
  expect_truncated_geometric(docs + off, 2, 0.3, 500, 40);
  const std::string route = "--policy " + dir + "/envoy/route-retry-budget.yaml";
  expect_exact_when_every_attempt_fails(route + off, 4);  // 2 s deadline > 4 attempts + 700 ms of sleeps
  expect_truncated_geometric(route + off, 4, 0.3, 500, 40);
}

TEST(PolicyCli, EnvoyDefaultRetriesInFlightBindAsWorkedByHand) {
  // The docs example (2 attempts, no circuit breaker: Envoy's default of 3 retries in flight), 200
  // clients whose every attempt fails: the 200 first attempts fail at one instant (10 ms), before
  // any retry is sent; the first 3 failures take the 3 places and the other 197 are denied (lost at
  // once); the 3 retries fail at the retry limit. Attempts per run: 200 + 3.
  const nlohmann::json j =
      simulate("--policy " + dir + "/envoy/retry-previous-hosts.yaml --clients 200 --runs 3 --failure-prob 1");
  EXPECT_EQ(j["scenario"]["retries_in_flight"].get<double>(), 3);
  EXPECT_EQ(mean(j, "attempts_per_client"), 203.0 / 200.0);
  EXPECT_EQ(mean(j, "retries_in_flight_denied"), 197);
  EXPECT_EQ(mean(j, "lost"), 200);
}

TEST(PolicyCli, AwsStandardQuotaBindsAsWorkedByHand) {
  const std::string f = "--policy " + dir + "/aws/config";
  // 50 clients make at most 100 retries, 500 tokens: the quota never refuses one.
  expect_truncated_geometric(f, 3, 0.3, 50, 400);
  const nlohmann::json few = simulate(f + " --clients 50 --runs 20 --failure-prob 0.3 --seed 2");
  EXPECT_EQ(mean(few, "retries_denied"), 0.0);
  // Every attempt failing, 1000 clients: 500 tokens pay exactly 100 retries (5 each, nothing
  // refunded); the other 900 first retries and the 100 second retries are refused: 1100 attempts.
  const nlohmann::json all = simulate(f + " --clients 1000 --runs 2 --failure-prob 1");
  EXPECT_EQ(mean(all, "attempts_per_client"), 1.1);
  EXPECT_EQ(mean(all, "retries_denied"), 1000.0);
  EXPECT_EQ(mean(all, "lost"), 1000.0);
  // legacy: 5 attempts, no quota.
  expect_exact_when_every_attempt_fails(f + " --policy-select legacy", 5);
}

TEST(PolicyCli, AwsAdaptiveRunsTheRateLimiter) {
  // retry_mode = adaptive: the client-side rate limiter is on. Throttling errors turn it on and
  // clients wait for tokens; retryable failures leave it off (botocore's _enabled).
  const std::string f = "--policy " + dir + "/aws/config --policy-select adaptive --clients 50 --runs 2 ";
  const nlohmann::json thr = simulate(f + "--failure-prob 0.5 --failure-kind throttled --seed 3");
  EXPECT_EQ(thr["scenario"]["adaptive_rate"], "on");
  EXPECT_GT(mean(thr, "adaptive_delayed"), 0.0);
  EXPECT_GT(mean(thr, "adaptive_on"), 0.0);
  const nlohmann::json ret = simulate(f + "--failure-prob 0.5 --seed 3");
  EXPECT_EQ(mean(ret, "adaptive_delayed"), 0.0);
  EXPECT_EQ(mean(ret, "adaptive_on"), 0.0);
}

TEST(PolicyCli, Resilience4jExampleRetriesAndItsBreakerStaysClosed) {
  const std::string f = "--policy " + dir + "/resilience4j/application.yml";
  // p = 0.1: a window of 100 calls reaching 50% failures has probability below 1e-20 per check.
  expect_truncated_geometric(f, 3, 0.1, 500, 40);
  const nlohmann::json j = simulate(f + " --clients 500 --runs 5 --failure-prob 0.1 --seed 3");
  EXPECT_EQ(mean(j, "breaker_opened"), 0.0);
  EXPECT_EQ(j["scenario"]["breaker_calls"], 100);
  EXPECT_EQ(j["scenario"]["timeout"].get<double>(), 2000.0);
}

TEST(PolicyCli, RetrylabTomlRunsAsWritten) {
  const std::string f = "--policy " + dir + "/retrylab/policy.toml";
  expect_exact_when_every_attempt_fails(f, 4);
  expect_truncated_geometric(f, 4, 0.3, 500, 40);
}

TEST(PolicyCli, FlagsGivenWinWithAWarning) {
  const Child c =
      run("simulate --model none --unit ms --attempt-duration 10 --quiet --format json --clients 100 "
          "--runs 2 --failure-prob 1 --max-attempts 2 --policy " +
          dir + "/grpc/retrying_service_config.json");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["metrics"]["attempts_per_client"]["mean"].get<double>(), 2.0);
  EXPECT_NE(c.err.find("retrylab: warning: " + dir +
                       "/grpc/retrying_service_config.json: --max-attempts 2 overrides "
                       "the policy's 5"),
            std::string::npos)
      << c.err;
}

TEST(PolicyCli, RefusalsAreOneLineExitTwo) {
  const auto refused = [](const std::string& args, const std::string& start) {
    const Child c = run(args);
    EXPECT_EQ(c.status, 2) << args;
    EXPECT_EQ(c.err.rfind(start, 0), 0u) << args << " -> " << c.err;
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
  };
  const std::string grpc = dir + "/grpc/retrying_service_config.json";
  const std::string envoy = dir + "/envoy/retry-previous-hosts.yaml";  // its retry_policy has no retry_on
  refused("simulate --model none --unit ms --attempt-duration 10 --clients 5 --strict --policy " + envoy,
          "retrylab: --policy " + envoy +
              ":30: static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config."
              "virtual_hosts[0].routes[0].route.retry_policy not modelled");
  refused(
      "simulate --model none --clients 5 --policy " + grpc,
      "retrylab: --policy " + grpc + ":13: methodConfig[0].retryPolicy.initialBackoff gives base in s: give --unit");
  refused("simulate --model none --clients 5 --strict", "retrylab: --strict needs --policy FILE");
  refused("simulate --model none --clients 5 --policy /nonexistent.json", "retrylab: --policy /nonexistent.json: file");
  refused("policy show --strict " + envoy, "retrylab: --policy " + envoy + ":30:");
}

TEST(PolicyCli, ShowPrintsEveryFieldWithUnitAndSource) {
  const std::string grpc = dir + "/grpc/retrying_service_config.json";
  const Child t = run("policy show " + grpc);
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("gRPC service config; helloworld.Greeter/SayHello"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("methodConfig[0].retryPolicy.maxAttempts (line 12)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("retry_on      retryable        methodConfig[0].retryPolicy.retryableStatusCodes: UNAVAILABLE"),
            std::string::npos)
      << t.out;
  EXPECT_EQ(t.out.find("not modelled"), std::string::npos) << t.out;  // every key mapped
  const Child n = run("policy show " + dir + "/envoy/route-retry-budget.yaml");
  ASSERT_EQ(n.status, 0) << n.err;
  EXPECT_EQ(n.out.find("not modelled"), std::string::npos) << n.out;  // the retry budget is mapped
  EXPECT_NE(n.out.find("static_resources.clusters[0].circuit_breakers.thresholds[0].retry_budget.budget_percent"),
            std::string::npos)
      << n.out;
  const Child j = run("policy show --format json --select backendB " + dir + "/resilience4j/application.yml");
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["selected"], "backendB");
  bool window = false;
  for (const auto& f : doc["fields"])
    if (f["field"] == "breaker_window") {
      window = true;
      EXPECT_EQ(f["value"], "10");
      EXPECT_EQ(f["unit"], "s");
    }
  EXPECT_TRUE(window);
}

// The fields the importers set beyond the presets, on cases worked by hand (every attempt fails, a
// burst of 10 clients, so every outcome and refusal is counted exactly).
TEST(PolicyCli, BucketChargeAndBreakerNumbersActAsWorkedByHand) {
  const auto metrics = [](const std::string& args) {
    const Child c =
        run("simulate --model none --strategy full --clients 10 --failure-prob 1 --runs 3 --quiet "
            "--format json " +
            args);
    EXPECT_EQ(c.status, 0) << args << ": " << c.err;
    return c.status == 0 ? nlohmann::json::parse(c.out)["metrics"] : nlohmann::json::object();
  };
  // Per failure, 4 tokens, retries while > 2: client 1's failure leaves 3 (its retry allowed), the
  // next leaves 2 (refused), then 1, 0, 0, ...; the one retry fails too and is refused: 11 attempts,
  // 10 refusals. (Per retry, the same bucket would allow 2 retries: 4 - 1 - 1 >= 2.)
  const nlohmann::json b = metrics(
      "--max-attempts 5 --budget token-bucket --bucket-charge per-failure "
      "--bucket-capacity 4 --bucket-cost 1 --bucket-timeout-cost 1 --bucket-refund 0.1 "
      "--bucket-threshold 2");
  EXPECT_EQ(b["attempts_per_client"]["mean"].get<double>(), 1.1);
  EXPECT_EQ(b["retries_denied"]["mean"].get<double>(), 10.0);
  // 10 failed calls: Hystrix needs 20 in its window to open; with 5 it opens once (at the 5th).
  const std::string one = "--max-attempts 1 --unit ms --attempt-duration 10 ";
  EXPECT_EQ(metrics(one + "--breaker hystrix")["breaker_opened"]["mean"].get<double>(), 0.0);
  EXPECT_EQ(metrics(one + "--breaker hystrix --breaker-minimum-calls 5")["breaker_opened"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(metrics(one + "--breaker resilience4j")["breaker_opened"]["mean"].get<double>(), 0.0);
  EXPECT_EQ(
      metrics(one + "--breaker resilience4j --breaker-calls 4 --breaker-minimum-calls 4")["breaker_opened"]["mean"]
          .get<double>(),
      1.0);
  for (const auto& [args, flag] :
       {std::pair{"--breaker-calls 4", "--breaker-calls"},
        std::pair{"--breaker hystrix --breaker-window 5 --breaker-calls 4", "--breaker-calls"},
        std::pair{"--bucket-charge per-failure", "--budget"}}) {
    const Child c =
        run("simulate --model none --strategy full --clients 10 --unit ms --attempt-duration 10 " + std::string(args));
    EXPECT_EQ(c.status, 2) << args;
    EXPECT_EQ(c.err.rfind("retrylab: " + std::string(flag) + " ", 0), 0u) << args << " -> " << c.err;
  }
}

TEST(PolicyCli, AnotherBudgetOrBreakerReplacesTheFilesWhole) {
  // The file's resilience4j breaker with its six numbers, then --breaker hystrix: Hystrix's own
  // numbers, none of the file's (a 100-call window would otherwise be refused with a time window).
  const Child c =
      run("simulate --model none --unit ms --attempt-duration 10 --quiet --format json --clients 10 "
          "--runs 1 --breaker hystrix --policy " +
          dir + "/resilience4j/application.yml");
  ASSERT_EQ(c.status, 0) << c.err;
  const nlohmann::json sc = nlohmann::json::parse(c.out)["scenario"];
  EXPECT_EQ(sc["breaker"], "hystrix");
  EXPECT_FALSE(sc.contains("breaker_calls"));
  EXPECT_FALSE(sc.contains("breaker_open_duration"));
  EXPECT_NE(c.err.find("--breaker hystrix overrides the policy's resilience4j (and its breaker settings with it)"),
            std::string::npos)
      << c.err;
}

namespace {

struct Scratch {
  std::string path;
  Scratch() {
    char name[] = "/tmp/retrylab-policy-cli-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~Scratch() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name, std::ios::binary) << text;
    return path + "/" + name;
  }
};

// One line on stderr starting with `prefix`, exit 2, nothing on stdout.
void expect_refused(const Child& c, const std::string& prefix, const std::string& what) {
  EXPECT_FALSE(c.timed_out) << what;
  EXPECT_EQ(c.status, 2) << what << ": " << c.err;
  EXPECT_EQ(c.err.rfind(prefix, 0), 0u) << what << ": " << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << what << ": " << c.err;
}

}  // namespace

TEST(PolicyCli, HostileFilesAreOneLineExitTwoAtEveryEntryPoint) {
  const Scratch s;
  // A 10-byte self-alias: SIGSEGV (stack overflow) in every reader before.
  const std::string sa = s.write("sa.yaml", "a: &a [*a]\n");
  const std::string deep = s.write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  for (const std::string& f : {sa, deep}) {
    const std::string where =
        f == sa ? sa + ":1: (structure) has an alias inside" : deep + ":1: (structure) nests deeper than 64 levels";
    expect_refused(run("policy show " + f), "retrylab: --policy " + where, f);
    expect_refused(run("simulate --model none --clients 1 --runs 1 --policy " + f), "retrylab: --policy " + where, f);
    expect_refused(run("policy show --format json " + f), "retrylab: --policy " + where, f);
  }
  // A FIFO no one writes to: blocked for ever before.
  const std::string fifo = s.path + "/p.yaml", fifo_csv = s.path + "/l.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(fifo_csv.c_str(), 0600), 0);
  expect_refused(run_child({"policy", "show", fifo}, 20.0), "retrylab: --policy " + fifo + ": file is a FIFO", fifo);
  expect_refused(run_child({"simulate", "--model", "none", "--clients", "1", "--policy", fifo}, 20.0),
                 "retrylab: --policy " + fifo + ": file is a FIFO", fifo);
  expect_refused(
      run_child({"simulate", "--model", "none", "--clients", "1", "--horizon", "10", "--load-profile", fifo_csv}, 20.0),
      "retrylab: --load-profile file " + fifo_csv + " is a FIFO", fifo_csv);
  // Non-UTF-8: exit 3 (json type_error 316) for --format json before.
  const std::string ff = s.write("ff.yaml", "a: 1\nb: \xff\n");
  expect_refused(run("policy show --format json " + ff), "retrylab: --policy " + ff + ":2: (encoding) is not UTF-8",
                 ff);
}

TEST(PolicyCli, RetrylabTomlKeyInTheWrongTableIsRefused) {
  const Scratch s;
  const std::string f = s.write("p.toml", "[client]\nbase = 5\n");  // base is a [backoff] field: it won silently
  expect_refused(run("policy show " + f),
                 "retrylab: --policy " + f + ":2: client.base is a field of [backoff], not of [client]", f);
}

TEST(PolicyCli, ShowEscapesControlBytesFromTheFile) {
  const Scratch s;
  // An Envoy key with an escape sequence that clears the screen: printed raw before.
  const std::string f = s.write("esc.yaml", "retry_policy:\n  num_retries: 2\n  \"\\e[2J\\e[H\": 1\n");
  const Child c = run("policy show " + f);
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out.find('\x1b'), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("\\x1B[2J"), std::string::npos) << c.out;
}

// A rule between fields (cap >= base) broken by the file's own numbers named --cap, a flag never
// typed: it names the file, the line and the key.
TEST(PolicyCli, AFilesFieldIsNamedByItsKeyNotAFlag) {
  const Scratch s;
  const std::string f = s.write("p.toml", "[backoff]\nstrategy = \"full\"\nbase = 10\ncap = 5\n");
  expect_refused(run("simulate --model collision --clients 5 --runs 1 --policy " + f),
                 "retrylab: --policy " + f + ":4: backoff.cap must be >= base", f);
  // Given as a flag, the flag is named.
  expect_refused(run("simulate --model collision --clients 5 --runs 1 --cap 5 --policy " + f),
                 "retrylab: --cap must be >= base", f);
}

TEST(PolicyCli, GrpcMethodTimeoutCancelsAtTheDeadline) {
  // A gRPC method with a 5 s timeout and the retrying example's policy, 500 requests/s against one
  // 1 ms slot (1,000/s) with a queue, a spike to 2,000/s in [10 s, 20 s). The timeout is imported as a
  // deadline that cancels: no request is answered after 5 s (p99 at most 5,000 ms), and the requests
  // it ends are counted lost. Without the cancellation the queue built in the spike answers up to
  // ~10 s late and none is lost (p99 9.8 s in the same runs).
  const Scratch scratch;
  const std::string f = scratch.write("grpc.json", R"({"methodConfig": [{"name": [{"service": "a.B"}],
    "timeout": "5s", "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.5s", "maxBackoff": "30s",
    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
  const std::string args =
      "simulate --model none --unit ms --attempt-duration 1 --limit 1 --overflow queue --load-profile "
      "step:0:0.5,10000:2,20000:0.5 --horizon 60000 --collapse 1000000 --runs 2 --quiet --format json --policy " +
      f;
  const Child on = run(args);
  ASSERT_EQ(on.status, 0) << on.err;
  const nlohmann::json j = nlohmann::json::parse(on.out);
  EXPECT_EQ(j["scenario"]["deadline_cancel"].get<std::string>(), "on");
  EXPECT_LE(mean(j, "latency_p99"), 5000.0);
  EXPECT_GT(mean(j, "deadline_cancelled"), 1000.0);
  EXPECT_EQ(mean(j, "lost"), mean(j, "deadline_cancelled") + mean(j, "deadline_lost"));
  const Child off = run(args + " --deadline-cancel off");
  ASSERT_EQ(off.status, 0) << off.err;
  const nlohmann::json k = nlohmann::json::parse(off.out);
  EXPECT_GT(mean(k, "latency_p99"), 9000.0);
  EXPECT_EQ(mean(k, "lost"), 0.0);
  // A trace cannot hold a cancelled attempt (a row is an attempt's end): refused, not written short.
  const Child traced =
      run("simulate --model none --unit ms --attempt-duration 1 --rate 0.5 --horizon 100 --runs 1 --trace " +
          scratch.path + "/t.csv --policy " + f);
  EXPECT_EQ(traced.status, 2);
  EXPECT_EQ(traced.err.rfind("retrylab: --trace cannot be combined with --deadline-cancel on", 0), 0U) << traced.err;
  EXPECT_FALSE(std::filesystem::exists(scratch.path + "/t.csv"));
  // And check refuses a trace whose header says deadline_cancel=on (written by another tool, or by an
  // earlier build), as it refuses a hedged one, naming the header's line.
  const std::string t = scratch.write(
      "t2.csv",
      "# retrylab-trace version=2\n# model=none\n# strategy=full\n# base=1\n# cap=1000\n# window=0\n"
      "# clients=0\n# rate=1.2\n# horizon=20\n# warmup=0\n# collapse=3000\n# retries=on\n# limit=1\n"
      "# overflow=queue\n# max_attempts=3\n# deadline=5\n# deadline_cancel=on\n# time_unit=attempt-duration\n"
      "# seed=1\n# runs=1\n# order=end\nrun,client,arrival,start,end,outcome,retry,sleep,burst\n"
      "0,0,0.5,0.5,1.5,success,0,,0\n");
  const Child checked = run("check " + t);
  EXPECT_EQ(checked.status, 2) << checked.out;
  EXPECT_NE(checked.err.find("line 17: deadline_cancel is on"), std::string::npos) << checked.err;
}

TEST(PolicyCli, GrpcHedgingWithAMethodTimeoutCancelsEveryCopy) {
  // A hedged gRPC method with a 5 s timeout (three attempts 200 ms apart) in the same spike: the
  // engine takes the combination (the deadline cancels every copy of the request; the first answer
  // cancels the others, a running handler finishing as gRPC's does), so no request is answered
  // after 5 s, the requests the deadline ends are counted lost, and copies were sent and cancelled.
  const Scratch scratch;
  const std::string f = scratch.write("hedged.json", R"({"methodConfig": [{"name": [{"service": "a.B"}],
    "timeout": "5s", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.2s"}}]})");
  const Child c =
      run("simulate --model none --unit ms --attempt-duration 1 --limit 1 --overflow queue --load-profile "
          "step:0:0.5,10000:2,20000:0.5 --horizon 60000 --collapse 1000000 --runs 2 --quiet --format json --policy " +
          f);
  ASSERT_EQ(c.status, 0) << c.err;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["scenario"]["deadline_cancel"].get<std::string>(), "on");
  EXPECT_EQ(j["scenario"]["hedge_in_service"].get<std::string>(), "finish");
  EXPECT_LE(mean(j, "latency_p99"), 5000.0);
  EXPECT_GT(mean(j, "deadline_cancelled"), 0.0);
  EXPECT_EQ(mean(j, "lost"), mean(j, "deadline_cancelled") + mean(j, "deadline_lost"));
  EXPECT_GT(mean(j, "hedges"), 0.0);
  EXPECT_GT(mean(j, "hedges_cancelled"), 0.0);
  EXPECT_GT(mean(j, "cancelled_queued"), 0.0);
}
