#pragma once
// Scenario: everything that decides what one simulated run does (docs/models.md §1–§4), and nothing
// that does not (seed, run count and thread count live in RunPlan). Its canonical description is a
// pure function of its fields; the RNG key of a run is (seed, stable_hash(canonical), run index)
// (docs/models.md §6), so adding runs or threads never changes an existing run.
// It is grouped (traffic, backoff, resource, admission, client policy, injected failures,
// measurement); every field is a row of the field table (montecarlo/fields.hpp).
// Invariants (check_scenario): backoff valid (analytic/strategy.hpp); 0 <= clients <= max_clients;
// rate >= 0 finite; clients > 0 or rate > 0; horizon > 0 finite (required when rate > 0; default 1e7
// for pure bursts); 0 <= warmup < horizon; 1 <= collapse <= max_collapse; and every other field's
// range, stated beside it. Server-side mechanisms and lifted limits are off by default. canonical() appends a field
// only when it differs from its default, so every scenario written before them keeps its canonical
// string, RNG key and results; a scenario that uses none of them runs the event loop's plain tier
// (has_server_features() is false), one that uses any its full tier (montecarlo/engine.hpp).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"
#include "montecarlo/components/breaker_params.hpp"
#include "montecarlo/components/budget_params.hpp"
#include "montecarlo/components/hedge_params.hpp"
#include "montecarlo/hash.hpp"
#include "montecarlo/profile.hpp"

namespace retrylab::montecarlo {

inline constexpr double default_burst_horizon = 1e7;
inline constexpr std::int64_t max_clients = 100'000'000;     // burst size N
inline constexpr std::int64_t max_collapse = 1'000'000'000;  // K (clients waiting at once)

// Attempt service requirement (mean 1 = one attempt-duration): deterministic 1, exponential(1), or
// lognormal with mean 1 and coefficient of variation service_cv (σ² = ln(1+cv²), μ = −σ²/2); or
// round_trip: two one-way network legs of the delay distribution (montecarlo/legs.hpp), the service
// of a read–modify–write across the network (Brooker's read reply and write request), whose mean is
// that of two legs, not 1: with it the attempt-duration is only the unit of time.
enum class ServiceDist { deterministic, exponential, lognormal, round_trip };
// One-way network delay, each way (client → server, server → client), drawn independently per leg
// (montecarlo/legs.hpp): fixed `delay`, exponential with mean `delay`, or normal: |Normal(delay,
// delay_sd)| (folded at 0; delay_sd = 0 gives fixed legs).
enum class DelayDist { fixed, exponential, normal };
// An attempt arriving when the concurrency limit is reached: rejected at once, or queued (FIFO).
enum class Overflow { reject, queue };
// The Retry-After a rejection carries: exactly retry_after, or uniform(0, 2·retry_after) (mean
// retry_after: a jittered hint, so honouring clients do not come back together).
enum class RetryAfterRule { fixed, uniform };
// Idempotency keys: none and per_attempt (a fresh key per attempt, which the server cannot match)
// apply every successful attempt's effect, so a request can take effect several times; fixed (one
// key chosen before the first attempt) applies only the first, later ones are deduplicated.
enum class Idempotency { none, per_attempt, fixed };
// What a failure tells its client (its status, in retrylab's terms): retryable (gRPC UNAVAILABLE,
// HTTP 503, a connection reset), throttled (RESOURCE_EXHAUSTED, 429, ThrottlingException) or fatal
// (a status no client should retry: INVALID_ARGUMENT, 400). Injected failures, the outage and the
// server's rejections each produce one kind (default retryable); a client retries the kinds its
// retry_on lists (components/retry_on.hpp).
enum class FailureKind : std::uint8_t { retryable, throttled, fatal };
// A cancelled attempt already in service, finished or abandoned: InService, beside hedging's
// parameters (components/hedge_params.hpp).

// Each choice's names in enum order: its field's choices, to_string and parse_* (one table each).
inline constexpr std::string_view service_names[] = {"deterministic", "exponential", "lognormal", "round-trip"};
inline constexpr std::string_view delay_names[] = {"fixed", "exponential", "normal"};
inline constexpr std::string_view overflow_names[] = {"reject", "queue"};
inline constexpr std::string_view retry_after_names[] = {"fixed", "uniform"};
inline constexpr std::string_view idempotency_names[] = {"none", "per-attempt", "fixed"};
inline constexpr std::string_view failure_kind_names[] = {"retryable", "throttled", "fatal"};
// Replicas (components/replicas.hpp): how the load balancer picks a replica for an attempt, and
// which replicas a request's later attempts (retries, hedges) may go to.
enum class Balancer : std::uint8_t { random, round_robin, least_outstanding, p2c };
enum class ReplicaRetry : std::uint8_t { any, other };
inline constexpr std::string_view balancer_names[] = {"random", "round-robin", "least-outstanding", "p2c"};
inline constexpr std::string_view replica_retry_names[] = {"any", "other"};
inline constexpr std::int64_t max_replicas = 64;  // a request's replicas tried: one bit each
// The kinds a client retries (ClientPolicy::retry_on, an index here): every failure (as before kinds
// existed), or a list of kinds; retry_on_mask gives bit k for FailureKind k.
inline constexpr std::string_view retry_on_names[] = {"all", "retryable", "throttled", "retryable+throttled", "none"};
constexpr unsigned retry_on_mask(int retry_on) noexcept {
  constexpr unsigned masks[] = {7U, 1U, 2U, 3U, 0U};
  return masks[retry_on];
}
inline constexpr std::string_view strategy_names[] = {"none",         "nojitter", "full",      "equal",
                                                      "decorrelated", "window",   "memoryless"};

std::string_view to_string(ServiceDist d) noexcept;
std::string_view to_string(DelayDist d) noexcept;
std::string_view to_string(Overflow o) noexcept;
std::string_view to_string(RetryAfterRule r) noexcept;
std::optional<ServiceDist> parse_service_dist(std::string_view name) noexcept;
std::optional<DelayDist> parse_delay_dist(std::string_view name) noexcept;
std::optional<Overflow> parse_overflow(std::string_view name) noexcept;
std::optional<RetryAfterRule> parse_retry_after_rule(std::string_view name) noexcept;

inline constexpr std::int64_t max_rows = 1'000'000;
inline constexpr std::int64_t max_limit = 1'000'000'000;
inline constexpr double max_service_cv = 100.0;

// AIMD concurrency limit with the defaults of Netflix concurrency-limits' AIMDLimit.Builder
// (concurrency-limits-core/.../limit/AIMDLimit.java): minLimit 20, initialLimit 20, maxLimit 200,
// backoffRatio 0.9 (allowed [0.5, 1)), timeout 5 s. Per sample (an admitted attempt ending):
// drop (the attempt failed) or rtt > timeout → limit = floor(limit·backoff); else if
// 2·inflight >= limit → limit + 1; then clamp to [min, max]. Netflix's 5 s has no counterpart in
// attempt-durations, so timeout defaults to +inf (never a drop by time); set it explicitly.
struct Aimd {
  std::int64_t initial = 20;  // 1 <= min <= initial <= max <= max_limit
  std::int64_t min = 20;
  std::int64_t max = 200;
  double backoff = 0.9;                                      // [0.5, 1)
  double timeout = std::numeric_limits<double>::infinity();  // > 0 (+inf = none)
};

// The scenario's groups (docs/scenario-fields.md lists their fields). Every default reproduces the
// original model; each range is stated beside its field and checked by check_scenario.

// Traffic: who arrives, when.
struct Traffic {
  std::int64_t clients = 0;  // burst of N clients at t = 0
  double rate = 0.0;         // steady Poisson arrivals on [0, horizon)
  // Steady arrivals whose rate changes over time (montecarlo/profile.hpp): it replaces rate (then
  // 0), needs a horizon; a text field of the table (components/load_profile.hpp).
  LoadProfile load_profile{};
};

// The resource: its rows, its service times, the network between it and the clients.
struct Resource {
  std::int64_t rows = 1;  // M rows, each attempt on one uniformly at random; [1, max_rows]
  ServiceDist service = ServiceDist::deterministic;
  double service_cv = 0.0;  // lognormal only: (0, max_service_cv]; 0 otherwise
  double delay = 0.0;       // one-way network delay (mean), finite >= 0
  DelayDist delay_dist = DelayDist::fixed;
  double delay_sd = 0.0;  // normal delay only: sd of each leg, finite >= 0 (0 = every leg exactly delay)
  bool lock = false;      // a FIFO lock per row: attempts wait, then run alone
};

// Admission control at the server.
struct Admission {
  std::int64_t limit = 0;                // at most `limit` attempts admitted at once; 0 = none
  Overflow overflow = Overflow::reject;  // queue needs a limit (fixed or aimd)
  double reject_cost = 0.0;              // [0, 1] of an attempt's mean work; needs reject + a limit
  double retry_after = 0.0;              // Retry-After on rejections, finite >= 0 (0 = none sent)
  RetryAfterRule retry_after_rule = RetryAfterRule::fixed;
  bool aimd = false;  // adaptive limit (then `limit` must be 0)
  Aimd aimd_params{};
  FailureKind reject_kind = FailureKind::retryable;  // the kind of failure a rejection is (503 or 429)
};

// The client policy: what a client does around its attempts (collapse can then mean lost requests).
// A client stops waiting for an attempt `timeout` after sending it: the attempt counts as failed
// (backoff, retry); the server still does its work and its late outcome is discarded. A client makes
// at most `max_attempts` attempts; when the last fails or times out it gives up: the request is lost
// (it leaves; a burst client that gives up counts toward `drained`, read it with `lost`).
struct ClientPolicy {
  bool retries = true;              // false: each client makes exactly one attempt (validation)
  double ignore_retry_after = 0.0;  // fraction of clients that ignore Retry-After, [0, 1]
  double mix = 0.0;                 // fraction of clients on mix_backoff, [0, 1]
  Backoff mix_backoff{Strategy::none, 1.0, 1000.0, 0.0};
  double timeout = std::numeric_limits<double>::infinity();  // > 0 (+inf = none); needs retries on
  std::int64_t max_attempts = 0;                             // [1, max_limit], 0 = unlimited; needs retries on
  // A request's deadline: a client starts no attempt later than arrival + deadline; when its backoff
  // would wake it later, it gives up at once (lost). +inf = none.
  double deadline = std::numeric_limits<double>::infinity();
  // A retry budget and a circuit breaker (montecarlo/controls.hpp): each component's own parameters
  // (components/budget_params.hpp, breaker_params.hpp: a preset, its scope, its numbers). Their
  // windows are in ms: attempt_ms (milliseconds per attempt-duration) must be > 0 for the presets
  // that keep time (finagle, sre-adaptive, hystrix, resilience4j); the CLI sets it from
  // --unit/--attempt-duration.
  BudgetParams budget{};
  BreakerParams breaker{};
  double attempt_ms = 0.0;
  // Idempotency keys (effects at the server: what a request did there, as opposed to what its
  // client saw), counted when a client can retry an attempt that still succeeds (a timeout).
  // duplicate_effects is Σ max(0, effects − 1) over requests; hidden_effects counts requests lost for
  // the client that nevertheless took effect.
  Idempotency idempotency = Idempotency::none;
  // A fixed retry quota (components/quota.hpp): at most `quota` retries per quota_window, for every
  // client together. 0 = none.
  std::int64_t quota = 0;
  double quota_window = 1.0;
  // Hedged requests (components/hedge.hpp, gRPC's hedgingPolicy): the component's own parameters
  // (components/hedge_params.hpp: attempts, delay, cancel, percentile, in_service).
  HedgeParams hedge{};
  // The failure kinds a client retries (index into retry_on_names; 0 = all): a failure of another
  // kind ends its request (lost).
  int retry_on = 0;
  // Retries in flight (components/retries_in_flight.hpp, Envoy's circuit-breaker retries): a retry
  // holds a place from when it is scheduled (its sleep) until its attempt's outcome; a retry over the
  // limit is not sent (its request is lost). Without a budget (retries_in_flight_percent 0) the limit
  // is retries_in_flight (Envoy's max_retries; 0 = no limit); with one it is
  // max(retries_in_flight, floor(percent/100 × attempts in flight)) (Envoy's retry_budget: its
  // min_retry_concurrency and budget_percent).
  std::int64_t retries_in_flight = 0;      // [0, max_limit]
  double retries_in_flight_percent = 0.0;  // [0, 100]
  // AWS adaptive mode's client-side rate limiter (components/adaptive_rate.hpp): every attempt waits
  // for a token of one bucket for every client, its rate following CUBIC, cut on throttling errors.
  bool adaptive_rate = false;
  // Deadlines that cancel (components/deadline_cancel.hpp; gRPC's deadline, Envoy's route timeout):
  // on, at arrival + deadline the request ends (lost) and its attempt in flight is cancelled: queued
  // at the server, it leaves the queue; in service, it is finished or abandoned (cancel_in_service).
  bool deadline_cancel = false;
  InService cancel_in_service = InService::finish;
};

// Injected failures: an attempt the server completes that would succeed fails instead, with
// probability failure_prob, or outage_fraction inside the outage window [outage_start, outage_end).
// A failed attempt commits nothing (it dooms no other).
struct Failures {
  double failure_prob = 0.0;
  double outage_start = 0.0, outage_end = 0.0, outage_fraction = 1.0;
  // The kind of failure each produces (FailureKind): outside the outage, and inside it.
  FailureKind failure_kind = FailureKind::retryable;
  FailureKind outage_kind = FailureKind::retryable;
};

// Replicas (components/replicas.hpp): the dependency is `replicas` independent copies of the server,
// each with its own admission (limit, overflow queue) and its own attempts in service, behind one
// load balancer. 1 = one server (every earlier scenario). outage_replica: which replica the outage
// window hits (0 = every one, i = replica i of 1..replicas).
struct ReplicaSet {
  std::int64_t count = 1;  // [1, max_replicas]
  Balancer balancer = Balancer::random;
  ReplicaRetry retry = ReplicaRetry::any;  // other: a retry or hedge goes to a replica its request has not tried
  std::int64_t outage_replica = 0;         // [0, count]; needs an outage
};

// What is measured, and when a run stops.
struct Measurement {
  double horizon = 0.0;          // 0 = unset: default_burst_horizon for pure bursts, an error with steady traffic
  double warmup = 0.0;           // rates are measured over [warmup, stop time)
  std::int64_t collapse = 3000;  // K: the run collapses when this many clients wait at once
  // Recovery after the outage: attempts the server completes (rejections when they are rejected)
  // after outage_end are binned in windows of this length; recovery_time is the end of the first
  // window whose success fraction reaches 95% of that of the attempts completed before
  // outage_start (1 − failure_prob if none), minus outage_end. 0 = not measured.
  double recovery_window = 0.0;
  // Settle: arrivals stop at the horizon, but the run goes on until every client has left and every
  // attempt has ended at the server (so every request resolves and every effect is counted; no early
  // stop when a burst has drained; needs max_attempts or a deadline). Without it the run stops when
  // the last client leaves (a pure burst), so attempts still at the server then are not counted.
  bool settle = false;
};

// True when the scenario uses a control whose windows keep time (it needs attempt_ms > 0): a budget
// or breaker that keeps time, or the adaptive rate limiter.
bool needs_clock(const ClientPolicy& c) noexcept;

struct Scenario {
  Model model = Model::collision;
  Backoff backoff{};  // strategy, base, cap (+inf = none), window, multiplier
  Traffic traffic{};
  Resource resource{};
  Admission admission{};
  ClientPolicy client{};
  Failures failures{};
  Measurement measurement{};
  ReplicaSet replicas{};
};

// The rate steady arrivals are drawn at: rate, or a load profile's maximum (its candidates,
// thinned by the profile's component, components/load_profile.hpp).
inline double candidate_rate(const Scenario& s) noexcept {
  return s.traffic.load_profile.set() ? s.traffic.load_profile.max_rate() : s.traffic.rate;
}

// s with every server option at its default: what the original event loop has (the model, the
// backoff with its multiplier, the traffic, horizon, warmup and collapse, retries) kept, every other
// group's field reset.
Scenario without_server_options(const Scenario& s);

// True when any server option differs from its default (the scenario needs the full tier).
bool has_server_features(const Scenario& s) noexcept;

// Throws InputError naming the field and the allowed range: each field against its range in the
// field table, then the rules between fields.
void check_scenario(const Scenario& s);

// The horizon actually used (applies the pure-burst default).
double effective_horizon(const Scenario& s);

// Canonical one-line description, e.g.
// "model=free strategy=full base=1 cap=1000 window=0 clients=100 rate=0 horizon=10000000 warmup=0 collapse=3000
// retries=on" Written from the field table (montecarlo/fields.hpp): the base fields in fixed order, shortest round-trip
// decimals; every later field only when it differs from its default, e.g. " rows=4 lock=on". The input to the RNG key
// hash.
std::string canonical(const Scenario& s);

// 64-bit FNV-1a of canonical(s): stable across machines, compilers and runs.
std::uint64_t stable_hash(const Scenario& s);

// fnv1a64(text), the 64-bit FNV-1a of any text: montecarlo/hash.hpp.

// How many runs, from which seed, on how many threads (threads never change a result).
struct Pulse;  // montecarlo/pulse.hpp

struct RunPlan {
  std::int64_t runs = 20;
  std::uint64_t seed = 1;
  int threads = 0;  // 0 = all cores
  // Run scenarios without server options on the full tier too: the same counts and times as the
  // plain tier (tested), work_done equal to rounding, and the metrics only the full tier tracks
  // (latency_p50/p99, queue_wait) filled in, so baselines compare with mechanisms.
  bool server_engine = false;
  // Where the runs publish their progress for a display (montecarlo/pulse.hpp), or null. Never
  // changes a result.
  Pulse* pulse = nullptr;
};

void check_run_plan(const RunPlan& p);

}  // namespace retrylab::montecarlo
