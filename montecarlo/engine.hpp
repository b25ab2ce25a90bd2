#pragma once
// The event core (internal; simulate_run is the public face; docs/architecture.md): one run of one
// scenario, docs/models.md §1–§7. The core owns the clock (real time t, and virtual time V for the
// processor-sharing models), the wake-up queue, the job and client slots, the streams, the tally
// and the stop rules; everything else is a component (montecarlo/component.hpp) called through
// fixed hooks, and the contention model is a type (montecarlo/models/). Compiled per build
// (montecarlo/builds.hpp): plain (no component: every attempt is served at once for exactly one
// unit, the options' code absent, the paper models at full speed), lean and full.
//
// The path of one attempt: a client is sent (send: the decision's send step, a job slot, on_send), carried to the
// server (carries, else reach), admitted or not (admits, on_admit, holds_back), served (start_service:
// the model's on_start/on_service_start, the service time from the component that decides it),
// decided at its end with every attempt ending at that instant (end_group: the model; on_served;
// release_server: on_release), carried back (carries_back, else deliver), and heard by its client
// (deliver: on_reply; the outcome record, heard by every component; the decision's claim step; then
// success, or fail: the decision's steps before_sleep, sleep, after_sleep; then sleep, give up, or
// leave). The outcome record and the decision fold are the components' protocol (component.hpp).
// Invariants (each tested in tests/montecarlo):
//  - simultaneous events at one instant: service ends, then responses reaching clients, then client
//    timeouts, then attempts reaching the server, then arrivals, then wake-ups; each queue in (time,
//    push order); ends before starts gives half-open intervals; a component's own sends (lane_send:
//    hedges) come after the reaches, before arrivals;
//  - with deterministic service, attempts end in the order they started (proofs/Engine.v:
//    ps_fifo_order), so the end queue is a FIFO ring; wake-ups are pushed at now + sleep, so their
//    queue is monotone (wake_queue.hpp);
//  - randomness comes from identity, never from event order: one named stream per purpose
//    (random.hpp), each drawn only when its component is on, so a run is a pure function of
//    (scenario, seed, run index) and adding a component never moves another's draws;
//  - client, job and ring slots are recycled: no allocation once the peak backlog is reached.
// The plain tier differs from the full one in two places only, both for byte-identical results with
// every golden: work_done is summed per attempt at its end (the full tier integrates n·dt; equal to
// rounding), and the lock-step shortcut (lockstep.hpp). The full tier has the one-event shortcut
// (one_event.hpp), taken when every component the scenario turns on allows it. Either shortcut only
// for an observer that declares it tolerates it (engine_parts.hpp, tolerated_shortcuts).
// Observer: sees every arrival, send (on_start), receipt (on_end) and, if it declares them, on_sleep
// (client, retry, sleep) and the full tier's server-view hooks: on_admit(t, admitted, limit),
// on_reject(attempt, client, t, retry_after), on_service_start(attempt, row, t), on_service(attempt,
// row, start, end, success), on_timeout(attempt, client, t), on_give_up(client, t), on_cancel(attempt,
// client, t) when a component cancels an attempt (hedging, a deadline that cancels: in service, queued,
// or for its client only; then no on_end); and the hooks a time
// series reads (montecarlo/series.hpp), in any tier: on_refused(client, t) when a call is refused
// locally, on_leave(client, t) when a client leaves, on_succeeded(client, t, latency), on_series(slot,
// t, value) when a component's series quantity moves (tell_series: the limit's rejections, the
// budget's denied retries, a shared breaker open or closed), and on_reach(t) / on_release(t) when an
// attempt reaches the server / leaves it after admission (full tier: with on_reject, the count
// of attempts the server holds, queued or in service). NullObserver compiles to
// nothing. Faults (faults.hpp): NoFaults compiles every planted fault away.
// Also optional: on_outcome(client, outcome), the completed outcome record (full tier; before on_end).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "analytic/model.hpp"
#include "montecarlo/builds.hpp"
#include "montecarlo/engine_parts.hpp"
#include "montecarlo/exponential.hpp"
#include "montecarlo/faults.hpp"
#include "montecarlo/jobs.hpp"
#include "montecarlo/models/model_of.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/sampler.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::montecarlo::detail {

// The per-attempt steps, inlined into the loop (each is called from one or two places).
#if defined(__GNUC__)
#define RL_HOT [[gnu::always_inline]] inline
#else
#define RL_HOT inline
#endif

template <Model M, class P, class Observer, class Faults = NoFaults>
class Engine {
 public:
  static constexpr bool full = !P::empty;
  // A component may hold an attempt between its send and its service start: send and reach times kept.
  static constexpr bool separate_send = P::delays_start;
  using ModelType = typename model_of<M, full>::type;
  static constexpr bool virtual_time = ModelType::virtual_time;
  using BiasableStream = typename Faults::BiasableStream;

  Engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
         Observer& observer, EngineScratch* scratch = nullptr, const Faults& faults = {})
      : s_(s),
        observer_(observer),
        faults_(faults),
        sampler_(s.backoff, faults),
        key_(run_key(seed, options.scenario_hash ? *options.scenario_hash : stable_hash(s))),
        arrivals_(key_, StreamId::arrivals, run_index),
        sleeps_(key_, StreamId::sleeps, run_index),
        ties_(key_, StreamId::ties, run_index),
        horizon_(effective_horizon(s)),
        warmup_(s.measurement.warmup),
        pure_burst_(candidate_rate(s) == 0.0),
        drains_(candidate_rate(s) > 0.0 && s.traffic.clients > 0),
        pulse_(options.pulse),
        lent_(scratch),
        jobs_(make_jobs(s)),
        wakes_(scratch ? scratch->wakes : own_wakes_),
        options_(options),
        streams_(key_, run_index),
        parts_(s, faults) {
    if (lent_) swap_storage();  // the lent storage in (the engine's own, empty, out); emptied below
    apply_bias(arrivals_, faults_);
    apply_bias(sleeps_, faults_);
    apply_bias(ties_, faults_);
    model_.assign_rows(static_cast<std::size_t>(s.resource.rows));
    empty_storage(s);
    tally_.p99_target = (99 * s.traffic.clients + 99) / 100;  // ceil(0.99·N)
  }
  ~Engine() {
    if (lent_) swap_storage();  // handed back, with whatever memory the run grew
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  RunResult run() {
    if constexpr (full && M == Model::free && (declared_shortcuts<Observer>() & shortcut::one_event) &&
                  P::template has<Network>) {
      if (one_event_applies()) return one_event();
    }
    if (candidate_rate(s_) > 0.0) schedule_next_arrival(0.0);
    for (std::int64_t i = 0; i < s_.traffic.clients; ++i) {
      send(new_client(0.0, true));
      if (tally_.waiting >= s_.measurement.collapse) return finish(StopReason::collapsed, 0.0);
    }
    if constexpr (!full && (declared_shortcuts<Observer>() & shortcut::lockstep)) {
      if (options_.lockstep_shortcut && M == Model::collision && s_.traffic.rate == 0.0 && s_.client.retries &&
          sampler_.deterministic() && s_.traffic.clients >= 2 && observer_tolerates(observer_, shortcut::lockstep))
        return lockstep();
      if constexpr ((M == Model::free || M == Model::shared) && !Faults::planted) {
        if (options_.lockstep_shortcut && pure_burst_ && s_.client.retries && sampler_.deterministic() &&
            s_.traffic.clients >= 2 && horizon_ <= 0x1p52 && observer_tolerates(observer_, shortcut::lockstep))
          return lockstep_first_commit();
      }
    }
    // Only once the whole burst has arrived (a client rejected at once with retries off has left).
    if (const auto why = stopped()) return finish(*why, t_);
    if constexpr (full) {
      return run_full();
    } else {
      return run_plain();
    }
  }

  // ---- The components' view of the core ------------------------------------------------------
  double now() const noexcept { return t_; }
  double warmup() const noexcept { return warmup_; }
  const Scenario& scenario() const noexcept { return s_; }
  const Faults& faults() const noexcept { return faults_; }
  Observer& observer() noexcept { return observer_; }
  // Component C's k-th series quantity (its `series`) moves now: a count by `value`, a level to
  // `value`. Told to an observer that keeps series (on_series(slot, t, value); slot: its place in the
  // series table of the build's universe, builds.hpp); compiled away for any other.
  template <class C>
  void tell_series(std::size_t k, double value) {
    if constexpr (requires { observer_.on_series(std::size_t{0}, 0.0, 0.0); })
      observer_.on_series(series_table<universe_t<P>>::template slot<C>(k), t_, value);
  }
  P& parts() noexcept { return parts_; }
  Job& job(std::int32_t j) noexcept { return jobs_[j]; }
  JobExtra& extra(std::int32_t j) noexcept { return jobs_.extra(j); }
  EngineClient& client(std::int32_t c) noexcept { return clients_[c]; }
  ClientExtra& client_extra(std::int32_t c) noexcept { return client_extra_[c]; }
  std::int64_t admitted() const noexcept { return admitted_; }
  std::int64_t& in_service_count() noexcept { return in_service_; }
  // Client slots in use (taken and not yet freed): what a component that keeps a client must give back.
  std::size_t client_slots_in_use() const noexcept { return clients_.size() - free_count_; }
  template <StreamId id>
  auto& stream() noexcept {
    if constexpr (id == StreamId::ties)
      return ties_;
    else if constexpr (id == StreamId::sleeps)
      return sleeps_;
    else
      return streams_.template get<id>();  // a component's own (its `streams`)
  }
  // What the plain tier does not store: the send time is the service start (and without a
  // component that delays the start, send, reach and start are one instant), the row is 0.
  double sent_of(std::int32_t j) noexcept {
    if constexpr (separate_send) return jobs_.extra(j).sent;
    return jobs_[j].start;
  }
  std::size_t row_of(std::int32_t j) noexcept {
    if constexpr (full) return static_cast<std::size_t>(jobs_.extra(j).row);
    return 0;
  }
  RL_HOT double draw_service() noexcept { return parts_.service_time(*this, 1.0); }
  bool injected([[maybe_unused]] std::int32_t j) noexcept {
    if constexpr (full) return parts_.any([&](auto& p) RL_HOOK { return p.injects(*this, j); });
    return false;
  }
  void push(Fifo& q, std::int32_t j) noexcept {
    jobs_.extra(j).next = -1;
    if (q.tail < 0) {
      q.head = j;
    } else {
      jobs_.extra(q.tail).next = j;
    }
    q.tail = j;
  }
  std::int32_t pop(Fifo& q) noexcept {
    const std::int32_t j = q.head;
    q.head = jobs_.extra(j).next;
    if (q.head < 0) q.tail = -1;
    return j;
  }

  // The attempt reaches the server: admission control.
  RL_HOT void reach(std::int32_t j) {
    if constexpr (separate_send) jobs_.extra(j).reached = t_;
    if constexpr (full) {
      if constexpr (requires { observer_.on_reach(t_); }) observer_.on_reach(t_);
      if (!parts_.all([&](auto& p) RL_HOOK { return p.admits(*this, j); })) return;
    }
    admit(j);
  }
  RL_HOT void admit(std::int32_t j) {
    if constexpr (full) {
      ++admitted_;
      parts_.each([&](auto& p) RL_HOOK { p.on_admit(*this, j); });
      if constexpr (requires { observer_.on_admit(t_, admitted_, admitted_); }) {
        std::int64_t limit = 0;
        parts_.each([&](auto& p) RL_HOOK { limit = std::max(limit, p.limit_in_force()); });
        observer_.on_admit(t_, admitted_, limit);
      }
      if (parts_.any([&](auto& p) RL_HOOK { return p.holds_back(*this, j); })) return;
    }
    start_service(j, draw_service());
  }
  RL_HOT void start_service(std::int32_t j, double service) {
    Job& job = jobs_[j];
    job.start = t_;
    model_.on_start(*this, j);
    if constexpr (full && P::cancels) jobs_.extra(j).stage = Stage::in_service;
    if (!job.rejected) {
      if constexpr (full) parts_.each([&](auto& p) RL_HOOK { p.on_service_start(*this, j); });
      model_.on_service_start(*this, j);
    }
    if constexpr (full && requires { observer_.on_service_start(std::int64_t{0}, std::int32_t{0}, 0.0); }) {
      if (!job.rejected) observer_.on_service_start(job.id, static_cast<std::int32_t>(row_of(j)), t_);
    }
    if constexpr (virtual_time) {
      job.end = v_ + service;
    } else {
      job.end = t_ + service;
    }
    ++in_service_;
    jobs_.push_end(job.end, j);
  }
  RL_HOT void respond(std::int32_t j) {
    if constexpr (full) {
      if (parts_.any([&](auto& p) RL_HOOK { return p.carries_back(*this, j); })) return;
    }
    deliver(j);
  }
  void deliver(std::int32_t j);
  void time_out(std::int32_t j);
  // Client c, still waiting, sends one more attempt of its request now (a hedge: the component that
  // sends it asks the decision's hedge step, not the core).
  RL_HOT void send_attempt(std::int32_t c);
  // Attempt j, in service now, is cancelled: it leaves the server at once (the model, the limit and
  // the lock hear it leave; no outcome), it ends for the tally, and its queued end is skipped
  // (drop_cancelled). Only for a component that declares `cancels`.
  void cancel(std::int32_t j);
  // Attempt j, queued at the server (the limit's queue, a row's lock: the component that holds it
  // `withdraws` it), is cancelled: it leaves the queue, never to be served, and its slot is freed;
  // false when no component holds it queued. Attempt j, wherever it is, ends for its client now,
  // the server not told (orphan: it runs on, its reply discarded). Each is a `cancelled` outcome,
  // told to observers as on_cancel. Only for a component that declares `cancels`.
  bool withdraw(std::int32_t j);
  void orphan(std::int32_t j);
  // Removes job j from FIFO q (a walk from the head: a cancelled attempt is mostly near it); false
  // when j is not in q.
  bool unlink(Fifo& q, std::int32_t j) noexcept {
    std::int32_t prev = -1;
    for (std::int32_t k = q.head; k >= 0; prev = k, k = jobs_.extra(k).next) {
      if (k != j) continue;
      const std::int32_t next = jobs_.extra(k).next;
      if (prev < 0) {
        q.head = next;
      } else {
        jobs_.extra(prev).next = next;
      }
      if (q.tail == j) q.tail = prev;
      return true;
    }
    return false;
  }
  // Client c's request ends now, lost (a component dealt with its attempt in flight, if any).
  void lose(std::int32_t c) { give_up(c); }
  // Client c's request failed now, no attempt of it in flight (a component absorbed the failures):
  // the client policy chain runs as after a failed attempt.
  void fail_request(std::int32_t c) { fail(Outcome{.client = c}); }
  RL_HOT void free_client(std::int32_t c) {
    if (free_count_ == free_clients_.size()) {
      free_clients_.push_back(c);
    } else {
      free_clients_[free_count_] = c;
    }
    ++free_count_;
  }

 private:
  RunResult run_full();
  RunResult run_plain();
  void swap_storage() noexcept;
  void empty_storage(const Scenario& s);

  // Every service is equal (deterministic service, free rejections): ends come in push order.
  static bool fifo_ends(const Scenario& s) noexcept {
    return s.resource.service == ServiceDist::deterministic && s.admission.reject_cost == 0.0;
  }
  static auto make_jobs(const Scenario& s) {
    if constexpr (full) {
      return JobSlab<JobExtra>(fifo_ends(s));
    } else {
      return JobRing(static_cast<std::size_t>(std::min<std::int64_t>(s.traffic.clients + 64, 1 << 20)));
    }
  }

  bool settle() noexcept {
    if constexpr (full) return parts_.any([](auto& p) RL_HOOK { return p.holds_run_open(); });
    return false;
  }
  std::optional<StopReason> stopped() noexcept {
    if (settle()) return std::nullopt;  // the loop runs until no event is left
    if (tally_.waiting == 0 && pure_burst_) return StopReason::finished;
    if (drains_ && tally_.burst_left == s_.traffic.clients) return StopReason::drained;
    return std::nullopt;
  }

  // At t: the next Poisson arrival (arrivals before wake-ups at equal times; a candidate a component
  // drops, a load profile's thinning, only schedules the next), else the next wake-up.
  RL_HOT void start_next(double t, double tw) {
    if (next_arrival_ <= tw) {
      if constexpr (full) {
        if (!parts_.all([&](auto& p) RL_HOOK { return p.accepts_arrival(*this, t); })) {
          schedule_next_arrival(t);
          return;
        }
      }
      const std::int32_t c = new_client(t, false);
      schedule_next_arrival(t);
      send(c);
    } else {
      const std::int32_t c = wakes_.top().client;
      wakes_.pop();
      send(c);
    }
  }
  void schedule_next_arrival(double from) {
    next_arrival_ = from + standard_exponential_ziggurat(arrivals_) * mean_gap_;
    if (!(next_arrival_ < horizon_)) next_arrival_ = inf;
  }
  std::int32_t new_client(double t, bool burst);
  RL_HOT void send(std::int32_t c);

  RL_HOT double next_end_time() noexcept {
    if constexpr (P::cancels) drop_cancelled();
    if (jobs_.ends_empty()) return inf;
    if constexpr (virtual_time) {
      return std::max(t_ + (jobs_.top_time() - v_) * static_cast<double>(in_service_), t_);
    } else {
      return jobs_.top_time();
    }
  }
  // Pops the ends of cancelled attempts at the front of the end queue, freeing their slots.
  void drop_cancelled() noexcept {
    while (cancelled_ > 0 && !jobs_.ends_empty() && jobs_[jobs_.top_job()].cancelled) {
      const std::int32_t j = jobs_.top_job();
      jobs_.pop_end();
      jobs_.free_job(j);
      --cancelled_;
    }
  }
  RL_HOT void advance(double t) noexcept;
  double service_in_window(const Job& job, double end) const noexcept;
  RL_HOT void end_group();
  void prefetch_client_ahead() noexcept;
  [[gnu::noinline]] void end_many(std::int32_t first, double key);
  RL_HOT void end_one(std::int32_t j);
  RL_HOT void release_server(std::int32_t j) {
    --admitted_;
    parts_.each([&](auto& p) RL_HOOK { p.on_release(*this, j); });
    if constexpr (requires { observer_.on_release(t_); }) observer_.on_release(t_);
  }
  // Outcome o is made known to every component (describe, then on_outcome).
  RL_HOT void hear(Outcome& o);
  // Attempt j ends for its client as cancelled (withdraw, orphan): the observer, the tally, the parts.
  void hear_cancelled(std::int32_t j);
  RL_HOT void fail(const Outcome& o);
  void give_up(std::int32_t ci);
  void doomed_leave_now();  // planted fault shared_doomed_leave_at_commit
  RL_HOT void release_client(std::int32_t c) {
    tally_.leave();
    if constexpr (requires { observer_.on_leave(std::int64_t{0}, 0.0); }) observer_.on_leave(clients_[c].serial, t_);
    if constexpr (full) {
      if (parts_.any([&](auto& p) RL_HOOK { return p.keeps_client(*this, c); })) return;
    }
    free_client(c);
  }

  // ---- The lock-step shortcut (montecarlo/lockstep.hpp) ---------------------------------------
  // collision + none/nojitter + pure burst of N >= 2 (plain tier): every round is N simultaneous
  // attempts that all fail; the clients sleep the same deterministic w_k and start again together.
  RunResult lockstep();
  // nojitter's sleep after the k-th failure has reached the cap, so every later one equals it.
  bool sleep_at_cap(int k) const noexcept;
  void advance_lockstep(double t, bool busy) noexcept;
  // free/shared + none/nojitter + pure burst of N >= 2 (plain tier, an observer that tolerates lock
  // step, no planted fault): every round is the n waiting clients sent at one instant, ending
  // together; one commits, the rest sleep the same w_k. N rounds, each O(1) (lockstep.hpp), the
  // event loop's result bytes.
  RunResult lockstep_first_commit();

  // ---- The one-event shortcut (montecarlo/one_event.hpp) ---------------------------------------
  // Taken only for an observer that tolerates it (engine_parts.hpp, tolerated_shortcuts): it is told
  // on_arrival, on_start, on_end and on_sleep only, in time order, deferred.
  // A pure burst on `free` with network delay, every component it turns on allowing the shortcut.
  bool one_event_applies() const noexcept {
    return options_.one_event_shortcut && pure_burst_ && s_.traffic.clients >= 1 &&
           s_.traffic.clients < s_.measurement.collapse && Network::active(s_) && P::allow_one_event(s_) &&
           observer_tolerates(observer_, shortcut::one_event);
  }
  RunResult one_event();
  void one_event_send(std::int32_t c, double t, bool now);
  void one_event_decide(double e);
  void one_event_reply(std::int32_t c, double e);
  void tell_later(DeferredHook h);
  void tell_hooks_before(double t);

  RunResult finish(StopReason why, double stop);
  RunResult plain_result(StopReason why, double stop) const;
  RunResult full_result(StopReason why, double stop);

  // Hot state first (what every attempt touches), then what only components use.
  const Scenario& s_;
  Observer& observer_;
  Faults faults_;
  BasicSleepSampler<Faults> sampler_;
  std::uint64_t key_;
  BiasableStream arrivals_, sleeps_, ties_;
  double horizon_, warmup_;
  bool pure_burst_;  // no steady arrivals: the run finishes when nobody waits
  bool drains_;      // a burst on steady traffic: the run stops when the burst has drained
  // 1 / rate: the mean time between steady arrivals (candidates, with a load profile)
  double mean_gap_ = candidate_rate(s_) > 0.0 ? 1.0 / candidate_rate(s_) : 0.0;
  double t_ = 0.0, v_ = 0.0, next_arrival_ = inf;
  double v_warmup_ = 0.0;  // virtual time at the warmup instant (plain tier's work meter)
  std::int64_t in_service_ = 0;
  ModelType model_;  // its per-row state (the plain tier's one row: scalars, first)
  Tally tally_;
  PulseWriter pulse_;
  EngineScratch* lent_;  // the worker's storage, swapped in for the run and back out after it; or null
  std::vector<EngineClient> clients_;
  std::vector<std::int32_t> free_clients_;  // a stack: [0, free_count_) are free slots
  std::size_t free_count_ = 0;
  std::conditional_t<full, JobSlab<JobExtra>, JobRing> jobs_;
  MonotoneWakeQueue own_wakes_;  // montecarlo/wake_queue.hpp; used when no scratch is lent
  MonotoneWakeQueue& wakes_;
  std::vector<std::int32_t> group_;
  EngineOptions options_;
  double cut_ = nan;  // planted fault shared_doomed_leave_at_commit: where a doomed attempt's service was cut
  // The components' streams, as they declare them (each drawn only when its component is on).
  typename P::Streams streams_;
  P parts_;
  std::vector<ClientExtra> client_extra_;  // beside clients_ (full tier)
  std::int64_t admitted_ = 0, lost_ = 0;
  std::int64_t cancelled_ = 0;  // cancelled attempts whose ends are still queued (drop_cancelled)
  // The one-event shortcut's.
  std::vector<EngineFlight> flights_;
  IntervalUnion busy_union_;
  std::vector<DeferredHook> hooks_;
  std::int64_t hook_seq_ = 0;
  double last_leave_ = -inf;
};

}  // namespace retrylab::montecarlo::detail

#include "montecarlo/engine_steps.hpp"  // the core's steps: the loops, an attempt's end, a client's failure
#include "montecarlo/lockstep.hpp"      // the lock-step shortcut's member functions
#include "montecarlo/one_event.hpp"     // the one-event shortcut's member functions
#include "montecarlo/run_engine.hpp"    // choosing the build and the model: run_engine

#undef RL_HOT
