#include "validation/trace/server_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string_view>

#include "montecarlo/controls.hpp"
#include "montecarlo/fields.hpp"

namespace retrylab::validation::trace {

namespace {

montecarlo::Scenario without_server(const montecarlo::Scenario& s) { return montecarlo::without_server_options(s); }

// The engine runs a load profile on its full tier, but for the rules it is traffic (the arrivals'
// law), not a server option: s with server options, the profile left out.
bool server_options(montecarlo::Scenario s) {
  s.traffic.load_profile = {};
  return montecarlo::has_server_features(s);
}

// The server options as canonical() writes them: "rows=4 lock=on" (canonical() ends with the load
// profile, which is traffic: left out of both).
std::string fields_of(montecarlo::Scenario s) {
  s.traffic.load_profile = {};
  const std::string all = montecarlo::canonical(s), plain = montecarlo::canonical(without_server(s));
  return all.size() > plain.size() + 1 ? all.substr(plain.size() + 1) : std::string();
}

}  // namespace

ServerRules::ServerRules(const montecarlo::Scenario& s) {
  durations(s);
  model_rules(s);
  client_rules(s);
}

void ServerRules::durations(const montecarlo::Scenario& s) {
  using montecarlo::DelayDist;
  using montecarlo::Overflow;
  using montecarlo::ServiceDist;
  const montecarlo::Scenario& o = s;
  any = server_options(s);
  const bool limited = o.admission.limit > 0 || o.admission.aimd;
  rejects = limited && o.admission.overflow == Overflow::reject;
  const bool queues = limited && o.admission.overflow == Overflow::queue;
  instant_reject = rejects && o.admission.reject_cost == 0.0 && o.resource.delay == 0.0;
  deterministic = o.resource.service == ServiceDist::deterministic;
  const double d = o.resource.delay_dist == DelayDist::fixed ? o.resource.delay : 0.0;  // the least one-way delay
  timeout = o.client.timeout;
  max_attempts = o.client.max_attempts;
  // Durations: a served attempt takes 2d + its service (>= 1 when deterministic: rate <= 1); a
  // rejection 2d + reject_cost (its work, at rate <= 1); a timed-out one exactly the timeout.
  const double served = 2 * d + (deterministic ? 1.0 : 0.0);
  success_min = served;
  failure_min =
      std::min(timeout, rejects ? 2 * d + (deterministic ? std::min(1.0, o.admission.reject_cost) : 0.0) : served);
  // collision/free serve every attempt at rate 1: with deterministic service, fixed delay and no
  // waiting (lock, queue) the durations take known values.
  exact = (s.model == Model::collision || s.model == Model::free) && deterministic &&
          o.resource.delay_dist == DelayDist::fixed && !o.resource.lock && !queues;
  if (exact) {
    success_value = 1 + 2 * d;
    failure_values.push_back(std::min(1 + 2 * d, timeout));
    if (rejects) failure_values.push_back(std::min(2 * d + o.admission.reject_cost, timeout));
    if (std::isfinite(timeout)) failure_values.push_back(timeout);
    max_duration = *std::max_element(failure_values.begin(), failure_values.end());
  }
  if (!exact && success_min <= 0 && failure_min <= 0)
    duration_na =
        fmt::format("{} service{}: no positive least duration to check", to_string(o.resource.service),
                    o.resource.delay > 0 ? fmt::format(" and {} network delay", to_string(o.resource.delay_dist)) : "");
}

void ServerRules::model_rules(const montecarlo::Scenario& s) {
  using montecarlo::DelayDist;
  const montecarlo::Scenario& o = s;
  const bool limited = o.admission.limit > 0 || o.admission.aimd;
  // collision: a success overlaps no other attempt, in service time; rows show it only when a
  // row's interval is its service interval and a conflict can be with any attempt.
  if (o.resource.rows > 1)
    overlap_na = fmt::format("conflicts are per row (rows={}) and rows do not record their row", o.resource.rows);
  else if (o.resource.delay > 0)
    overlap_na = "with network delay a row's interval (send to receipt) is not its service interval";
  else if (o.resource.lock)
    overlap_na = "with the lock an attempt waits inside its row's interval, then runs alone";
  else if (limited)
    overlap_na = "a rejected or queued attempt's interval is not a service interval";
  // free/shared: successful commits at least 1 apart on a row (deterministic service); a fixed
  // delay shifts every end equally.
  if (o.resource.rows > 1)
    spacing_na =
        fmt::format("commits are spaced per row only (rows={}) and rows do not record their row", o.resource.rows);
  else if (!deterministic)
    spacing_na = fmt::format("{} service: an attempt can commit less than 1 after the previous commit",
                             to_string(o.resource.service));
  else if (o.resource.delay > 0 && o.resource.delay_dist != DelayDist::fixed)
    spacing_na = "exponential network delay: responses reach clients in other order and spacing than the commits";
  // free/shared: a failure saw a commit during its service (any row's commit: weaker, still true
  // with rows); ps never fails. Rejections and timeouts fail without one.
  const bool injects = o.failures.failure_prob > 0 || o.failures.outage_end > 0;
  if (injects)
    idle_na = "injected failures (failure_prob, outage) fail attempts with no commit";
  else if (rejects)
    idle_na = "a rejected attempt fails with no commit (a limit with overflow=reject)";
  else if (std::isfinite(timeout))
    idle_na = "an attempt its client stopped waiting for (timeout) fails with no commit";
  else if (o.resource.delay > 0)
    idle_na = "with network delay the commit that dooms an attempt is not inside its row's interval";
  // collision: a failed attempt overlapped another. Injected failures and timeouts fail attempts
  // that overlap nothing; with random service a failure's partner can end arbitrarily late.
  if (!overlap_na.empty())
    lonely_na = overlap_na;
  else if (injects)
    lonely_na = "injected failures (failure_prob, outage) fail attempts that overlap nothing";
  else if (std::isfinite(timeout))
    lonely_na = "an attempt its client stopped waiting for (timeout) fails without an overlap";
  else if (!exact)
    lonely_na = fmt::format("{} service: the attempt a failure overlapped can end at any later time",
                            to_string(o.resource.service));
  // free/shared: a success saw no commit during its service; the row must be the service interval.
  if (o.resource.rows > 1)
    commit_na = spacing_na;
  else if (o.resource.delay > 0)
    commit_na = "with network delay a row's interval (send to receipt) is not its service interval";
  else if (o.resource.lock)
    commit_na = "with the lock an attempt waits inside its row's interval, then runs alone";
  else if (limited && o.admission.overflow == montecarlo::Overflow::queue)
    commit_na = "a queued attempt's interval is not its service interval";
  // shared/ps: n attempts in flight each served at rate 1/n, and FIFO. Rows only keep that (one
  // server for all rows); any other option changes the service or the row's interval.
  montecarlo::Scenario rows_only = s;
  rows_only.resource.rows = 1;
  if (any && server_options(rows_only))
    service_na = fmt::format("server options ({}) change a row's interval or its service", fields_of(rows_only));
  // The arrival statistics need every arrival before a known time to have its row: attempts of
  // exact length (collision/free) or processor sharing's FIFO order; no server options.
  if (any)
    arrivals_na = fmt::format("server options ({}): an arrival's first row can come arbitrarily late", fields_of(s));
  // The lock: an admitted attempt waits, then runs alone on its row, so it cannot fail; only a
  // rejection or a timeout can.
  lock = o.resource.lock;
  if (o.resource.lock && injects)
    lock_na = "injected failures (failure_prob, outage) fail attempts under the lock";
  else if (o.resource.lock && rejects)
    lock_na = "a rejected attempt fails without reaching the lock";
  else if (o.resource.lock && std::isfinite(timeout))
    lock_na = "an attempt its client stopped waiting for (timeout) fails";
}

void ServerRules::client_rules(const montecarlo::Scenario& s) {
  const montecarlo::Scenario& o = s;
  // Sleeps: Retry-After can only lengthen one (sleep = max(backoff, Retry-After)); a mixed
  // population draws from one of two strategies.
  retry_after_max = o.admission.retry_after > 0 ? (o.admission.retry_after_rule == montecarlo::RetryAfterRule::fixed
                                                       ? o.admission.retry_after
                                                       : 2 * o.admission.retry_after)
                                                : 0.0;
  retry_after_fixed = o.admission.retry_after_rule == montecarlo::RetryAfterRule::fixed;
  // Client-side controls: a call the breaker or the throttle rejects fails unsent (no row), and a
  // budget or a deadline ends a request before its retry limit.
  const bool local = o.client.breaker.on() ||
                     std::string_view(montecarlo::budget_preset_names[o.client.budget.preset]) == "sre-adaptive";
  if (local)
    sequence_na = "calls rejected locally (breaker, adaptive throttling) fail unsent: their retries leave no row";
  if (o.client.budget.on() || std::isfinite(o.client.deadline) || local)
    vanish_na = "a retry budget, a deadline or a local rejection can end a request before its retry limit, unrecorded";
  else if (o.client.quota > 0 || o.client.retries_in_flight > 0 || o.client.retries_in_flight_percent > 0)
    vanish_na = "a retry quota or a limit on retries in flight can end a request before its retry limit, unrecorded";
  // Failure kinds: which the client retries, which the declared sources can produce.
  retried_kinds = montecarlo::retry_on_mask(o.client.retry_on);
  possible_text = "retryable";
  const auto source = [&](montecarlo::FailureKind k, bool on, const char* field) {
    if (!on || k == montecarlo::FailureKind::retryable) return;
    possible_kinds |= 1U << static_cast<unsigned>(k);
    possible_text += fmt::format(", {} ({})", montecarlo::failure_kind_names[static_cast<int>(k)], field);
  };
  source(o.failures.failure_kind, o.failures.failure_prob > 0, "failure_kind");
  source(o.failures.outage_kind, o.failures.outage_end > o.failures.outage_start && o.failures.outage_fraction > 0,
         "outage_kind");
  source(o.admission.reject_kind, rejects, "reject_kind");
  if (o.client.mix > 0) strategies_mix = true;
  if (o.client.mix > 0)
    ks_na = fmt::format("mix={}: the sleeps are a mixture of two strategies' laws ({} and {})", o.client.mix,
                        to_string(s.backoff.strategy), to_string(o.client.mix_backoff.strategy));
  else if (o.admission.retry_after > 0)
    ks_na = "Retry-After lengthens some sleeps (sleep = max(backoff, Retry-After))";
  // Closed forms: goodput with rows only (analytic/rows.hpp); none with any other option.
  montecarlo::Scenario plain = s;
  plain.resource.rows = 1;
  only_rows = any && !server_options(plain);
  const std::string listed = fields_of(s);
  fields = listed.empty() ? listed : " " + listed;
}

}  // namespace retrylab::validation::trace
