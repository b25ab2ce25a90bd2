#pragma once
// The event loop (internal; simulate_run is the public face): one run of one scenario, docs/models.md
// §1–§7. One loop serves every scenario; it is compiled in two tiers from the same code:
//  - plain (Full = false): no server-side or client-side option is set (has_server_features() is
//    false): every attempt is served at once for exactly one attempt-duration, so the options'
//    branches, queues and counters compile away and the paper models run at full speed;
//  - full (Full = true): any option, or EngineOptions::full_tier (then the metrics only this tier
//    tracks, latency percentiles and queue wait, are filled in; counts and times are the plain tier's).
//    Compiled twice: with every option, and lean (Lean = true), for scenarios whose options are
//    only client timeouts, retry limits, deadlines, service distributions and rows (lean_applies):
//    the other options are OptionSwitch<false>, so their branches compile away; the same numbers.
//
// What is simulated (time unit: the MEAN attempt duration; defaults reproduce docs/models.md):
//  - A client sends an attempt; it reaches the server after a network delay d1 (0 by default), is
//    admitted or not (concurrency limit), waits for its row's lock if there is one, is served for
//    its service requirement S (deterministic 1, exponential, lognormal, or a network round trip:
//    two legs, legs.hpp), and its outcome reaches
//    the client after a second delay d2. The client sleeps from that moment. Attempts counted,
//    `attempt_rate`, `sojourn` and observer on_start/on_end are the client's view (send, receipt).
//  - Rows: each attempt touches one of M rows, uniformly at random. Conflicts only within a row:
//    `collision`: an attempt fails iff another attempt on its row overlaps its service [start,end);
//    `free`/`shared`: first-commit-wins per row (a successful commit on its row in (start, end]
//    dooms it; simultaneous eligible commits on one row: one uniform winner). `shared`'s
//    processor-sharing server is ONE server shared by all rows (and by rejections that cost work),
//    run in virtual time V, dV/dt = 1/n; `collision`/`free` serve every attempt at rate 1. `ps`:
//    never a conflict. `none`: an uncontended dependency, every attempt served alone at rate 1,
//    failing only by injection (failure_prob, the outage).
//  - Lock (per row, FIFO): an admitted attempt waits until its row is free, then runs alone.
//  - Concurrency limit L (fixed, or AIMD): at most L attempts admitted at once (admitted = waiting
//    for a row lock or in service). Above it an attempt is rejected at once or queued (FIFO). A
//    rejection is a failed attempt for the client's backoff; it costs reject_cost·1 units of service
//    (a job that touches no row and never counts toward L) before the client hears of it, and may
//    carry a Retry-After: honouring clients sleep max(backoff sleep, Retry-After).
//  - AIMD (Netflix AIMDLimit): sampled when an admitted attempt ends: drop = the attempt failed
//    (conflict) or its time since admission > timeout; inflight = admitted count at its admission.
//  - Mixed population: each arriving client is on mix_backoff with probability `mix`, and ignores
//    Retry-After with probability ignore_retry_after (independent draws, population stream).
//  - Client timeout τ: at send + τ a client still waiting for that attempt's outcome stops waiting:
//    the attempt is failed for it and orphaned: the server carries on (it holds its limit slot, row
//    lock and share of the server, its commit still dooms others), and its outcome is discarded.
//  - Retry limit A, deadline, retry budgets and circuit breakers (controls.hpp): a client gives up
//    (lost) when its A-th attempt fails, when its next attempt would start after arrival + deadline,
//    or when its budget refuses the retry; a breaker or adaptive throttle may reject a call locally.
//  - Effects (with a timeout, the only way a client retries an attempt that succeeds): each successful
//    service end takes effect unless the idempotency key is fixed and the request already took
//    effect; a client's slot is kept until none of its attempts is at the server.
//  - Recovery (recovery_window > 0, RecoveryMeter); settle: after the horizon no client arrives and
//    the run ends when no event is left.
// Invariants (each tested in tests/montecarlo):
//  - simultaneous events at one instant: service ends, then responses reaching clients, then client
//    timeouts, then attempts reaching the server, then arrivals, then wake-ups; each queue in (time,
//    push order); ends before starts gives half-open intervals;
//  - with deterministic service, attempts end in the order they started (proofs/Engine.v:
//    ps_fifo_order), so the end queue is a FIFO ring; wake-ups are pushed at now + sleep, so their
//    queue is monotone (wake_queue.hpp);
//  - randomness comes from identity, never from event order: one named stream per purpose
//    (random.hpp), each drawn only when its feature is on, so a run is a pure function of (scenario,
//    seed, run index) and adding a feature never moves another's draws;
//  - client, job and ring slots are recycled: no allocation once the peak backlog is reached.
// The plain tier differs from the full one in two places only, both for byte-identical results with
// every golden: work_done is summed per attempt at its end (the full tier integrates n·dt; equal to
// rounding), and the lock-step shortcut: `collision` with `none`/`nojitter`, a pure burst of N >= 2
// and retries on can never succeed (docs/models.md §4), so after the burst starts the loop advances
// round by round (O(1) per round), and once rounds are periodic whole cycles at once, to the horizon
// (lockstep.hpp).
// The full tier has one shortcut of its own, the one-event loop (one_event.hpp): Brooker-shaped runs (a
// pure burst on `free` with network delay and nothing between an attempt's send and its outcome
// but its row) queue only each attempt's end; same laws, other numbers (the streams are drawn in
// another order), observers told in time order; EngineOptions::one_event_shortcut turns it off.
// Observer: sees every arrival, send (on_start), receipt (on_end) and, if it declares them, on_sleep
// (client, retry, sleep) and the full tier's server-view hooks: on_admit(t, admitted, limit),
// on_reject(attempt, client, t, retry_after), on_service_start(attempt, row, t), on_service(attempt,
// row, start, end, success), on_timeout(attempt, client, t), on_give_up(client, t), on_retry_denied
// (client, t) when its budget refuses a retry (just before its on_give_up). NullObserver compiles to
// nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "analytic/model.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/engine_parts.hpp"
#include "montecarlo/exponential.hpp"
#include "montecarlo/jobs.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/normal.hpp"
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

// A waiting client: what every tier reads (32 bytes).
struct EngineClient {
  double arrival;
  double prev;  // decorrelated jitter state s_(k−1)
  std::int64_t serial;
  std::int32_t failures;
  bool burst;
};
// What only the full tier reads of a client.
struct EngineClientExtra {
  bool mixed = false, ignores = false;
  double paid = 0.0;  // what the budget took for the client's pending retry (handed back on success)
  // Effects (tracked only with timeouts): the slot is freed once the client has left and none of its
  // attempts is still at the server, so a late success still finds its request.
  std::int32_t pending = 0, effects = 0;
  bool left = false, lost = false;
};

// An attempt in flight in the one-event shortcut, by client (a client has at most one).
struct EngineFlight {
  double sent = 0.0, start = 0.0;
  std::int64_t id = 0;
  std::int32_t row = 0;
  bool success = false;
};

// Storage a worker thread lends to each run it does (run_in_order_with): the queues, the job slots
// and the client tables, whose memory is then allocated once per thread, not once per run (on a
// short run, such as Brooker's test, the full tier's three queues, job slab and latency list cost
// as much in allocation and first touches as in use). A run swaps the containers in, clears them,
// and swaps them back out when it ends; no result depends on what the storage held.
struct EngineScratch {
  MonotoneWakeQueue wakes;
  std::vector<EngineClient> clients;
  std::vector<std::int32_t> free_clients;
  // The full tier's.
  MonotoneWakeQueue reaches, responds;
  JobSlab jobs{false};
  std::vector<EngineClientExtra> client_extra;
  std::vector<double> latencies;
  std::vector<EngineFlight> flights;
};

// Whether a full-tier run of s can take the lean build (Engine's Lean): it uses none of the options
// that build compiles away: admission control (a limit, AIMD, row locks), network delay, retry
// budgets and circuit breakers, injected failures, recovery, settle, a mixed population. What it
// keeps: client timeouts (and effects), retry limits, deadlines, service distributions, rows.
inline bool lean_applies(const Scenario& s) noexcept {
  const ServerOptions& o = s.server;
  return o.limit == 0 && !o.aimd && !o.lock && o.delay == 0.0 && o.budget == 0 && o.breaker == 0 &&
         o.failure_prob == 0.0 && o.outage_end == 0.0 && o.recovery_window == 0.0 && !o.settle && o.mix == 0.0 &&
         o.ignore_retry_after == 0.0;
}

template <Model M, bool Full, class Observer, bool Lean = false>
class Engine {
  static_assert(Full || !Lean, "the lean build is the full tier's");
  // Every option compiled in (the full tier's build with every option; false in the plain tier and
  // the lean build, where the options lean_applies names are OptionSwitch<false>: constant false).
  static constexpr bool every_option = Full && !Lean;
  static constexpr bool virtual_time = M == Model::shared || M == Model::ps;
  static constexpr bool first_commit = M == Model::free || M == Model::shared;

  using Client = EngineClient;
  using ClientExtra = EngineClientExtra;
  // A pending client timeout: job slot and attempt id (a slot whose id differs was delivered and reused).
  struct Timeout {
    double time;
    std::int64_t id;
    std::int32_t job;
  };
  // Intrusive FIFO of job slots (row locks, the limit queue).
  struct Fifo {
    std::int32_t head = -1, tail = -1;
    bool empty() const noexcept { return head < 0; }
  };

 public:
  Engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
         Observer& observer, EngineScratch* scratch = nullptr)
      : s_(s),
        o_(s.server),
        observer_(observer),
#if RETRYLAB_PLANTED_FAULTS
        sampler_(s.backoff, options.fault),
#else
        sampler_(s.backoff),
#endif
        key_(run_key(seed, options.scenario_hash ? *options.scenario_hash : stable_hash(s))),
        arrivals_(key_, StreamId::arrivals, run_index),
        sleeps_(key_, StreamId::sleeps, run_index),
        ties_(key_, StreamId::ties, run_index),
        horizon_(effective_horizon(s)),
        warmup_(s.warmup),
        pure_burst_(s.rate == 0.0),
        drains_(s.rate > 0.0 && s.clients > 0),
        pulse_(options.pulse),
        lent_(scratch),
        jobs_(make_jobs(s)),
        wakes_(scratch ? scratch->wakes : own_wakes_),
        options_(options),
        mix_sampler_(s.server.mix_backoff),
        service_(key_, StreamId::service, run_index),
        delay_(key_, StreamId::delay, run_index),
        population_(key_, StreamId::population, run_index),
        rows_(key_, StreamId::rows, run_index),
        retry_after_(key_, StreamId::retry_after, run_index),
        failures_(key_, StreamId::failures, run_index),
        throttle_(key_, StreamId::throttle, run_index),
        limited_(Full && (s.server.limit > 0 || s.server.aimd)),
        timeout_(Full && s.server.timeout < inf),
        delayed_(Full && s.server.delay > 0.0),
        controls_(Full && (s.server.budget != 0 || s.server.breaker != 0)),
        budget_on_(Full && s.server.budget != 0),
        random_service_(Full && s.server.service != ServiceDist::deterministic),
        breaker_on_(Full && s.server.breaker != 0),
        injects_(Full && (s.server.failure_prob > 0.0 || s.server.outage_end > 0.0)),
        tracks_effects_(timeout_),
        recovery_on_(Full && s.server.recovery_window > 0.0),
        settle_(Full && s.server.settle),
        aimd_(Full && s.server.aimd),
        lock_(Full && s.server.lock),
        mixed_population_(Full && (s.server.mix > 0.0 || s.server.ignore_retry_after > 0.0)),
        limit_(s.server.aimd ? s.server.aimd_params.initial : s.server.limit),
        ms_(s.server.attempt_ms > 0.0 ? s.server.attempt_ms : 1.0),
        budget_(budget_of(s.server)),
        breaker_(breaker_preset(breaker_preset_names[s.server.breaker])),
        adaptive_(controls_ && budget_.kind() == BudgetKind::adaptive),
        recovery_(s.server.outage_start, s.server.outage_end, s.server.recovery_window, s.server.failure_prob) {
    if (lent_) swap_storage();  // the lent storage in (the engine's own, empty, out); emptied below
#if RETRYLAB_PLANTED_FAULTS
    fault_ = options.fault;
    const bool biased = fault_ == Fault::biased_uniform;
    arrivals_.set_biased(biased);
    sleeps_.set_biased(biased);
    ties_.set_biased(biased);
#endif
    assign_rows();
    empty_storage(s);
    if (Full && o_.service == ServiceDist::lognormal) {
      sigma_ = std::sqrt(std::log1p(o_.service_cv * o_.service_cv));
#if RETRYLAB_PLANTED_FAULTS
      if (fault_ == Fault::lognormal_sigma_is_cv) sigma_ = o_.service_cv;  // planted fault: σ taken to be the CV
#endif
      mu_ = -0.5 * sigma_ * sigma_;  // E[S] = exp(μ + σ²/2) = 1
    }
    tally_.p99_target = (99 * s.clients + 99) / 100;  // ceil(0.99·N)
  }

  ~Engine() {
    if (lent_) swap_storage();  // handed back, with whatever memory the run grew
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  RunResult run() {
    if constexpr (every_option && M == Model::free && one_event_observer) {
      if (one_event_applies()) return one_event();
    }
    if (s_.rate > 0.0) schedule_next_arrival(0.0);
    for (std::int64_t i = 0; i < s_.clients; ++i) {
      send(new_client(0.0, true));
      if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, 0.0);
    }
    if constexpr (!Full) {
      if (options_.lockstep_shortcut && M == Model::collision && s_.rate == 0.0 && s_.retries &&
          sampler_.deterministic() && s_.clients >= 2)
        return lockstep();
    }
    // Only once the whole burst has arrived (a client rejected at once with retries off has left).
    if (const auto why = stopped()) return finish(*why, t_);
    if constexpr (Full) {
      return run_full();
    } else {
      return run_plain();
    }
  }

 private:
  // The full tier's loop: every event source, in the order of the header's invariants.
  RunResult run_full() {
    for (;;) {
      const double te = next_end_time();
      const double tw = wakes_.top_time();
      // The network queues are empty without a delay, the timeouts without a timeout: not looked at.
      double tr = inf, tt = inf, th = inf;
      if (delayed_) {
        tr = responds_.top_time();
        th = reaches_.top_time();
      }
      if (timeout_) tt = next_timeout_time();
      const double t = std::min(std::min(te, std::min(tw, next_arrival_)), std::min(tr, std::min(tt, th)));
      if (settle() ? t == inf : !(t < horizon_)) break;
      advance(t);
      if (te == t) {
        end_group();
      } else if (tr == t) {
        const std::int32_t j = responds_.top().client;
        responds_.pop();
        deliver(j);
      } else if (tt == t) {
        const std::int32_t j = timeouts_.front().job;
        timeouts_.pop_front();
        timeout_front_known_ = false;
        time_out(j);
      } else if (th == t) {
        const std::int32_t j = reaches_.top().client;
        reaches_.pop();
        reach(j);
      } else {
        start_next(t, tw);
        if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, t);
      }
      if (const auto why = stopped()) return finish(*why, t_);
    }
    if (settle()) return finish(StopReason::finished, t_);  // every request resolved, every attempt ended
    return finish(StopReason::horizon, horizon_);
  }

  // The plain tier's loop: the same events in the same order as the full tier's with its queues
  // empty (service ends before starts at one instant, arrivals before wake-ups), written for the two
  // sources it has; only an end can finish or drain the run, only an arrival collapse it.
  RunResult run_plain() {
    for (;;) {
      const double te = next_end_time();
      const double tw = wakes_.top_time();
      const double ts = std::min(tw, next_arrival_);
      if (te <= ts) {
        if (!(te < horizon_)) break;
        advance(te);
        end_group();
        if (const auto why = stopped()) return finish(*why, t_);
      } else {
        if (!(ts < horizon_)) break;
        advance(ts);
        start_next(ts, tw);
        if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, ts);
      }
    }
    return finish(StopReason::horizon, horizon_);
  }

  // The per-row state, for o_.rows rows.
  void assign_rows() {
    const auto rows = static_cast<std::size_t>(o_.rows);
    if constexpr (Full && M == Model::collision) {
      row_inflight_.assign(rows, 0);
      mark_.assign(rows, -1);
    }
    if constexpr (first_commit) {
      if constexpr (Full) last_commit_.assign(rows, -inf);
      row_count_.assign(rows, 0);
      row_winner_.assign(rows, 0);
    }
    if (lock()) {
      row_busy_.assign(rows, 0);
      row_queue_.assign(rows, Fifo{});
    }
  }

  // Exchanges the run's containers with the lent storage's (member containers, not references into
  // the storage: the hot loop then reaches them as before, one load from `this`).
  void swap_storage() noexcept {
    using std::swap;
    swap(clients_, lent_->clients);
    swap(free_clients_, lent_->free_clients);
    if constexpr (Full) {
      swap(jobs_, lent_->jobs);
      swap(client_extra_, lent_->client_extra);
      swap(reaches_, lent_->reaches);
      swap(responds_, lent_->responds);
      swap(latencies_, lent_->latencies);
      swap(flights_, lent_->flights);
    }
  }

  // Empties every container a run fills (lent ones hold an earlier run's entries), keeping memory.
  void empty_storage(const Scenario& s) {
    const auto expected = static_cast<std::size_t>(std::min<std::int64_t>(s.clients + 64, s.collapse + 64));
    clients_.clear();
    clients_.reserve(expected);
    free_clients_.clear();
    wakes_.reset(expected);
    if constexpr (Full) {
      jobs_.reset(fifo_ends(s));
      client_extra_.clear();
      reaches_.clear();
      responds_.clear();
      latencies_.clear();
    }
  }

  // Every service is equal (deterministic service, free rejections): ends come in push order.
  static bool fifo_ends(const Scenario& s) noexcept {
    return s.server.service == ServiceDist::deterministic && s.server.reject_cost == 0.0;
  }
  static auto make_jobs(const Scenario& s) {
    if constexpr (Full) {
      return JobSlab(fifo_ends(s));
    } else {
      return JobRing(static_cast<std::size_t>(std::min<std::int64_t>(s.clients + 64, 1 << 20)));
    }
  }

  // What the plain tier does not store: the send time is the service start, the row is 0, the
  // service order is the send order. Nor the lean build the send time: without a network delay or
  // admission control an attempt is sent, reaches the server and starts at one instant.
  double sent_of(std::int32_t j) noexcept {
    if constexpr (every_option) return jobs_.extra(j).sent;
    return jobs_[j].start;
  }
  std::size_t row_of(std::int32_t j) noexcept {
    if constexpr (Full) return static_cast<std::size_t>(jobs_.extra(j).row);
    return 0;
  }
  std::int64_t seq_of(std::int32_t j) noexcept {
    if constexpr (Full) return jobs_.extra(j).seq;
    return jobs_[j].id;
  }

  // Per-row state; the plain tier has one row, kept in scalars.
  // Attempts in service on row r (collision); the plain tier's one row holds every attempt in service.
  std::int64_t& row_inflight(std::size_t r) noexcept {
    if constexpr (Full) return row_inflight_[r];
    return in_service_;
  }
  std::int64_t& mark(std::size_t r) noexcept {
    if constexpr (Full) return mark_[r];
    return row0_mark_;
  }
  double& last_commit(std::size_t r) noexcept {
    if constexpr (Full) return last_commit_[r];
    return row0_last_commit_;
  }

  // Whether an option is on: always false in the plain tier, so its code compiles away there.
  bool limited() const noexcept { return Full && limited_; }
  bool lock() const noexcept { return Full && lock_; }
  bool settle() const noexcept { return Full && settle_; }
  bool controls() const noexcept { return Full && controls_; }
  bool tracks_effects() const noexcept { return Full && tracks_effects_; }
  bool recovery() const noexcept { return Full && recovery_on_; }

  std::optional<StopReason> stopped() const noexcept {
    if (settle()) return std::nullopt;  // the loop runs until no event is left
    if (tally_.waiting == 0 && pure_burst_) return StopReason::finished;
    if (drains_ && tally_.burst_left == s_.clients) return StopReason::drained;
    return std::nullopt;
  }

  // At t: the next Poisson arrival (arrivals before wake-ups at equal times), else the next wake-up.
  RL_HOT void start_next(double t, double tw) {
    if (next_arrival_ <= tw) {
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

  std::int32_t new_client(double t, bool burst) {
    std::int32_t slot;
    if (free_count_ > 0) {
      slot = free_clients_[--free_count_];
    } else {
      slot = static_cast<std::int32_t>(clients_.size());
      clients_.push_back({});
      if constexpr (Full) client_extra_.push_back({});
    }
    bool mixed = false, ignores = false;
    if constexpr (Full) {
      if (mixed_population_) {
        mixed = o_.mix > 0.0 && population_.uniform() < o_.mix;
        ignores = o_.ignore_retry_after > 0.0 && population_.uniform() < o_.ignore_retry_after;
      }
    }
    const double base = mixed ? o_.mix_backoff.base : s_.backoff.base;
    const std::int64_t serial = tally_.arrive(t, warmup_);
    clients_[slot] = {t, base, serial, 0, burst};
    if constexpr (Full) client_extra_[slot] = {mixed, ignores};
    observer_.on_arrival(serial, t, burst);
    if (Full && budget_on_) budget_.on_request(t * ms_);
    return slot;
  }

  double draw_delay() noexcept { return draw_leg(o_, delay_); }

  RL_HOT double draw_service() noexcept {
    if (!(Full && random_service_)) return 1.0;
    switch (o_.service) {
      case ServiceDist::deterministic: return 1.0;
      case ServiceDist::exponential:
#if RETRYLAB_PLANTED_FAULTS
        if (fault_ == Fault::exponential_service_rate) return service_.exponential() / 2.0;  // planted fault: mean 1/2
#endif
        return service_.exponential();
      case ServiceDist::lognormal: {
        return std::exp(mu_ + sigma_ * standard_normal(service_));
      }
      case ServiceDist::round_trip: return draw_round_trip(o_, service_);
    }
    return 1.0;
  }

  // A client sends an attempt now, unless its breaker or its adaptive throttle rejects the call
  // locally: then the call fails at once, unsent (no attempt, no work), and the client backs off.
  RL_HOT void send(std::int32_t c) {
    BreakerTicket ticket{};
    if constexpr (Full) {
      if (breaker_on_) {
        ticket = breaker_.admit(t_ * ms_);
        if (!ticket.admitted()) {
          ++breaker_rejected_;
          fail(c, 0.0, false);
          return;
        }
      }
      if (adaptive_ && !budget_.admit(t_ * ms_, throttle_.uniform())) {  // the only budget that says no here
        ++throttled_;
        fail(c, 0.0, false);
        return;
      }
    }
    const std::int32_t j = jobs_.add();
    Job& job = jobs_[j];
    if constexpr (Full) {
      if (breaker_on_) jobs_.extra(j).ticket = ticket;
      if (budget_on_) jobs_.extra(j).paid = client_extra_[c].paid;
    }
    job.id = tally_.attempts++;
    pulse_.attempt(tally_.attempts, t_, horizon_, tally_.burst_left, s_.clients);
    if (t_ >= warmup_) ++tally_.window_attempts;
    job.client = c;
    if constexpr (Full) {
      JobExtra& extra = jobs_.extra(j);
      if constexpr (every_option) extra.sent = t_;
      if (tracks_effects_) ++client_extra_[c].pending;
      if (o_.rows > 1) extra.row = static_cast<std::int32_t>(rows_.index(static_cast<std::uint64_t>(o_.rows)));
#if RETRYLAB_PLANTED_FAULTS
      if (fault_ == Fault::rows_ignored)
        extra.row = 0;  // planted fault: the row is drawn, then every attempt is on row 0
#endif
    }
    observer_.on_start(job.id, clients_[c].serial, t_);
    if (Full && timeout_) {
      timeouts_.push_back({t_ + o_.timeout, job.id, j});  // nondecreasing times: a FIFO
      // The only one pending, and it applies: the earliest is known.
      if (timeouts_.size() == 1) {
        timeout_front_ = timeouts_.front().time;
        timeout_front_known_ = true;
      }
    }
    if (Full && delayed_) {
      reaches_.push(t_ + draw_delay(), j);
    } else {
      reach(j);
    }
  }

  // The attempt reaches the server: admission control.
  RL_HOT void reach(std::int32_t j) {
    if constexpr (Full) {
      if constexpr (every_option) jobs_.extra(j).reached = t_;
      if (limited_ && admitted_ >= limit_) {
        if (o_.overflow == Overflow::queue) {
          push(limit_queue_, j);
        } else {
          reject(j);
        }
        return;
      }
    }
    admit(j);
  }

  RL_HOT void admit(std::int32_t j) {
    if constexpr (Full) {
      ++admitted_;
      if (aimd_) {
        jobs_.extra(j).admitted_at = t_;
        jobs_.extra(j).inflight = admitted_;
      }
      if constexpr (requires { observer_.on_admit(t_, admitted_, limit_); })
        observer_.on_admit(t_, admitted_, limited_ ? limit_ : std::int64_t{0});
      if (lock_) {
        const std::size_t r = row_of(j);
        if (row_busy_[r]) {
          push(row_queue_[r], j);
          return;
        }
        row_busy_[r] = 1;
#if RETRYLAB_PLANTED_FAULTS
        if (fault_ == Fault::lock_released_early)
          row_busy_[r] = 0;  // planted fault: the lock passes on at service start
#endif
      }
    }
    start_service(j, draw_service());
  }

  void reject(std::int32_t j) {
    Job& job = jobs_[j];
    job.rejected = true;
    ++rejected_;
    double& retry_after = jobs_.extra(j).retry_after;
    if (o_.retry_after > 0.0)
      retry_after =
          o_.retry_after_rule == RetryAfterRule::fixed ? o_.retry_after : 2.0 * o_.retry_after * retry_after_.uniform();
    if constexpr (requires { observer_.on_reject(std::int64_t{0}, std::int64_t{0}, t_, retry_after); })
      observer_.on_reject(job.id, clients_[job.client].serial, t_, retry_after);
    if (recovery()) recovery_.record(t_, false);
    if (o_.reject_cost > 0.0) {
      start_service(j, o_.reject_cost);  // the server's work of saying no
    } else {
      respond(j);
    }
  }

  RL_HOT void start_service(std::int32_t j, double service) {
    Job& job = jobs_[j];
    job.start = t_;
    if constexpr (Full && M == Model::collision) jobs_.extra(j).seq = service_seq_++;
    if (!job.rejected) {
      if constexpr (Full) {
        ++served_;
        if (t_ >= warmup_) {
          if constexpr (every_option) queue_wait_sum_ += t_ - jobs_.extra(j).reached;  // lean: no wait
          ++queue_wait_n_;
        }
      }
      if constexpr (M == Model::collision) {
        const std::size_t r = row_of(j);
        if (row_inflight(r) > 0) mark(r) = seq_of(j);  // it and every attempt in flight on its row overlap
        if constexpr (Full) ++row_inflight(r);
      }
    }
    if constexpr (Full && requires { observer_.on_service_start(std::int64_t{0}, std::int32_t{0}, 0.0); }) {
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

  double next_end_time() noexcept {
    if (jobs_.ends_empty()) return inf;
    if constexpr (virtual_time) {
      return std::max(t_ + (jobs_.top_time() - v_) * static_cast<double>(in_service_), t_);
    } else {
      return jobs_.top_time();
    }
  }

  // Moves the clock to t, integrating the window's time averages and virtual time.
  void advance(double t) noexcept {
    if (!(t > t_)) return;
    const auto n = static_cast<double>(in_service_);
    if (t > warmup_) {
      const double dt = t - (t_ > warmup_ ? t_ : warmup_);
      tally_.area_waiting += static_cast<double>(tally_.waiting) * dt;
      if (n > 0) tally_.busy += dt;
      if constexpr (Full) {
        if constexpr (virtual_time) {
          if (n > 0) tally_.work += dt;  // one server at rate 1
        } else {
          tally_.work += n * dt;  // every job served at rate 1
        }
        if (limited_) area_limit_ += static_cast<double>(limit_) * dt;
      }
    }
    if constexpr (virtual_time) {
      if constexpr (!Full) {
        if (t_ < warmup_ && warmup_ <= t) v_warmup_ = n > 0 ? v_ + (warmup_ - t_) / n : v_;
      }
      if (n > 0) v_ += (t - t_) / n;
    }
    t_ = t;
  }

  // The plain tier's work meter: the service attempt j received inside the window, given its (real
  // or virtual) end.
  double service_in_window(const Job& job, double end) const noexcept {
    if constexpr (virtual_time) {
      if (t_ < warmup_) return 0.0;
      const double from = std::max(job.end - 1.0, v_warmup_);
      return end > from ? end - from : 0.0;
    } else {
      const double from = std::max(job.start, warmup_);
      return end > from ? end - from : 0.0;
    }
  }

  // Every service ending now (one end key), resolved together: outcomes first, then the server
  // frees what they held (a row's lock, a limit slot), then the clients hear.
  RL_HOT void end_group() {
    const double key = jobs_.top_time();
    if constexpr (virtual_time) v_ = key;  // snap: the group has received exactly its service
    const std::int32_t first = jobs_.top_job();
    jobs_.pop_end();
    if constexpr (!Full) prefetch_client_ahead();
    if (jobs_.ends_empty() || jobs_.top_time() != key) {
      end_one(first);  // the common case: no other service ends now
      return;
    }
    end_many(first, key);
  }

  // With many clients the client table leaves the caches, and the client of every ending attempt
  // would be a cache miss on the loop's critical path (its failure count sets the next sleep). The
  // plain tier's jobs end in send order, so the client whose attempt ends `ahead` ends from now is
  // known: its record is fetched now. Only a hint to the processor: no result depends on it.
  void prefetch_client_ahead() noexcept {
    constexpr std::size_t ahead = 8;
    if (jobs_.ends_size() > ahead) {
      const Client* c = clients_.data() + jobs_[jobs_.end_job_at(ahead)].client;
#if defined(__x86_64__)
      asm volatile("prefetcht0 %0" : : "m"(*c));  // (GCC 12 left __builtin_prefetch out of this loop)
#else
      __builtin_prefetch(c);
#endif
    }
  }

  // end_group for two or more simultaneous ends (kept out of line: the rare case).
  [[gnu::noinline]] void end_many(std::int32_t first, double key) {
    group_.clear();
    group_.push_back(first);
    while (!jobs_.ends_empty() && jobs_.top_time() == key) {
      group_.push_back(jobs_.top_job());
      jobs_.pop_end();
    }
    decide(group_);
    for (const std::int32_t j : group_) {
      const Job& job = jobs_[j];
      if (job.rejected) continue;
      if (job.success) take_effect(job.client);
      if (recovery()) recovery_.record(t_, job.success);
    }
    if constexpr (Full && requires { observer_.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); }) {
      for (const std::int32_t j : group_) {
        const Job& job = jobs_[j];
        if (!job.rejected)
          observer_.on_service(job.id, static_cast<std::int32_t>(row_of(j)), job.start, t_, job.success);
      }
    }
    for (const std::int32_t j : group_) {
      --in_service_;
      if constexpr (M == Model::collision) {
        if constexpr (Full) {
          if (!jobs_[j].rejected) --row_inflight(row_of(j));
        }
      }
    }
    if constexpr (Full) {
      for (const std::int32_t j : group_) {
        if (!jobs_[j].rejected) release_server(j);
      }
    }
    for (const std::int32_t j : group_) respond(j);
    doomed_leave_now();
  }

  // end_group for a group of one, in the same order of steps.
  RL_HOT void end_one(std::int32_t j) {
    Job& job = jobs_[j];
    if constexpr (Full) {
      if (job.rejected) {
        --in_service_;
        respond(j);
        return;
      }
    }
    if constexpr (M == Model::collision) {
      job.success = seq_of(j) > mark(row_of(j)) && !injected();
    } else if constexpr (first_commit) {
      double& last = last_commit(row_of(j));
      job.success = !(last > job.start) && !injected();
      if (job.success) last = t_;
    } else {
      job.success = !injected();
    }
    if (job.success) take_effect(job.client);
    if (recovery()) recovery_.record(t_, job.success);
    if constexpr (Full && requires { observer_.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); })
      observer_.on_service(job.id, static_cast<std::int32_t>(row_of(j)), job.start, t_, job.success);
    --in_service_;
    if constexpr (Full && M == Model::collision) --row_inflight(row_of(j));
    if constexpr (Full) release_server(j);
    respond(j);
    doomed_leave_now();
  }

  // Decides the outcome of every job in a group of simultaneous service ends at t_ (rejections: none).
  void decide(const std::vector<std::int32_t>& g) {
    const double te = t_;
    if constexpr (M == Model::collision) {
      for (const std::int32_t j : g) {
        Job& job = jobs_[j];
        job.success = !job.rejected && seq_of(j) > mark(row_of(j)) && !injected();
      }
    } else if constexpr (M == Model::ps || M == Model::none) {
      for (const std::int32_t j : g) jobs_[j].success = !jobs_[j].rejected && !injected();
    } else {
      // Eligibility against the commits before now (no commit on the row since the attempt started).
      for (const std::int32_t j : g) {
        Job& job = jobs_[j];
        if (job.rejected) continue;
        job.success = !(last_commit(row_of(j)) > job.start) && !injected();
      }
      commit_winners(
          g, te, [&](std::int32_t j) { return row_of(j); }, [&](std::int32_t j) -> bool& { return jobs_[j].success; });
    }
  }

  // Simultaneous ends at te on a first-commit model, each marked success when eligible (rejected
  // ones false): per row with >= 2 eligible, one uniform winner (ties stream, rows in first-seen
  // order), the winner-th eligible attempt of its row in end order; the winners commit at te.
  // decide() and the one-event shortcut's one_event_decide().
  template <class RowOf, class Success>
  void commit_winners(const std::vector<std::int32_t>& g, double te, RowOf row, Success success) {
    for (const std::int32_t x : g)
      if (success(x)) ++row_count_[row(x)];
    for (const std::int32_t x : g) {
      const std::size_t r = row(x);
      if (row_count_[r] > 0) {
        row_winner_[r] =
            row_count_[r] >= 2 ? static_cast<std::int64_t>(ties_.index(static_cast<std::uint64_t>(row_count_[r]))) : 0;
#if RETRYLAB_PLANTED_FAULTS
        if (M == Model::free && fault_ == Fault::free_ties_all_fail && row_count_[r] >= 2)
          row_winner_[r] = row_count_[r];  // planted fault: no eligible commit wins
#endif
        row_count_[r] = -1;  // drawn
      }
    }
    for (const std::int32_t x : g) {
      bool& won = success(x);
      if (!won) continue;
      const std::size_t r = row(x);
      won = row_winner_[r]-- == 0;
      if (won) last_commit(r) = te;
    }
    for (const std::int32_t x : g) {
      const std::size_t r = row(x);
      row_count_[r] = 0;
      row_winner_[r] = 0;
    }
  }

  // Planted fault only (shared_doomed_leave_at_commit): after a commit on `shared`, every attempt
  // still in service is doomed and leaves now, failed. The real build compiles this to nothing.
  void doomed_leave_now() {
#if RETRYLAB_PLANTED_FAULTS
    if constexpr (M == Model::shared) {
      if (fault_ != Fault::shared_doomed_leave_at_commit || last_commit(0) != t_) return;
      while (!jobs_.ends_empty()) {
        const std::int32_t j = jobs_.top_job();
        jobs_.pop_end();
        Job& job = jobs_[j];
        job.success = false;
        --in_service_;
        if constexpr (Full) {
          if (!job.rejected) release_server(j);
        }
        cut_ = v_;  // it received service up to now
        respond(j);
        cut_ = nan;
      }
    }
#endif
  }

  // An admitted attempt leaves the server: AIMD sample, the row's lock passes on, a limit slot frees.
  RL_HOT void release_server(std::int32_t j) {
    const Job& job = jobs_[j];
    --admitted_;
    if (aimd_) {
      const Aimd& a = o_.aimd_params;
      std::int64_t next = limit_;
      if (!job.success || t_ - jobs_.extra(j).admitted_at > a.timeout) {
        next = static_cast<std::int64_t>(static_cast<double>(limit_) * a.backoff);
      } else if (2 * jobs_.extra(j).inflight >= limit_) {
        next = limit_ + 1;
      }
      limit_ = std::min(a.max, std::max(a.min, next));
    }
    if (lock()) {
      const std::size_t r = row_of(j);
      if (row_queue_[r].empty()) {
        row_busy_[r] = 0;
      } else {
        start_service(pop(row_queue_[r]), draw_service());
      }
    }
    while (limited_ && !limit_queue_.empty() && admitted_ < limit_) admit(pop(limit_queue_));
  }

  RL_HOT void respond(std::int32_t j) {
    if (Full && delayed_) {
      responds_.push(t_ + draw_delay(), j);
    } else {
      deliver(j);
    }
  }

  // The outcome reaches the client (unless it timed out: then it is discarded).
  RL_HOT void deliver(std::int32_t j) {
    // A reference is safe: nothing below takes a new job slot (no attempt is sent from here).
    Job& slot = jobs_[j];
    const Job& job = slot;
    const std::int64_t id = slot.id;
    if constexpr (Full) {
      slot.id = -1;  // dead: a pending timeout for it no longer applies
      if (timeout_front_known_ && !timeouts_.empty() && timeouts_.front().job == j) timeout_front_known_ = false;
    }
    jobs_.free_job(j);
    Client& c = clients_[job.client];
    const double t = t_;
    double retry_after = 0.0;
    if constexpr (Full) {
      if (tracks_effects_) {
        --client_extra_[job.client].pending;
        if (job.orphaned) {
          free_if_done(job.client);
          return;
        }
      }
      if (job.orphaned) return;
      const JobExtra& extra = jobs_.extra(j);
      if (breaker_on_) breaker_.record(t * ms_, extra.ticket, job.success);
      if (budget_on_) {
        if (job.success) {
          budget_.on_success(t * ms_, extra.paid);
        } else {
          budget_.on_failure(t * ms_, false);
        }
      }
      if (job.rejected && !client_extra_[job.client].ignores) retry_after = extra.retry_after;
    }
    observer_.on_end(id, c.serial, sent_of(j), t, job.success);
    if constexpr (Full) {
      tally_.attempt_ended(sent_of(j), t, warmup_);
    } else if (t >= warmup_) {  // tally_.attempt_ended, with the work in the same branch (hot path)
      tally_.sojourn_sum += t - job.start;
      ++tally_.sojourn_n;
#if RETRYLAB_PLANTED_FAULTS
      if (!std::isnan(cut_)) {
        tally_.work += service_in_window(job, cut_);
      } else
#endif
        tally_.work += service_in_window(job, virtual_time ? job.end : t);
    }
    if (job.success) {
      if constexpr (Full) latencies_.push_back(t - c.arrival);
      tally_.succeed(c.arrival, t, c.burst, warmup_, s_.clients);
      release_client(job.client);
    } else {
      fail(job.client, retry_after, false);
    }
  }

  // The earliest pending client timeout that still applies (stale ones are dropped here). Kept
  // between events: only a push into an empty FIFO, a pop, or the end of the front's own attempt
  // (deliver) can change it, so the loop does not reload the front's job at every event.
  double next_timeout_time() noexcept {
    if (timeout_front_known_) return timeout_front_;
    timeout_front_ = inf;
    while (!timeouts_.empty()) {
      const Timeout& x = timeouts_.front();
      const Job& job = jobs_[x.job];
      if (job.id == x.id && !job.orphaned) {
        timeout_front_ = x.time;
        break;
      }
      timeouts_.pop_front();
    }
    timeout_front_known_ = true;
    return timeout_front_;
  }

  // The client stops waiting for attempt j: failed for it, orphaned at the server.
  void time_out(std::int32_t j) {
    Job& job = jobs_[j];
    job.orphaned = true;
    ++timed_out_;
    const Client& c = clients_[job.client];
    if constexpr (requires { observer_.on_timeout(std::int64_t{0}, std::int64_t{0}, 0.0); })
      observer_.on_timeout(job.id, c.serial, t_);
    if (breaker_on_) breaker_.record(t_ * ms_, jobs_.extra(j).ticket, false);
    if (budget_on_) budget_.on_failure(t_ * ms_, true);
    observer_.on_end(job.id, c.serial, sent_of(j), t_, false);
    tally_.attempt_ended(sent_of(j), t_, warmup_);
    fail(job.client, 0.0, true);
  }

  // Client c's attempt failed (or timed out, or was rejected locally) now: it leaves (retries off),
  // or gives up (lost: its retry limit is reached, its next attempt would start after its deadline,
  // or its budget refuses the retry), or sleeps max(backoff sleep, retry_after) and retries.
  RL_HOT void fail(std::int32_t ci, double retry_after, bool timed_out) {
    Client& c = clients_[ci];
    const double t = t_;
    if (!s_.retries) {
      if (c.burst) tally_.burst_left_at(t, s_.clients);
      release_client(ci);
      return;
    }
    if (c.failures < std::numeric_limits<std::int32_t>::max()) ++c.failures;
    double sleep;
    if constexpr (Full) {
      std::int64_t limit = o_.max_attempts;
#if RETRYLAB_PLANTED_FAULTS
      if (fault_ == Fault::retry_limit_off_by_one && limit > 0) ++limit;  // planted fault: one attempt too many
#endif
      if (limit > 0 && c.failures >= limit) {
        give_up(ci);
        return;
      }
      sleep = (client_extra_[ci].mixed ? mix_sampler_ : sampler_).sleep(c.failures, c.prev, sleeps_);
      sleep = std::max(sleep, retry_after);
      if (t + sleep > c.arrival + o_.deadline) {
        ++deadline_lost_;
        give_up(ci);
        return;
      }
      if (budget_on_) {
        const RetryGrant grant = budget_.try_retry(t * ms_, timed_out);
        if (!grant.allowed) {
          ++retries_denied_;
          if constexpr (requires { observer_.on_retry_denied(std::int64_t{0}, 0.0); })
            observer_.on_retry_denied(c.serial, t);
          give_up(ci);
          return;
        }
        client_extra_[ci].paid = grant.paid;
      }
    } else {
      (void)retry_after;
      (void)timed_out;
      sleep = sampler_.sleep(c.failures, c.prev, sleeps_);
    }
    // Optional hook (attempt traces, montecarlo/trace.hpp): the sleep chosen before retry k.
    if constexpr (requires { observer_.on_sleep(c.serial, c.failures, sleep); })
      observer_.on_sleep(c.serial, c.failures, sleep);
    wakes_.push(t + sleep, ci);
  }

  // Client ci gives up now: the request is lost and the client leaves.
  void give_up(std::int32_t ci) {
    Client& c = clients_[ci];
    ++lost_;
    if (tracks_effects()) {
      client_extra_[ci].lost = true;
      if (client_extra_[ci].effects > 0) ++hidden_effects_;
    }
    if constexpr (requires { observer_.on_give_up(std::int64_t{0}, 0.0); }) observer_.on_give_up(c.serial, t_);
    if (c.burst) tally_.burst_left_at(t_, s_.clients);
    release_client(ci);
  }

  // Whether an attempt the server completes now, which would succeed, fails by injection.
  bool injected() noexcept {
    if (!(Full && injects_)) return false;
    const double p = t_ >= o_.outage_start && t_ < o_.outage_end ? o_.outage_fraction : o_.failure_prob;
    if (!(p > 0.0) || !(failures_.uniform() < p)) return false;
    ++injected_;
    return true;
  }

  RL_HOT void release_client(std::int32_t c) {
    tally_.leave();
    if (tracks_effects()) {
      client_extra_[c].left = true;
      free_if_done(c);
    } else {
      free_client(c);
    }
  }

  void free_if_done(std::int32_t c) {
    if (client_extra_[c].left && client_extra_[c].pending == 0) free_client(c);
  }

  // Client slots: recycled through a stack of free slots (no allocation once the peak is reached).
  RL_HOT void free_client(std::int32_t c) {
    if (free_count_ == free_clients_.size()) {
      free_clients_.push_back(c);
    } else {
      free_clients_[free_count_] = c;
    }
    ++free_count_;
  }

  // A successful attempt of client ci completes at the server: its request takes effect, unless a
  // fixed idempotency key has already taken it.
  void take_effect(std::int32_t ci) {
    if (!tracks_effects()) return;  // without timeouts every effect is a success its client sees
    ClientExtra& c = client_extra_[ci];
    if (c.effects > 0 && o_.idempotency == Idempotency::fixed) return;
    ++effects_;
    if (c.effects > 0) ++duplicate_effects_;
    if (c.lost && c.effects == 0) ++hidden_effects_;
    ++c.effects;
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

  // ---- The lock-step shortcut (montecarlo/lockstep.hpp) ---------------------------------------
  // collision + none/nojitter + pure burst of N >= 2 (plain tier): every round is N simultaneous
  // attempts that all fail; the clients sleep the same deterministic w_k and start again together.
  RunResult lockstep();
  // nojitter's sleep after the k-th failure has reached the cap, so every later one equals it.
  bool sleep_at_cap(int k) const noexcept;
  void advance_lockstep(double t, bool busy) noexcept;

  // ---- The one-event shortcut (montecarlo/one_event.hpp) ---------------------------------------
  // Observers without server-view hooks can take it (they are told in time order, deferred).
  static constexpr bool one_event_observer = !requires(Observer & o) {
    o.on_admit(0.0, std::int64_t{0}, std::int64_t{0});
  }
  &&!requires(Observer & o) { o.on_reject(std::int64_t{0}, std::int64_t{0}, 0.0, 0.0); }
  &&!requires(Observer & o) { o.on_service_start(std::int64_t{0}, std::int32_t{0}, 0.0); }
  &&!requires(Observer & o) { o.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); }
  &&!requires(Observer & o) { o.on_timeout(std::int64_t{0}, std::int64_t{0}, 0.0); };

  // A pure burst on `free` with network delay and none of the options that act between an
  // attempt's send and its outcome.
  bool one_event_applies() const noexcept {
    return options_.one_event_shortcut && pure_burst_ && s_.clients >= 1 && s_.clients < s_.collapse && delayed_ &&
           !limited_ && !o_.lock && !timeout_ && !controls_ && !injects_ && !recovery_on_ && !settle_ &&
           !(o_.mix > 0.0) && o_.max_attempts == 0 && std::isinf(o_.deadline);
  }
  RunResult one_event();
  void one_event_send(std::int32_t c, double t, bool now);
  void one_event_decide(double e);
  void one_event_reply(std::int32_t c, double e);
  void tell_later(DeferredHook h);
  void tell_hooks_before(double t);

  RunResult finish(StopReason why, double stop) {
    pulse_.end(tally_.attempts);
    advance(stop);
    if constexpr (!Full) {
      // Service received by the attempts still in flight at the stop.
      for (std::size_t i = 0; i < jobs_.ends_size(); ++i) {
        const Job& job = jobs_[jobs_.end_job_at(i)];
        tally_.work += service_in_window(job, virtual_time ? v_ : stop);
      }
      return plain_result(why, stop);
    } else {
      return full_result(why, stop);
    }
  }

  RunResult plain_result(StopReason why, double stop) const {
    RunResult r = tally_.result(s_.clients, why, stop, warmup_);
    r.served = tally_.attempts;  // every attempt is served: no admission control
    r.reject_fraction = tally_.attempts > 0 ? 0.0 : nan;
    r.lost_fraction = r.successes > 0 ? 0.0 : nan;
    return r;
  }

  RunResult full_result(StopReason why, double stop) {
    RunResult r = tally_.result(s_.clients, why, stop, warmup_);
    const bool has_window = stop - warmup_ > 0.0;
    r.rejected = rejected_;
    r.served = served_;
    r.reject_fraction =
        tally_.attempts > 0 ? static_cast<double>(rejected_) / static_cast<double>(tally_.attempts) : nan;
    r.queue_wait = queue_wait_n_ > 0 ? queue_wait_sum_ / static_cast<double>(queue_wait_n_) : nan;
    r.mean_limit = limited() && has_window ? area_limit_ / (stop - warmup_) : nan;
    r.lost = lost_;
    r.lost_fraction =
        tally_.successes + lost_ > 0 ? static_cast<double>(lost_) / static_cast<double>(tally_.successes + lost_) : nan;
    r.timed_out = timed_out_;
    r.retries_denied = retries_denied_;
    r.breaker_rejected = breaker_rejected_;
    r.throttled = throttled_;
    r.injected = injected_;
    r.deadline_lost = deadline_lost_;
    r.breaker_opened = controls() ? breaker_.times_opened() : 0;
    r.effects = tracks_effects() ? effects_ : r.successes;
    r.duplicate_effects = duplicate_effects_;
    r.hidden_effects = hidden_effects_;
    r.measured_recovery = recovery();
    r.recovery_time = recovery() ? recovery_.recovery_time() : nan;
    std::size_t below = 0;  // latencies_[0, below) are all <= the rest: the p50 selection leaves them so
    r.latency_p50 = percentile(0.50, below);
    r.latency_p99 = percentile(0.99, below);
    return r;
  }

  // Nearest rank: the ceil(p·n)-th smallest latency. The selection runs on latencies_[below, n),
  // valid when every element before `below` is <= every element from it and the rank lies at or
  // beyond it (percentiles taken in increasing p); `below` then moves to the rank.
  double percentile(double p, std::size_t& below) {
    if (latencies_.empty()) return nan;
    const auto n = latencies_.size();
    auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(n)));
    rank = std::clamp<std::size_t>(rank, below + 1, n);
    const auto at = [&](std::size_t i) { return latencies_.begin() + static_cast<std::ptrdiff_t>(i); };
    std::nth_element(at(below), at(rank - 1), latencies_.end());
    below = rank - 1;
    return latencies_[rank - 1];
  }

  // Hot state first (what every attempt touches), then what only options use.
  const Scenario& s_;
  const ServerOptions& o_;
  Observer& observer_;
  SleepSampler sampler_;
  std::uint64_t key_;
  Stream arrivals_, sleeps_, ties_;
  double horizon_, warmup_;
  bool pure_burst_;  // no steady arrivals: the run finishes when nobody waits
  bool drains_;      // a burst on steady traffic: the run stops when the burst has drained
  // 1 / rate: the mean time between steady arrivals
  double mean_gap_ = s_.rate > 0.0 ? 1.0 / s_.rate : 0.0;
  double t_ = 0.0, v_ = 0.0, next_arrival_ = inf;
  double v_warmup_ = 0.0;  // virtual time at the warmup instant (plain tier's work meter)
  std::int64_t in_service_ = 0;
  std::int64_t row0_mark_ = -1;  // the plain tier's one row
  double row0_last_commit_ = -inf;
  Tally tally_;
  PulseWriter pulse_;
  EngineScratch* lent_;  // the worker's storage, swapped in for the run and back out after it; or null
  std::vector<Client> clients_;
  std::vector<std::int32_t> free_clients_;  // a stack: [0, free_count_) are free slots
  std::size_t free_count_ = 0;
  std::conditional_t<Full, JobSlab, JobRing> jobs_;
  MonotoneWakeQueue own_wakes_;  // montecarlo/wake_queue.hpp; used when no scratch is lent
  MonotoneWakeQueue& wakes_;
  std::vector<std::int32_t> group_;
  std::vector<std::int64_t> row_count_, row_winner_;
  EngineOptions options_;
#if RETRYLAB_PLANTED_FAULTS
  Fault fault_ = Fault::none;
  double cut_ = nan;  // shared_doomed_leave_at_commit: where a doomed attempt's service was cut
#endif

  // The options (full tier).
  SleepSampler mix_sampler_;
  Stream service_, delay_, population_, rows_, retry_after_, failures_, throttle_;
  // Options on (always false in the plain tier).
  // (OptionSwitch<false> in the lean build: constant false.)
  using Switch = OptionSwitch<every_option>;
  Switch limited_;
  bool timeout_;
  Switch delayed_, controls_, budget_on_;
  bool random_service_;
  Switch breaker_on_, injects_;
  bool tracks_effects_;
  Switch recovery_on_, settle_, aimd_, lock_, mixed_population_;
  std::int64_t limit_;  // the concurrency limit in force (fixed, or AIMD's current value)
  double ms_;           // milliseconds per attempt-duration: the controls' clock
  double mu_ = 0.0, sigma_ = 0.0;
  std::vector<ClientExtra> client_extra_;  // beside clients_
  MonotoneWakeQueue reaches_, responds_;
  std::vector<std::int64_t> row_inflight_, mark_;
  std::vector<double> last_commit_;
  std::vector<char> row_busy_;
  std::vector<Fifo> row_queue_;
  Fifo limit_queue_;
  Ring<Timeout> timeouts_;
  double timeout_front_ = inf;  // next_timeout_time(), when timeout_front_known_
  bool timeout_front_known_ = false;
  std::vector<double> latencies_;
  // The one-event shortcut's.
  std::vector<EngineFlight> flights_;
  IntervalUnion busy_union_;
  std::vector<DeferredHook> hooks_;
  std::int64_t hook_seq_ = 0;
  double last_leave_ = -inf;
  std::int64_t service_seq_ = 0, admitted_ = 0;
  std::int64_t rejected_ = 0, served_ = 0, lost_ = 0, timed_out_ = 0;
  double queue_wait_sum_ = 0.0, area_limit_ = 0.0;
  std::int64_t queue_wait_n_ = 0;
  RetryBudget budget_;
  CircuitBreaker breaker_;
  Switch adaptive_;
  std::int64_t retries_denied_ = 0, breaker_rejected_ = 0, throttled_ = 0, injected_ = 0, deadline_lost_ = 0;
  std::int64_t effects_ = 0, duplicate_effects_ = 0, hidden_effects_ = 0;
  RecoveryMeter recovery_;
};

// One run on the tier given (Full: the full tier; false needs !has_server_features(s)).
template <bool Full, class Observer, bool Lean = false>
RunResult run_engine_tier(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
                          Observer& observer, EngineScratch* scratch = nullptr) {
  switch (s.model) {
    case Model::collision:
      return Engine<Model::collision, Full, Observer, Lean>(s, seed, run_index, options, observer, scratch).run();
    case Model::free:
      return Engine<Model::free, Full, Observer, Lean>(s, seed, run_index, options, observer, scratch).run();
    case Model::shared:
      return Engine<Model::shared, Full, Observer, Lean>(s, seed, run_index, options, observer, scratch).run();
    case Model::ps:
      return Engine<Model::ps, Full, Observer, Lean>(s, seed, run_index, options, observer, scratch).run();
    case Model::none:
      if constexpr (Full)
        return Engine<Model::none, true, Observer, Lean>(s, seed, run_index, options, observer, scratch).run();
      break;  // has_server_features: never on the plain tier
  }
  return {};
}

// Whether a run of s takes the full tier, and then whether its lean build.
inline bool full_tier(const Scenario& s, const EngineOptions& options) {
  return options.full_tier || has_server_features(s);
}
inline bool lean_build(const Scenario& s, const EngineOptions& options) {
  return full_tier(s, options) && options.lean && lean_applies(s);
}

// One run on the tier and build the scenario and options choose.
template <class Observer>
RunResult run_engine_chosen(bool full, bool lean, const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                            const EngineOptions& options, Observer& observer, EngineScratch* scratch) {
  if (!full) return run_engine_tier<false>(s, seed, run_index, options, observer, scratch);
  return lean ? run_engine_tier<true, Observer, true>(s, seed, run_index, options, observer, scratch)
              : run_engine_tier<true>(s, seed, run_index, options, observer, scratch);
}

// One run: the plain tier unless an option is set or the full tier is asked for; storage lent when
// scratch is given.
template <class Observer>
RunResult run_engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
                     Observer& observer, EngineScratch* scratch = nullptr) {
  return run_engine_chosen(full_tier(s, options), lean_build(s, options), s, seed, run_index, options, observer,
                           scratch);
}

}  // namespace retrylab::montecarlo::detail

#include "montecarlo/lockstep.hpp"   // the lock-step shortcut's member functions
#include "montecarlo/one_event.hpp"  // the one-event shortcut's member functions

#undef RL_HOT
