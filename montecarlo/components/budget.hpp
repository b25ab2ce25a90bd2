#pragma once
// A retry budget (montecarlo/controls.hpp: token buckets of AWS and gRPC, Finagle's, adaptive
// throttling): one shared by every client of the run, or (budget_scope client) one per client, fresh
// when the client arrives. It hears of its clients' arrivals and of every attempt's outcome (a
// timeout as a failure), and is asked, as the last link of the client policy chain, whether a
// failed request may retry: a refusal ends the request (lost). Adaptive
// throttling can also reject a call locally before it is sent (its draws: the throttle stream).
// It also throttles hedges (the decision's hedge step; hedging takes only budgets whose asking is free).
// Its clock is in ms (attempt_ms per attempt-duration). Metrics: retries_denied, throttled.
#include <cstdint>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/scoped.hpp"

namespace retrylab::montecarlo::detail {

class Budget : public Component {
 public:
  struct JobState {
    double paid = 0.0;  // what the budget took for this retry
  };
  struct ClientState {
    double paid = 0.0;  // what it took for the client's pending retry (handed back on success)
  };
  // Its parameters: a value in the scenario's client policy (components/budget_params.hpp), each
  // a row of the field table (montecarlo/fields.hpp).
  using Params = BudgetParams;
  static constexpr std::array fields{
      Field{
          .name = "budget",
          .group = FieldGroup::client,
          .rank = 430,
          .kind = FieldKind::choice,
          .choices = budget_preset_names,
          .meaning = "retry budget of every client (preset of its library): a retry it refuses ends the request (lost)",
          .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::preset>()},
      Field{.name = "bucket_capacity",
            .group = FieldGroup::client,
            .rank = 480,
            .kind = FieldKind::number,
            .hi = 1e12,
            .lo_open = true,
            .meaning = "token-bucket budget: tokens, initial and most (budget = token-bucket)",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::capacity>()},
      Field{.name = "bucket_cost",
            .group = FieldGroup::client,
            .rank = 490,
            .kind = FieldKind::number,
            .hi = 1e12,
            .lo_open = true,
            .meaning = "token-bucket budget: tokens a retry takes",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::cost>()},
      Field{.name = "bucket_timeout_cost",
            .group = FieldGroup::client,
            .rank = 500,
            .kind = FieldKind::number,
            .hi = 1e12,
            .lo_open = true,
            .meaning = "token-bucket budget: tokens a retry after a timeout takes",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::timeout_cost>()},
      Field{.name = "bucket_refund",
            .group = FieldGroup::client,
            .rank = 510,
            .kind = FieldKind::number,
            .hi = 1e12,
            .meaning = "token-bucket budget: tokens a success returns",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::refund>()},
      Field{.name = "bucket_threshold",
            .group = FieldGroup::client,
            .rank = 520,
            .kind = FieldKind::number,
            .hi = 1e12,
            .meaning = "token-bucket budget: a retry is allowed only while the tokens stay >= this (< bucket_capacity)",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::threshold>()},
      Field{.name = "budget_scope",
            .group = FieldGroup::client,
            .rank = 550,
            .kind = FieldKind::choice,
            .choices = scope_names,
            .meaning = "whose the budget is: one shared by every client, or one per client (its own instance, "
                       "starting full)",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::scope>()},
      Field{.name = "bucket_charge",
            .group = FieldGroup::client,
            .rank = 620,
            .kind = FieldKind::choice,
            .choices = charge_names,
            .meaning = "token-bucket budget: per-retry (a retry takes bucket_cost while the tokens stay >= "
                       "bucket_threshold) or per-failure (gRPC: every failed attempt takes bucket_cost, a retry "
                       "is allowed while the tokens are > bucket_threshold)",
            .access = member<&Scenario::client, &ClientPolicy::budget, &BudgetParams::charge>()}};
  static constexpr std::array streams{StreamId::throttle};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept { return s.client.budget.on(); }
  static bool refuses_locally(const Scenario& s) { return s.client.budget.config().kind == BudgetKind::adaptive; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static constexpr bool shows_controls = true;
  static constexpr std::array series{SeriesQuantityDef{"retries_denied", "retries the budget refused (per bin)",
                                                       Dim::count, 50, 50,
                                                       [](const Scenario& s) { return active(s); }}};
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const Params& o = s.client.budget;
    if (!s.client.retries && o.on())
      throw InputError("budget", "needs retries on (with retries off every client makes exactly one attempt)");
    if (!o.on() && o.scope != Scope::shared)
      throw InputError("budget_scope", "needs a budget (budget other than none)");
    const Params d{};
    const bool bucket_set = o.capacity != d.capacity || o.cost != d.cost || o.timeout_cost != d.timeout_cost ||
                            o.refund != d.refund || o.threshold != d.threshold || o.charge != d.charge;
    if (bucket_set && budget_preset_names[o.preset] != "token-bucket")
      throw InputError("budget", "must be token-bucket for the bucket_* fields to apply");
    try {
      check_budget(o.config());
    } catch (const InputError& e) {
      // The bucket's own names (capacity, cost, ...) as the scenario spells them.
      const std::string f = e.field();
      throw InputError(f == "capacity" || f == "cost" || f == "timeout_cost" || f == "refund" || f == "threshold"
                           ? "bucket_" + f
                           : f,
                       std::string(e.what()).substr(f.size() + 1));
    }
  }
  static constexpr std::array metrics{MetricDef{.key = "retries_denied",
                                                .label = "retries the budget refused (per run)",
                                                .dim = Dim::count,
                                                .rank = 250,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true},
                                      MetricDef{.key = "throttled",
                                                .label = "calls throttled locally (per run)",
                                                .dim = Dim::count,
                                                .rank = 270,
                                                .shown = shown::controls,
                                                .when_absent = absent::zero,
                                                .integer = true}};
  template <class Faults>
  Budget(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        budgets_(s.client.budget.config(), on_ && s.client.budget.scope == Scope::client),
        adaptive_(on_ && budgets_.shared().kind() == BudgetKind::adaptive),
        ms_(s.client.attempt_ms > 0.0 ? s.client.attempt_ms : 1.0) {}

  // With one budget per client, a new client (its slot reused or not) starts with a fresh one.
  template <class E>
  void on_new_client(E& /*e*/, std::int32_t c, double& /*base*/) {
    budgets_.renew(c);
  }

  template <class E>
  [[gnu::always_inline]] void on_arrival(E& /*e*/, std::int32_t c, double t) {
    if (on_) of(c).on_request(t * ms_);
  }
  // The decision fold: at the send step adaptive throttling (the only budget that says no there)
  // may refuse the call; a hedge (components/hedge.hpp) is sent only while a retry would be (gRPC's
  // token bucket, charged per failure, so asking takes nothing, above its threshold; Finagle's
  // budget withdraws for it as for a retry); after the
  // sleep, the last link of the client policy chain: a retry it refuses ends the request (lost).
  template <class E>
  [[gnu::always_inline]] void decide(E& e, Decision& d) {
    if (!on_) return;
    if (d.ask == Ask::send) {
      if (!adaptive_ || of(d.client).admit(e.now() * ms_, e.template stream<StreamId::throttle>().uniform())) return;
      ++throttled_;
      d.verb = Verb::refuse;
    } else if (d.ask == Ask::hedge) {
      if (!of(d.client).try_retry(e.now() * ms_, false).allowed) d.verb = Verb::refuse;
    } else if (d.ask == Ask::after_sleep) {
      const RetryGrant grant = of(d.client).try_retry(e.now() * ms_, d.outcome->kind == OutcomeKind::timeout);
      if (!grant.allowed) {
        ++denied_;
        e.template tell_series<Budget>(0, 1.0);
        d.verb = Verb::give_up;
        return;
      }
      static_cast<ClientState&>(e.client_extra(d.client)).paid = grant.paid;
    }
  }
  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t c, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).paid = static_cast<ClientState&>(e.client_extra(c)).paid;
  }
  // Every answer of an attempt: a success returns its refund, a failure (a timeout included) is
  // recorded; a refused call and a cancelled attempt are not answers.
  template <class E>
  [[gnu::always_inline]] void on_outcome(E& e, const Outcome& o) {
    if (!on_ || o.kind == OutcomeKind::refused || o.kind == OutcomeKind::cancelled) return;
    RetryBudget& b = of(o.client);
    if (o.kind == OutcomeKind::success) {
      b.on_success(e.now() * ms_, static_cast<JobState&>(e.extra(o.job)).paid);
    } else {
      b.on_failure(e.now() * ms_, o.kind == OutcomeKind::timeout);
    }
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(denied_);
    out[1] = static_cast<double>(throttled_);
  }

 private:
  // Client c's budget: the shared one, or its own.
  RetryBudget& of(std::int32_t c) noexcept { return budgets_.of(c); }

  bool on_;
  Scoped<RetryBudget, BudgetConfig> budgets_;  // shared, or one per client slot
  bool adaptive_;
  double ms_;  // milliseconds per attempt-duration: the budget's clock
  std::int64_t denied_ = 0, throttled_ = 0;
};

}  // namespace retrylab::montecarlo::detail
