#pragma once
// Hedged requests (docs/models.md §7; gRPC's hedgingPolicy, gRFC A6): a client sends its request's
// first attempt, then one more every hedge_delay while none has succeeded and fewer than
// hedge_attempts were sent; a failed attempt sends the next hedge at once. The first success answers
// the request; with hedge_cancel on the others are cancelled where they are (cancel_attempt.hpp: a
// queued one leaves its queue; one in service is abandoned or finished, as hedge_in_service says;
// one on the network is dropped by its client), else they run to their end and their replies are
// dropped. An attempt that times out (a client timeout: each attempt's own, as Finagle's timeout
// under its backup requests) fails like any other. The request fails (the client policy chain runs:
// retry limit, backoff, budget) when every attempt sent has failed and no more may be sent; a request
// that ends otherwise (a deadline that cancels every attempt of it) sends no more. Hedges are
// throttled by the gRPC token bucket (budget grpc, or token-bucket charged per-failure) or Finagle's
// retry budget (a hedge withdraws as a retry does); the budget answers the decision's hedge step: a
// hedge it refuses is not sent, and that request sends no more. With hedge_percentile p > 0 (the tail-at-scale backup
// request) the delay before a request's hedges is the running estimate of the p-th percentile of the latencies of the
// requests answered so far in the run, each from its first attempt's send to its answer (P² online estimate,
// montecarlo/p_square.hpp: deterministic; exact while fewer than five are answered; hedge_delay
// until the first is), fixed when the request's first attempt is sent. Source of lane_send: the requests' next hedge
// times in a heap by (time, push order); an entry is stale once its request is another (generation) or its next time
// moved. State per client slot in its own vectors (runs without hedging allocate nothing); a request's attempts still
// in flight (live) are counted down as each one's outcome is heard, a cancellation included. Invariants: a request is
// answered at most once; it has at most hedge_attempts attempts; with hedge_attempts 1 the component is off. Metrics:
// hedges, hedge_wins, hedges_cancelled, hedges_throttled.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/components/cancel_attempt.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/p_square.hpp"

namespace retrylab::montecarlo::detail {

class Hedge : public Component {
 public:
  // Its parameters: a value in the scenario's client policy (components/hedge_params.hpp), each a
  // row of the field table (montecarlo/fields.hpp).
  using Params = HedgeParams;
  static constexpr unsigned lanes = lane_send;
  static constexpr bool cancels = true;
  static constexpr bool sends_several = true;
  static constexpr std::array fields{
      Field{.name = "hedge_attempts",
            .group = FieldGroup::client,
            .rank = 700,
            .kind = FieldKind::integer,
            .lo = 1,
            .hi = static_cast<double>(max_hedge_attempts),
            .meaning = "hedged requests (gRPC hedgingPolicy.maxAttempts): attempts of a request sent at most, the "
                       "first included, one every hedge_delay while none has succeeded (1 = no hedging)",
            .access = member<&Scenario::client, &ClientPolicy::hedge, &HedgeParams::attempts>()},
      Field{.name = "hedge_delay",
            .group = FieldGroup::client,
            .rank = 710,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "hedging: time between a request's attempts (a failure sends the next at once; needs "
                       "hedge_attempts > 1)",
            .access = member<&Scenario::client, &ClientPolicy::hedge, &HedgeParams::delay>()},
      Field{.name = "hedge_cancel",
            .group = FieldGroup::client,
            .rank = 720,
            .kind = FieldKind::on_off,
            .hi = 1,
            .meaning = "hedging: on, the first success cancels the request's other attempts (a queued one leaves its "
                       "queue, one in service see hedge_in_service); off, they run to their end (needs hedge_attempts "
                       "> 1)",
            .access = member<&Scenario::client, &ClientPolicy::hedge, &HedgeParams::cancel>()},
      Field{.name = "hedge_percentile",
            .group = FieldGroup::client,
            .rank = 730,
            .kind = FieldKind::number,
            .hi = 100,
            .hi_open = true,
            .meaning = "hedging, tail-at-scale: the delay is this percentile of the latencies of the requests "
                       "answered so far in the run (P² estimate; hedge_delay until the first answer); 0 = off "
                       "(needs hedge_attempts > 1)",
            .access = member<&Scenario::client, &ClientPolicy::hedge, &HedgeParams::percentile>()},
      Field{.name = "hedge_in_service",
            .group = FieldGroup::client,
            .rank = 1200,
            .kind = FieldKind::choice,
            .choices = in_service_names,
            .meaning = "hedging: an attempt the first success cancels while it is in service: abandon (it leaves the "
                       "server at once) or finish (the server completes it, its reply is discarded); a queued one "
                       "always leaves its queue (needs hedge_cancel on)",
            .access = member<&Scenario::client, &ClientPolicy::hedge, &HedgeParams::in_service>()}};
  static constexpr std::array metrics{
      MetricDef{.key = "hedges",
                .label = "hedges sent (per run)",
                .dim = Dim::count,
                .rank = 350,
                .shown = [](const Scenario& s, bool) { return s.client.hedge.attempts > 1; },
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "hedge_wins",
                .label = "requests a hedge answered (per run)",
                .dim = Dim::count,
                .rank = 360,
                .shown = [](const Scenario& s, bool) { return s.client.hedge.attempts > 1; },
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "hedges_cancelled",
                .label = "attempts cancelled by an answer (per run)",
                .dim = Dim::count,
                .rank = 370,
                .shown = [](const Scenario& s, bool) { return s.client.hedge.attempts > 1; },
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "hedges_throttled",
                .label = "hedges the budget refused (per run)",
                .dim = Dim::count,
                .rank = 380,
                .shown = [](const Scenario& s, bool) { return s.client.hedge.attempts > 1; },
                .when_absent = absent::zero,
                .integer = true}};
  static bool active(const Scenario& s) noexcept { return s.client.hedge.on(); }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const ClientPolicy& c = s.client;
    const ClientPolicy d{};
    const Params& h = c.hedge;
    const Params hd{};
    if (!h.on()) {
      if (h.delay != hd.delay) throw InputError("hedge_delay", "needs hedge_attempts > 1");
      if (h.cancel != hd.cancel) throw InputError("hedge_cancel", "needs hedge_attempts > 1");
      if (h.percentile != hd.percentile) throw InputError("hedge_percentile", "needs hedge_attempts > 1");
      if (h.in_service != hd.in_service) throw InputError("hedge_in_service", "needs hedge_attempts > 1");
      return;
    }
    // The components that count on one attempt per request say so (allows_several_in_flight):
    // check_component_rules refuses them before this.
    if (!h.cancel && h.in_service != hd.in_service) throw InputError("hedge_in_service", "needs hedge_cancel on");
    if (c.deadline != d.deadline && !c.deadline_cancel)
      throw InputError("hedge_attempts",
                       "with a deadline needs deadline_cancel on (a deadline that only stops retries would let hedges "
                       "go past it)");
    const BudgetConfig b = c.budget.config();
    if (b.kind != BudgetKind::none && b.kind != BudgetKind::finagle &&
        !(b.kind == BudgetKind::token_bucket && b.token_bucket.charge == Charge::per_failure))
      throw InputError("hedge_attempts",
                       "hedges are throttled by gRPC's token bucket or Finagle's retry budget only: budget none, "
                       "grpc, finagle, or token-bucket with bucket_charge per-failure");
  }

  template <class Faults>
  Hedge(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        attempts_(static_cast<std::int32_t>(s.client.hedge.attempts)),
        delay_(s.client.hedge.delay),
        cancel_(s.client.hedge.cancel),
        in_service_(s.client.hedge.in_service),
        percentile_(s.client.hedge.percentile > 0.0),
        tail_(s.client.hedge.percentile / 100.0) {}

  template <class E>
  void on_new_client(E& /*e*/, std::int32_t c, double& /*base*/) {
    if (!on_) return;
    if (static_cast<std::size_t>(c) >= calls_.size()) calls_.resize(static_cast<std::size_t>(c) + 1);
    Call& k = calls_[static_cast<std::size_t>(c)];
    k = Call{.generation = k.generation + 1};
  }
  // The request's first attempt (sent by the core) starts a request; a hedge (sent by fire) joins it.
  template <class E>
  void on_send(E& e, std::int32_t c, std::int32_t j) {
    if (!on_) return;
    Call& k = calls_[static_cast<std::size_t>(c)];
    if (!sending_) {
      k = Call{.generation = k.generation + 1};
      k.first_sent = e.now();
      k.delay = percentile_ && tail_.count() > 0 ? tail_.estimate() : delay_;
    }
    const auto i = static_cast<std::size_t>(k.sent++);
    k.slot[i] = j;
    k.id[i] = e.job(j).id;
    ++k.live;
    if (static_cast<std::size_t>(j) >= index_.size()) index_.resize(static_cast<std::size_t>(j) + 1);
    index_[static_cast<std::size_t>(j)] = static_cast<std::int8_t>(i);
    if (sending_) ++hedges_;
    k.next = inf;
    if (k.sent < attempts_ && !k.stopped) schedule(c, e.now() + k.delay);
  }
  // The decision's claim step: an attempt's outcome reached its client: absorbed unless it answers
  // the request (a success) or ends it (the last failure, none more to send).
  template <class E>
  void decide(E& e, Decision& d) {
    if (!on_ || d.ask != Ask::claim) return;
    if (absorbs(e, d.outcome->job, d.client)) d.verb = Verb::absorb;
  }
  // A cancelled attempt of the request (by its answer, below, or by its deadline) is out: no reply
  // will come to claim.
  template <class E>
  void on_outcome(E& e, const Outcome& o) {
    if (!on_ || o.kind != OutcomeKind::cancelled) return;
    Call& k = calls_[static_cast<std::size_t>(o.client)];
    if (--k.live == 0 && k.left) e.free_client(o.client);
  }
  template <class E>
  void on_succeeded(E& e, std::int32_t c, double /*latency*/) {
    if (!on_) return;
    Call& k = calls_[static_cast<std::size_t>(c)];
    if (percentile_) tail_.add(e.now() - k.first_sent);
    if (!cancel_) return;
    // The queued ones first (cancel_attempt.hpp), then the rest in send order; skipped: an attempt
    // ended (its slot freed, perhaps reused) or timed out (its client no longer waits for it).
    const auto n = static_cast<std::size_t>(k.sent);
    for (std::size_t i = 0; i < n; ++i)
      if (in_flight(e, k.slot[i], k.id[i]) && withdraw_queued(e, k.slot[i])) ++cancelled_;
    for (std::size_t i = 0; i < n; ++i) {
      if (!in_flight(e, k.slot[i], k.id[i])) continue;
      cancel_attempt(e, k.slot[i], in_service_);
      ++cancelled_;
    }
  }
  // The request ended without an answer (lost): it sends no more hedges.
  template <class E>
  void on_give_up(E& /*e*/, std::int32_t c) {
    if (!on_) return;
    Call& k = calls_[static_cast<std::size_t>(c)];
    k.stopped = true;
    k.next = inf;
  }
  // The client leaves: its slot is kept while attempts of its request are still out.
  template <class E>
  bool keeps_client(E& /*e*/, std::int32_t c) {
    if (!on_ || calls_[static_cast<std::size_t>(c)].live == 0) return false;
    calls_[static_cast<std::size_t>(c)].left = true;
    return true;
  }

  // The earliest hedge due (stale entries are dropped here).
  template <unsigned L, class E>
  double next_time(E& /*e*/) {
    if (!on_) return inf;
    while (!due_.empty()) {
      const Due& x = due_.front();
      const Call& k = calls_[static_cast<std::size_t>(x.client)];
      if (k.generation == x.generation && k.next == x.time && !k.answered) return x.time;
      pop();
    }
    return inf;
  }
  template <unsigned L, class E>
  void fire(E& e) {
    const std::int32_t c = due_.front().client;
    pop();
    Call& k = calls_[static_cast<std::size_t>(c)];
    k.next = inf;
    Decision d{.ask = Ask::hedge, .verb = Verb::send, .client = c};
    e.parts().decide(e, d);
    if (d.verb != Verb::send) {
      ++throttled_;
      k.stopped = true;
      if (k.live == 0) e.fail_request(c);  // its last attempt had failed: the request fails now
      return;
    }
    sending_ = true;
    e.send_attempt(c);
    sending_ = false;
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(hedges_);
    out[1] = static_cast<double>(wins_);
    out[2] = static_cast<double>(cancelled_);
    out[3] = static_cast<double>(throttled_);
  }

 private:
  // A client's request: its attempts (job slot and id), how many were sent and are still out, when
  // the next hedge is due (inf: none), and whether it was answered, stopped hedging, or its client left.
  struct Call {
    std::uint64_t generation = 0;
    double next = inf;
    double first_sent = 0.0, delay = 0.0;  // its first attempt's send; the delay before its hedges
    std::int32_t sent = 0, live = 0;
    bool answered = false, stopped = false, left = false;
    std::array<std::int32_t, max_hedge_attempts> slot{};
    std::array<std::int64_t, max_hedge_attempts> id{};
  };
  struct Due {
    double time;
    std::uint64_t order, generation;
    std::int32_t client;
  };
  template <class E>
  bool absorbs(E& e, std::int32_t j, std::int32_t c) {
    Call& k = calls_[static_cast<std::size_t>(c)];
    --k.live;
    if (k.answered) {  // a late reply (hedge_cancel off): dropped; the slot goes once the last is in
      if (k.live == 0 && k.left) e.free_client(c);
      return true;
    }
    if (e.job(j).success) {
      k.answered = true;
      k.next = inf;
      if (index_[static_cast<std::size_t>(j)] > 0) ++wins_;
      return false;
    }
    if (k.sent < attempts_ && !k.stopped) {
      if (k.next > e.now()) schedule(c, e.now());  // a failure: the next hedge goes at once
      return true;
    }
    return k.live > 0;  // others may still answer; else the request fails
  }
  static bool later(const Due& a, const Due& b) noexcept {
    return a.time > b.time || (a.time == b.time && a.order > b.order);
  }
  void schedule(std::int32_t c, double t) {
    Call& k = calls_[static_cast<std::size_t>(c)];
    k.next = t;
    due_.push_back({t, order_++, k.generation, c});
    std::push_heap(due_.begin(), due_.end(), later);
  }
  void pop() {
    std::pop_heap(due_.begin(), due_.end(), later);
    due_.pop_back();
  }

  bool on_;
  std::int32_t attempts_;
  double delay_;
  bool cancel_;
  InService in_service_;  // hedge_in_service
  bool percentile_;
  PSquare tail_;                    // the answered requests' latencies (hedge_percentile > 0)
  bool sending_ = false;            // fire is sending a hedge (on_send: it joins the request)
  std::vector<Call> calls_;         // by client slot
  std::vector<std::int8_t> index_;  // by job slot: the attempt's place in its request (0: the first)
  std::vector<Due> due_;            // a min-heap by (time, order)
  std::uint64_t order_ = 0;
  std::int64_t hedges_ = 0, wins_ = 0, cancelled_ = 0, throttled_ = 0;
};

}  // namespace retrylab::montecarlo::detail
