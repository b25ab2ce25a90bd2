#pragma once
// Deadlines that cancel (docs/models.md §4; gRPC's call deadline, Envoy's route timeout): with
// deadline_cancel on, a request ends at arrival + deadline, lost, whatever it is doing then, and its
// attempts in flight (one, or with hedging each of its copies) are cancelled where they are
// (cancel_attempt.hpp): queued at the server (the limit's queue, a row's lock) it leaves the queue,
// never to be served (E::withdraw); in service it is finished (the server completes it, its reply
// discarded: E::orphan) or abandoned (it leaves the server at once: E::cancel), as cancel_in_service
// says; on the network (delay > 0: on its way to the server, or its reply on the way back) or a
// rejection under way, the client stops waiting for it (E::orphan: the cancellation itself is not
// carried to the server). A client whose backoff would wake it at or after its deadline gives up then
// (the deadline component's after_sleep rule, deadline.hpp, which with deadline_cancel on also ends
// a wake at the deadline exactly), so a request still open at its deadline is waiting for an
// attempt. Source of lane_deadline: the requests' deadlines in a FIFO by arrival
// (arrival times never decrease, so neither do their deadlines), an entry stale once its request
// has ended (answered, or given up). A request's attempts in flight are among its client's latest
// hedge_attempts sends (1 without hedging; with hedging every earlier request of the client ended
// with all its attempts). Invariants: a request is never answered after its deadline; a cancelled
// queued attempt is never served. Metrics: deadline_cancelled, cancelled_queued, cancelled_in_service.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/components/cancel_attempt.hpp"
#include "montecarlo/engine_parts.hpp"

namespace retrylab::montecarlo::detail {

class DeadlineCancel : public Component {
 public:
  static constexpr unsigned lanes = lane_deadline;
  static constexpr bool cancels = true;
  struct ClientState {
    bool open = false;      // its request is still open (not answered, not given up)
    std::uint8_t next = 0;  // with hedging: the place of its next send in its ring of latest sends
    std::int32_t job = -1;
    std::int64_t id = -1;  // its latest attempt (slot and id)
  };
  static constexpr std::array fields{
      Field{.name = "deadline_cancel",
            .group = FieldGroup::client,
            .rank = 1170,
            .kind = FieldKind::on_off,
            .hi = 1,
            .meaning = "on: at its deadline a request ends (lost) and its attempt in flight is cancelled: queued at "
                       "the server it leaves the queue, in service see cancel_in_service (gRPC's deadline, Envoy's "
                       "route timeout; needs a deadline)",
            .access = member<&Scenario::client, &ClientPolicy::deadline_cancel>()},
      Field{.name = "cancel_in_service",
            .group = FieldGroup::client,
            .rank = 1180,
            .kind = FieldKind::choice,
            .choices = in_service_names,
            .meaning = "a cancelled attempt already in service: finish (the server completes it, its reply is "
                       "discarded) or abandon (it leaves the server at once) (needs deadline_cancel on)",
            .access = member<&Scenario::client, &ClientPolicy::cancel_in_service>()}};
  static constexpr std::array metrics{
      MetricDef{.key = "deadline_cancelled",
                .label = "requests cancelled at their deadline (per run)",
                .dim = Dim::count,
                .rank = 291,
                .shown = [](const Scenario& s, bool) { return s.client.deadline_cancel; },
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "cancelled_queued",
                .label = "attempts cancelled in a queue (per run)",
                .dim = Dim::count,
                .rank = 292,
                .shown = [](const Scenario& s, bool) { return s.client.deadline_cancel; },
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "cancelled_in_service",
                .label = "attempts cancelled in service (per run)",
                .dim = Dim::count,
                .rank = 293,
                .shown = [](const Scenario& s, bool) { return s.client.deadline_cancel; },
                .when_absent = absent::zero,
                .integer = true}};
  // With hedging it cancels every live copy of the request (Hedge hears each cancelled outcome).
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool active(const Scenario& s) noexcept { return s.client.deadline_cancel; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const ClientPolicy& c = s.client;
    if (!c.deadline_cancel) {
      if (c.cancel_in_service != ClientPolicy{}.cancel_in_service)
        throw InputError("cancel_in_service", "needs deadline_cancel on");
      return;
    }
    if (!(c.deadline < inf)) throw InputError("deadline_cancel", "on needs a deadline (deadline > 0)");
  }
  template <class Faults>
  DeadlineCancel(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        in_service_rule_(s.client.cancel_in_service),
        deadline_(s.client.deadline),
        width_(s.client.hedge.attempts > 1 ? static_cast<std::size_t>(s.client.hedge.attempts) : 1) {}

  void reset() noexcept {
    due_.clear();
    sends_.clear();
  }

  template <class E>
  void on_arrival(E& e, std::int32_t c, double t) {
    if (!on_) return;
    ClientState& mine = e.client_extra(c);
    mine.open = true;
    mine.job = -1;
    if (width_ > 1) {
      mine.next = 0;
      const std::size_t from = static_cast<std::size_t>(c) * width_;
      if (sends_.size() < from + width_) sends_.resize(from + width_);
      std::fill_n(sends_.begin() + static_cast<std::ptrdiff_t>(from), width_, Sent{});
    }
    due_.push_back({t + deadline_, e.client(c).serial, c});  // arrivals never go back in time: a FIFO
  }
  template <class E>
  void on_send(E& e, std::int32_t c, std::int32_t j) {
    if (!on_) return;
    ClientState& mine = e.client_extra(c);
    mine.job = j;
    mine.id = e.job(j).id;
    if (width_ > 1) {
      sends_[static_cast<std::size_t>(c) * width_ + mine.next] = {mine.job, mine.id};
      mine.next = static_cast<std::uint8_t>((mine.next + 1) % width_);
    }
  }
  template <class E>
  void on_succeeded(E& e, std::int32_t c, double /*latency*/) {
    if (on_) static_cast<ClientState&>(e.client_extra(c)).open = false;
  }
  template <class E>
  void on_give_up(E& e, std::int32_t c) {
    if (on_) static_cast<ClientState&>(e.client_extra(c)).open = false;
  }
  // The earliest deadline of a request still open (stale entries are dropped here).
  template <unsigned L, class E>
  double next_time(E& e) noexcept {
    if (!on_) return inf;
    while (!due_.empty()) {
      const Due& x = due_.front();
      const ClientState& mine = e.client_extra(x.client);
      if (mine.open && e.client(x.client).serial == x.serial) return x.time;
      due_.pop_front();
    }
    return inf;
  }
  // The request's deadline: its attempts in flight are cancelled (oldest first), then the request is
  // lost. A client still open at its deadline is waiting for an attempt (a sleep that would reach
  // the deadline ended its request: deadline.hpp).
  template <unsigned L, class E>
  void fire(E& e) {
    const std::int32_t c = due_.front().client;
    due_.pop_front();
    const ClientState& mine = e.client_extra(c);
    if (width_ == 1) {
      if (!in_flight(e, mine.job, mine.id)) return;  // not waiting (see above): unreachable
      cancel(e, mine.job);
    } else {  // the queued ones first (cancel_attempt.hpp), then the rest
      const std::size_t from = static_cast<std::size_t>(c) * width_;
      for (std::size_t i = 0; i < width_; ++i) {
        const Sent x = sends_[from + (mine.next + i) % width_];
        if (in_flight(e, x.job, x.id) && withdraw_queued(e, x.job)) ++queued_;
      }
      for (std::size_t i = 0; i < width_; ++i) {
        const Sent x = sends_[from + (mine.next + i) % width_];
        if (in_flight(e, x.job, x.id)) cancel(e, x.job);
      }
    }
    ++ended_;
    e.lose(c);
  }

  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut out) {
    out[0] = static_cast<double>(ended_);
    out[1] = static_cast<double>(queued_);
    out[2] = static_cast<double>(in_service_);
  }

 private:
  struct Due {
    double time;
    std::int64_t serial;
    std::int32_t client;
  };
  struct Sent {
    std::int32_t job = -1;
    std::int64_t id = -1;
  };
  template <class E>
  void cancel(E& e, std::int32_t j) {
    const Cancelled where = cancel_attempt(e, j, in_service_rule_);
    if (where == Cancelled::queued) ++queued_;
    if (where == Cancelled::in_service) ++in_service_;
  }
  bool on_;
  InService in_service_rule_;
  double deadline_;
  std::size_t width_;  // attempts of a request in flight at once, at most: hedge_attempts
  Ring<Due> due_;
  std::vector<Sent> sends_;  // with hedging: by client slot, its latest width_ sends (a ring)
  std::int64_t ended_ = 0, queued_ = 0, in_service_ = 0;
};

}  // namespace retrylab::montecarlo::detail
