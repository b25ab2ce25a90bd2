#pragma once
// Deadlines that cancel (docs/models.md §4; gRPC's call deadline, Envoy's route timeout): with
// deadline_cancel on, a request ends at arrival + deadline, lost, whatever it is doing then, and its
// attempt in flight is cancelled: queued at the server (the limit's queue, a row's lock) it leaves
// the queue, never to be served (E::withdraw); in service it is finished (the server completes it,
// its reply discarded: E::orphan) or abandoned (it leaves the server at once: E::cancel), as
// cancel_in_service says; on the network (delay > 0: on its way to the server, or its reply on the
// way back) or a rejection under way, the client stops waiting for it (E::orphan: the cancellation
// itself is not carried to the server). A client whose backoff would wake it at or after its deadline gives up then
// (the deadline component's after_sleep rule, deadline.hpp, which with deadline_cancel on also ends
// a wake at the deadline exactly), so a request still open at its deadline is waiting for an
// attempt. Source of lane_deadline: the requests' deadlines in a FIFO by arrival
// (arrival times never decrease, so neither do their deadlines), an entry stale once its request
// has ended (answered, or given up). Invariants: a request is never answered after its deadline; a
// cancelled queued attempt is never served. Metrics: deadline_cancelled, cancelled_queued,
// cancelled_in_service.
#include <array>
#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"

namespace retrylab::montecarlo::detail {

class DeadlineCancel : public Component {
 public:
  static constexpr unsigned lanes = lane_deadline;
  static constexpr bool cancels = true;
  // Where an attempt is: sent (on the wire to the server, or queued there), in service, or done at
  // the server (its reply on the wire back; a rejection, which is never cancelled in service).
  enum class Stage : std::uint8_t { sent, in_service, done };
  struct JobState {
    Stage stage = Stage::sent;
  };
  struct ClientState {
    bool open = false;  // its request is still open (not answered, not given up)
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
      : on_(active(s)), abandon_(s.client.cancel_in_service == InService::abandon), deadline_(s.client.deadline) {}

  void reset() noexcept { due_.clear(); }

  template <class E>
  void on_arrival(E& e, std::int32_t c, double t) {
    if (!on_) return;
    ClientState& mine = e.client_extra(c);
    mine.open = true;
    mine.job = -1;
    due_.push_back({t + deadline_, e.client(c).serial, c});  // arrivals never go back in time: a FIFO
  }
  template <class E>
  void on_send(E& e, std::int32_t c, std::int32_t j) {
    if (!on_) return;
    ClientState& mine = e.client_extra(c);
    mine.job = j;
    mine.id = e.job(j).id;
    static_cast<JobState&>(e.extra(j)).stage = Stage::sent;
  }
  template <class E>
  void on_service_start(E& e, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).stage = Stage::in_service;
  }
  template <class E>
  void on_served(E& e, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).stage = Stage::done;
  }
  template <class E>
  void on_rejected(E& e, std::int32_t j) {
    if (on_) static_cast<JobState&>(e.extra(j)).stage = Stage::done;  // the server's answer is under way
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
  // The request's deadline: its attempt in flight (if any) is cancelled, then the request is lost.
  // A client still open at its deadline is waiting for an attempt (a sleep that would reach the
  // deadline ended its request: deadline.hpp).
  template <unsigned L, class E>
  void fire(E& e) {
    const std::int32_t c = due_.front().client;
    due_.pop_front();
    const ClientState& mine = e.client_extra(c);
    const std::int32_t j = mine.job;
    if (j < 0 || e.job(j).id != mine.id || e.job(j).orphaned) return;  // not waiting (see above): unreachable
    const Stage stage = static_cast<JobState&>(e.extra(j)).stage;
    if (stage == Stage::sent && e.withdraw(j)) {
      ++queued_;
    } else if (stage == Stage::in_service) {
      ++in_service_;
      if (abandon_) {
        e.cancel(j);
      } else {
        e.orphan(j);
      }
    } else {
      e.orphan(j);  // on the wire either way, or a rejection under way: the client stops waiting
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
  bool on_, abandon_;
  double deadline_;
  Ring<Due> due_;
  std::int64_t ended_ = 0, queued_ = 0, in_service_ = 0;
};

}  // namespace retrylab::montecarlo::detail
