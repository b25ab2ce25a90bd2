#pragma once
// The server engine (internal; simulate_run is the public face): one run of a scenario that sets any
// server option (Scenario::server), docs/models.md §1–§5 generalised. Scenarios without them
// run the original event loop (engine.hpp), untouched, so their results stay byte-identical.
//
// What is simulated (time unit: the MEAN attempt duration; defaults reproduce docs/models.md):
//  - A client sends an attempt; it reaches the server after a network delay d1 (0 by default), is
//    admitted or not (concurrency limit), waits for its row's lock if there is one, is served for
//    its service requirement S (deterministic 1, exponential, lognormal), and its outcome reaches
//    the client after a second delay d2. The client sleeps from that moment. Attempts counted,
//    `attempt_rate`, `sojourn` and observer on_start/on_end are the client's view (send, receipt).
//  - Rows: each attempt touches one of M rows, uniformly at random. Conflicts only within a row:
//    `collision`: an attempt fails iff another attempt on its row overlaps its service [start,end);
//    `free`/`shared`: first-commit-wins per row (a successful commit on its row in (start, end]
//    dooms it; simultaneous eligible commits on one row: one uniform winner). `shared`'s
//    processor-sharing server is ONE server shared by all rows (and by rejections that cost work);
//    `collision`/`free` serve every attempt at rate 1, independently. `ps`: never a conflict.
//    `none`: an uncontended dependency, every attempt served alone at rate 1, failing only by
//    injection (failure_prob, the outage): the failing-dependency scenarios.
//  - Lock (per row, FIFO): an admitted attempt waits until its row is free, then runs alone, so
//    it always succeeds (no overlap on its row, no commit on its row during its service).
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
//    the attempt is failed for it (on_end(…, send + τ, false), backoff without Retry-After) and
//    orphaned: the server carries on (it holds its limit slot, row lock and share of the server, its
//    commit still dooms others), and its outcome, when it comes, is discarded (not a success).
//  - Retry limit A: when a client's A-th attempt fails (or times out) it gives up: the request is
//    lost, the client leaves (a burst client counts toward `drained`: it has left).
//  - Effects (with a timeout, the only way a client retries an attempt that succeeds): each successful
//    service end takes effect unless the idempotency key is fixed and the request already took
//    effect; a client's slot is kept until none of its attempts is at the server, so late successes
//    are counted on their request (duplicate_effects, hidden_effects).
//  - Recovery (recovery_window > 0): outcomes at the server binned after outage_end (ServerOptions).
//  - Settle: after the horizon no client arrives; the run ends when no event is left (finished): every
//    request has resolved and every attempt has ended at the server (no early stop when a burst drains).
// Simultaneous events at one instant: service ends, then responses reaching clients, then client
// timeouts, then attempts reaching the server, then sends (arrivals before wake-ups, as in
// engine.hpp); each queue in (time, sequence) order. Random numbers: the original streams for arrivals, sleeps and
// tie-breaks; new streams (random.hpp) for service, delay, population, rows and Retry-After, each
// drawn only when its feature is on.
// Optional observer hooks besides engine.hpp's: on_admit(t, admitted, limit) after each admission;
// on_reject(attempt, client serial, t, retry_after) at each rejection (t = when the server rejects);
// on_service_start(attempt, row, t) and on_service(attempt, row, start, end, success) when an
// admitted attempt's service starts and ends (server view); on_timeout(attempt, client serial, t)
// just before the on_end of an attempt its client stopped waiting for; on_give_up(client serial, t)
// when a client gives up (retry limit); on_retry_denied(client serial, t) when its budget refuses a
// retry (just before its on_give_up).
// EngineOptions: only the planted-fault build reads it here (its `fault`, montecarlo/faults.hpp:
// rows_ignored, lognormal_sigma_is_cv, exponential_service_rate, lock_released_early); the real
// build has no fault field and no hook, as in engine.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <vector>

#include "montecarlo/controls.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/normal.hpp"

namespace retrylab::montecarlo::detail {

// The per-attempt steps, inlined into the loop (each is called from one or two places).
#if defined(__GNUC__)
#define RL_HOT [[gnu::always_inline]] inline
#else
#define RL_HOT inline
#endif

// Service ends, ordered by (end key, push order). When every job needs the same service (deterministic
// service, rejections free) end keys are pushed in nondecreasing order (real: t + 1 with t never
// decreasing; virtual: V + 1 with V never decreasing), so a FIFO ring gives the same order as the heap
// at O(1): the common case runs at ring speed, the general one on the heap.
class EndQueue {
 public:
  explicit EndQueue(bool fifo) : fifo_(fifo) {}
  bool empty() const noexcept { return fifo_ ? ring_.empty() : heap_.empty(); }
  double top_time() noexcept { return fifo_ ? (ring_.empty() ? inf : ring_.front().time) : heap_.top_time(); }
  std::int32_t top_job() noexcept { return fifo_ ? ring_.front().job : heap_.top().client; }
  void push(double time, std::int32_t job) {
    if (fifo_) {
      ring_.push_back({time, job});
    } else {
      heap_.push(time, job);
    }
  }
  void pop() noexcept {
    if (fifo_) {
      ring_.pop_front();
    } else {
      heap_.pop();
    }
  }

 private:
  struct Entry {
    double time;
    std::int32_t job;
  };
  bool fifo_;
  Ring<Entry> ring_;
  MonotoneWakeQueue heap_;  // same (time, push order) as the 4-ary heap for any push order
};

template <Model M, class Observer>
class ServerEngine {
  static constexpr bool virtual_time = M == Model::shared || M == Model::ps;
  static constexpr bool first_commit = M == Model::free || M == Model::shared;

  struct Client {
    double arrival;
    double prev;  // decorrelated jitter state s_(k−1)
    std::int64_t serial;
    std::int32_t failures;
    bool burst, mixed, ignores;
    double paid = 0.0;  // what the budget took for the client's pending retry (handed back on success)
    // Effects (tracked only with timeouts): the slot is freed once the client has left and none of its
    // attempts is still at the server, so a late success still finds its request.
    std::int32_t pending = 0, effects = 0;
    bool left = false, lost = false;
  };
  struct Job {
    double sent = 0.0, reached = 0.0, admitted_at = 0.0, start = 0.0;
    double end = 0.0;  // real (collision, free) or virtual (shared, ps) service end
    double retry_after = 0.0;
    std::int64_t id = 0;   // attempt id (send order)
    std::int64_t seq = 0;  // service start order (collision marks)
    std::int64_t inflight = 0;
    std::int32_t client = 0, row = 0, next = -1;
    bool rejected = false, success = false;
    bool orphaned = false;   // its client timed out: the outcome is discarded
    BreakerTicket ticket{};  // the client's breaker admitted it so
    double paid = 0.0;
  };
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
  ServerEngine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
               Observer& observer)
      : s_(s),
        o_(s.server),
        observer_(observer),
        sampler_(s.backoff),
        mix_sampler_(s.server.mix_backoff),
        key_(run_key(seed, stable_hash(s))),
        arrivals_(key_, StreamId::arrivals, run_index),
        sleeps_(key_, StreamId::sleeps, run_index),
        ties_(key_, StreamId::ties, run_index),
        service_(key_, StreamId::service, run_index),
        delay_(key_, StreamId::delay, run_index),
        population_(key_, StreamId::population, run_index),
        rows_(key_, StreamId::rows, run_index),
        retry_after_(key_, StreamId::retry_after, run_index),
        horizon_(effective_horizon(s)),
        warmup_(s.warmup),
        limited_(s.server.limit > 0 || s.server.aimd),
        timeout_(s.server.timeout < inf),
        delayed_(s.server.delay > 0.0),
        limit_(s.server.aimd ? s.server.aimd_params.initial : s.server.limit),
        ends_(s.server.service == ServiceDist::deterministic && s.server.reject_cost == 0.0),
        pulse_(options.pulse),
        budget_(budget_of(s.server)),
        breaker_(breaker_preset(breaker_preset_names[s.server.breaker])),
        failures_(key_, StreamId::failures, run_index),
        throttle_(key_, StreamId::throttle, run_index),
        controls_(s.server.budget != 0 || s.server.breaker != 0),
        adaptive_(budget_.kind() == BudgetKind::adaptive),
        injects_(s.server.failure_prob > 0.0 || s.server.outage_end > 0.0),
        ms_(s.server.attempt_ms > 0.0 ? s.server.attempt_ms : 1.0),
        tracks_effects_(timeout_),
        recovery_(s.server.recovery_window > 0.0),
        settle_(s.server.settle) {
#if RETRYLAB_PLANTED_FAULTS
    fault_ = options.fault;
#endif
    const auto rows = static_cast<std::size_t>(o_.rows);
    if constexpr (M == Model::collision) {
      row_inflight_.assign(rows, 0);
      mark_.assign(rows, -1);
    }
    if constexpr (first_commit) {
      last_commit_.assign(rows, -inf);
      row_count_.assign(rows, 0);
      row_winner_.assign(rows, 0);
    }
    if (o_.lock) {
      row_busy_.assign(rows, 0);
      row_queue_.assign(rows, Fifo{});
    }
    const auto expected = static_cast<std::size_t>(std::min<std::int64_t>(s.clients + 64, s.collapse + 64));
    clients_.reserve(expected);
    wakes_.reserve(expected);
    if (o_.service == ServiceDist::lognormal) {
      const double cv = o_.service_cv;
      sigma_ = std::sqrt(std::log1p(cv * cv));
#if RETRYLAB_PLANTED_FAULTS
      if (fault_ == Fault::lognormal_sigma_is_cv) sigma_ = cv;  // planted fault: σ taken to be the CV
#endif
      mu_ = -0.5 * sigma_ * sigma_;  // E[S] = exp(μ + σ²/2) = 1
    }
    tally_.p99_target = (99 * s.clients + 99) / 100;  // ceil(0.99·N)
  }

  RunResult run() {
    if (s_.rate > 0.0) schedule_next_arrival(0.0);
    for (std::int64_t i = 0; i < s_.clients; ++i) {
      send(new_client(0.0, true));
      if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, 0.0);
    }
    // Only once the whole burst has arrived (a client rejected at once with retries off has left).
    if (const auto why = stopped()) return finish(*why, t_);
    for (;;) {
      // The network queues are empty without a delay, the timeouts without a timeout: not looked at.
      const double te = next_end_time();
      const double tr = delayed_ ? responds_.top_time() : inf;
      const double tt = timeout_ ? next_timeout_time() : inf;
      const double th = delayed_ ? reaches_.top_time() : inf;
      const double tw = wakes_.top_time();
      const double t = std::min(std::min(std::min(te, tr), std::min(tt, th)), std::min(tw, next_arrival_));
      if (settle_ ? t == inf : !(t < horizon_)) break;
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
        time_out(j);
      } else if (th == t) {
        const std::int32_t j = reaches_.top().client;
        reaches_.pop();
        reach(j);
      } else if (next_arrival_ <= tw) {
        const std::int32_t c = new_client(t, false);
        schedule_next_arrival(t);
        send(c);
        if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, t);
      } else {
        const std::int32_t c = wakes_.top().client;
        wakes_.pop();
        send(c);
      }
      if (const auto why = stopped()) return finish(*why, t_);
    }
    if (settle_) return finish(StopReason::finished, t_);  // every request resolved, every attempt ended
    return finish(StopReason::horizon, horizon_);
  }

 private:
  std::optional<StopReason> stopped() const noexcept {
    if (settle_) return std::nullopt;  // the loop runs until no event is left
    if (tally_.waiting == 0 && s_.rate == 0.0) return StopReason::finished;
    if (s_.rate > 0.0 && s_.clients > 0 && tally_.burst_left == s_.clients) return StopReason::drained;
    return std::nullopt;
  }

  void schedule_next_arrival(double from) {
    next_arrival_ = from + arrivals_.exponential() / s_.rate;
    if (!(next_arrival_ < horizon_)) next_arrival_ = inf;
  }

  std::int32_t new_client(double t, bool burst) {
    std::int32_t slot;
    if (!free_clients_.empty()) {
      slot = free_clients_.back();
      free_clients_.pop_back();
    } else {
      slot = static_cast<std::int32_t>(clients_.size());
      clients_.push_back({});
    }
    const bool mixed = o_.mix > 0.0 && population_.uniform() < o_.mix;
    const bool ignores = o_.ignore_retry_after > 0.0 && population_.uniform() < o_.ignore_retry_after;
    const double base = mixed ? o_.mix_backoff.base : s_.backoff.base;
    const std::int64_t serial = tally_.arrive(t, warmup_);
    clients_[slot] = {t, base, serial, 0, burst, mixed, ignores};
    observer_.on_arrival(serial, t, burst);
    if (controls_) budget_.on_request(t * ms_);
    return slot;
  }

  RL_HOT std::int32_t new_job() {
    if (!free_jobs_.empty()) {
      const std::int32_t j = free_jobs_.back();
      free_jobs_.pop_back();
      // Only what may be read before it is written again (send() sets the rest).
      Job& job = jobs_[j];
      job.rejected = job.success = job.orphaned = false;
      job.retry_after = 0.0;
      return j;
    }
    jobs_.push_back(Job{});
    return static_cast<std::int32_t>(jobs_.size() - 1);
  }

  double draw_delay() noexcept { return draw_leg(o_, delay_); }

  double draw_service() noexcept {
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
  void send(std::int32_t c) {
    BreakerTicket ticket{};
    if (controls_) {
      ticket = breaker_.admit(t_ * ms_);
      if (!ticket.admitted()) {
        ++breaker_rejected_;
        fail(c, 0.0, false);
        return;
      }
      if (!budget_.admit(t_ * ms_, adaptive_ ? throttle_.uniform() : 0.5)) {
        ++throttled_;
        fail(c, 0.0, false);
        return;
      }
    }
    const std::int32_t j = new_job();
    Job& job = jobs_[j];
    job.ticket = ticket;
    job.paid = clients_[c].paid;
    job.id = tally_.attempts++;
    pulse_.attempt(tally_.attempts, t_, horizon_, tally_.burst_left, s_.clients);
    if (t_ >= warmup_) ++tally_.window_attempts;
    job.client = c;
    job.sent = t_;
    if (tracks_effects_) ++clients_[c].pending;
    job.row = o_.rows > 1 ? static_cast<std::int32_t>(rows_.index(static_cast<std::uint64_t>(o_.rows))) : 0;
#if RETRYLAB_PLANTED_FAULTS
    if (fault_ == Fault::rows_ignored) job.row = 0;  // planted fault: the row is drawn, then every attempt is on row 0
#endif
    observer_.on_start(job.id, clients_[c].serial, t_);
    if (timeout_) timeouts_.push_back({t_ + o_.timeout, job.id, j});  // nondecreasing times: a FIFO
    if (o_.delay > 0.0) {
      reaches_.push(t_ + draw_delay(), j);
    } else {
      reach(j);
    }
  }

  // The attempt reaches the server: admission control.
  RL_HOT void reach(std::int32_t j) {
    jobs_[j].reached = t_;
    if (limited_ && admitted_ >= limit_) {
      if (o_.overflow == Overflow::queue) {
        push(limit_queue_, j);
      } else {
        reject(j);
      }
      return;
    }
    admit(j);
  }

  RL_HOT void admit(std::int32_t j) {
    Job& job = jobs_[j];
    ++admitted_;
    job.admitted_at = t_;
    job.inflight = admitted_;
    if constexpr (requires { observer_.on_admit(t_, admitted_, limit_); })
      observer_.on_admit(t_, admitted_, limited_ ? limit_ : std::int64_t{0});
    if (o_.lock) {
      const auto r = static_cast<std::size_t>(job.row);
      if (row_busy_[r]) {
        push(row_queue_[r], j);
        return;
      }
      row_busy_[r] = 1;
#if RETRYLAB_PLANTED_FAULTS
      if (fault_ == Fault::lock_released_early) row_busy_[r] = 0;  // planted fault: the lock passes on at service start
#endif
    }
    start_service(j, draw_service());
  }

  void reject(std::int32_t j) {
    Job& job = jobs_[j];
    job.rejected = true;
    ++rejected_;
    if (o_.retry_after > 0.0)
      job.retry_after =
          o_.retry_after_rule == RetryAfterRule::fixed ? o_.retry_after : 2.0 * o_.retry_after * retry_after_.uniform();
    if constexpr (requires { observer_.on_reject(std::int64_t{0}, std::int64_t{0}, t_, job.retry_after); })
      observer_.on_reject(job.id, clients_[job.client].serial, t_, job.retry_after);
    if (recovery_) record_completion(false);
    if (o_.reject_cost > 0.0) {
      start_service(j, o_.reject_cost);  // the server's work of saying no
    } else {
      respond(j);
    }
  }

  RL_HOT void start_service(std::int32_t j, double service) {
    Job& job = jobs_[j];
    job.start = t_;
    job.seq = service_seq_++;
    if (!job.rejected) {
      ++served_;
      if (t_ >= warmup_) {
        queue_wait_sum_ += t_ - job.reached;
        ++queue_wait_n_;
      }
      if constexpr (M == Model::collision) {
        const auto r = static_cast<std::size_t>(job.row);
        if (row_inflight_[r] > 0) mark_[r] = job.seq;  // it and every attempt in flight on its row overlap
        ++row_inflight_[r];
      }
    }
    if constexpr (requires { observer_.on_service_start(std::int64_t{0}, std::int32_t{0}, 0.0); }) {
      if (!job.rejected) observer_.on_service_start(job.id, job.row, t_);
    }
    if constexpr (virtual_time) {
      job.end = v_ + service;
    } else {
      job.end = t_ + service;
    }
    ++in_service_;
    ends_.push(job.end, j);
  }

  double next_end_time() noexcept {
    if (ends_.empty()) return inf;
    if constexpr (virtual_time) {
      return std::max(t_ + (ends_.top_time() - v_) * static_cast<double>(in_service_), t_);
    } else {
      return ends_.top_time();
    }
  }

  void advance(double t) noexcept {
    if (!(t > t_)) return;
    const auto n = static_cast<double>(in_service_);
    if (t > warmup_) {
      const double dt = t - (t_ > warmup_ ? t_ : warmup_);
      tally_.area_waiting += static_cast<double>(tally_.waiting) * dt;
      if (n > 0) tally_.busy += dt;
      if constexpr (virtual_time) {
        if (n > 0) tally_.work += dt;  // one server at rate 1
      } else {
        tally_.work += n * dt;  // every job served at rate 1
      }
      area_limit_ += static_cast<double>(limit_) * dt;
    }
    if constexpr (virtual_time) {
      if (n > 0) v_ += (t - t_) / n;
    }
    t_ = t;
  }

  // Every service ending now (one end key), resolved together: outcomes first, then the server
  // frees what they held (a row's lock, a limit slot), then the clients hear.
  void end_group() {
    const double key = ends_.top_time();
    if constexpr (virtual_time) v_ = key;  // snap: the group has received exactly its service
    const std::int32_t first = ends_.top_job();
    ends_.pop();
    if (ends_.empty() || ends_.top_time() != key) {
      end_one(first);  // the common case: no other service ends now
      return;
    }
    group_.clear();
    group_.push_back(first);
    while (!ends_.empty() && ends_.top_time() == key) {
      group_.push_back(ends_.top_job());
      ends_.pop();
    }
    decide(group_);
    for (const std::int32_t j : group_) {
      const Job& job = jobs_[j];
      if (job.rejected) continue;
      if (job.success) take_effect(job.client);
      if (recovery_) record_completion(job.success);
    }
    if constexpr (requires { observer_.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); }) {
      for (const std::int32_t j : group_) {
        const Job& job = jobs_[j];
        if (!job.rejected) observer_.on_service(job.id, job.row, job.start, t_, job.success);
      }
    }
    for (const std::int32_t j : group_) {
      --in_service_;
      if constexpr (M == Model::collision) {
        if (!jobs_[j].rejected) --row_inflight_[static_cast<std::size_t>(jobs_[j].row)];
      }
    }
    for (const std::int32_t j : group_) {
      if (!jobs_[j].rejected) release_server(j);
    }
    for (const std::int32_t j : group_) respond(j);
  }

  // end_group for a group of one, in the same order of steps.
  void end_one(std::int32_t j) {
    Job& job = jobs_[j];
    if (job.rejected) {
      --in_service_;
      respond(j);
      return;
    }
    if constexpr (M == Model::collision) {
      job.success = job.seq > mark_[static_cast<std::size_t>(job.row)] && !injected();
    } else if constexpr (first_commit) {
      double& last = last_commit_[static_cast<std::size_t>(job.row)];
      job.success = !(last > job.start) && !injected();
      if (job.success) last = t_;
    } else {
      job.success = !injected();
    }
    if (job.success) take_effect(job.client);
    if (recovery_) record_completion(job.success);
    if constexpr (requires { observer_.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); })
      observer_.on_service(job.id, job.row, job.start, t_, job.success);
    --in_service_;
    if constexpr (M == Model::collision) --row_inflight_[static_cast<std::size_t>(job.row)];
    release_server(j);
    respond(j);
  }

  void decide(const std::vector<std::int32_t>& g) {
    const double te = t_;
    if constexpr (M == Model::collision) {
      for (const std::int32_t j : g) {
        Job& job = jobs_[j];
        job.success = !job.rejected && job.seq > mark_[static_cast<std::size_t>(job.row)] && !injected();
      }
    } else if constexpr (M == Model::ps || M == Model::none) {
      for (const std::int32_t j : g) jobs_[j].success = !jobs_[j].rejected && !injected();
    } else {
      if (g.size() == 1) {
        Job& job = jobs_[g[0]];
        if (job.rejected) return;
        double& last = last_commit_[static_cast<std::size_t>(job.row)];
        job.success = !(last > job.start) && !injected();
        if (job.success) last = te;
        return;
      }
      // Simultaneous ends: eligibility against the commits before now (no commit on the row since
      // the attempt started); per row with >= 2 eligible, one uniform winner (ties stream, rows in
      // first-seen order); the winner is the winner-th eligible attempt of its row in end order.
      for (const std::int32_t j : g) {
        Job& job = jobs_[j];
        if (job.rejected) continue;
        job.success = !(last_commit_[static_cast<std::size_t>(job.row)] > job.start) && !injected();  // eligible
        if (job.success) ++row_count_[static_cast<std::size_t>(job.row)];
      }
      for (const std::int32_t j : g) {
        const auto r = static_cast<std::size_t>(jobs_[j].row);
        if (row_count_[r] > 0) {
          row_winner_[r] = row_count_[r] >= 2
                               ? static_cast<std::int64_t>(ties_.index(static_cast<std::uint64_t>(row_count_[r])))
                               : 0;
          row_count_[r] = -1;  // drawn
        }
      }
      for (const std::int32_t j : g) {
        Job& job = jobs_[j];
        if (job.rejected || !job.success) continue;
        const auto r = static_cast<std::size_t>(job.row);
        job.success = row_winner_[r]-- == 0;
        if (job.success) last_commit_[r] = te;
      }
      for (const std::int32_t j : g) {
        const auto r = static_cast<std::size_t>(jobs_[j].row);
        row_count_[r] = 0;
        row_winner_[r] = 0;
      }
    }
  }

  // An admitted attempt leaves the server: AIMD sample, the row's lock passes on, a limit slot frees.
  RL_HOT void release_server(std::int32_t j) {
    const Job& job = jobs_[j];
    --admitted_;
    if (o_.aimd) {
      const Aimd& a = o_.aimd_params;
      std::int64_t next = limit_;
      if (!job.success || t_ - job.admitted_at > a.timeout) {
        next = static_cast<std::int64_t>(static_cast<double>(limit_) * a.backoff);
      } else if (2 * job.inflight >= limit_) {
        next = limit_ + 1;
      }
      limit_ = std::min(a.max, std::max(a.min, next));
    }
    if (o_.lock) {
      const auto r = static_cast<std::size_t>(job.row);
      if (row_queue_[r].empty()) {
        row_busy_[r] = 0;
      } else {
        start_service(pop(row_queue_[r]), draw_service());
      }
    }
    while (limited_ && !limit_queue_.empty() && admitted_ < limit_) admit(pop(limit_queue_));
  }

  RL_HOT void respond(std::int32_t j) {
    if (o_.delay > 0.0) {
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
    slot.id = -1;  // dead: a pending timeout for it no longer applies
    free_jobs_.push_back(j);
    if (tracks_effects_) {
      --clients_[job.client].pending;
      if (job.orphaned) {
        free_if_done(job.client);
        return;
      }
    }
    if (job.orphaned) return;
    Client& c = clients_[job.client];
    const double t = t_;
    if (controls_) {
      breaker_.record(t * ms_, job.ticket, job.success);
      if (job.success) {
        budget_.on_success(t * ms_, job.paid);
      } else {
        budget_.on_failure(t * ms_, false);
      }
    }
    observer_.on_end(id, c.serial, job.sent, t, job.success);
    tally_.attempt_ended(job.sent, t, warmup_);
    if (job.success) {
      latencies_.push_back(t - c.arrival);
      tally_.succeed(c.arrival, t, c.burst, warmup_, s_.clients);
      release_client(job.client);
    } else {
      fail(job.client, job.rejected && !c.ignores ? job.retry_after : 0.0, false);
    }
  }

  // The earliest pending client timeout that still applies (stale ones are dropped here).
  double next_timeout_time() noexcept {
    while (!timeouts_.empty()) {
      const Timeout& x = timeouts_.front();
      const Job& job = jobs_[x.job];
      if (job.id == x.id && !job.orphaned) return x.time;
      timeouts_.pop_front();
    }
    return inf;
  }

  // The client stops waiting for attempt j: failed for it, orphaned at the server.
  void time_out(std::int32_t j) {
    Job& job = jobs_[j];
    job.orphaned = true;
    ++timed_out_;
    const Client& c = clients_[job.client];
    if constexpr (requires { observer_.on_timeout(std::int64_t{0}, std::int64_t{0}, 0.0); })
      observer_.on_timeout(job.id, c.serial, t_);
    if (controls_) {
      breaker_.record(t_ * ms_, job.ticket, false);
      budget_.on_failure(t_ * ms_, true);
    }
    observer_.on_end(job.id, c.serial, job.sent, t_, false);
    tally_.attempt_ended(job.sent, t_, warmup_);
    fail(job.client, 0.0, true);
  }

  // Client c's attempt failed (or timed out, or was rejected locally) now: it leaves (retries off),
  // or gives up (lost: its retry limit is reached, its next attempt would start after its deadline,
  // or its budget refuses the retry), or sleeps max(backoff sleep, retry_after) and retries.
  void fail(std::int32_t ci, double retry_after, bool timed_out) {
    Client& c = clients_[ci];
    const double t = t_;
    if (!s_.retries) {
      if (c.burst) tally_.burst_left_at(t, s_.clients);
      release_client(ci);
      return;
    }
    if (c.failures < std::numeric_limits<std::int32_t>::max()) ++c.failures;
    std::int64_t limit = o_.max_attempts;
#if RETRYLAB_PLANTED_FAULTS
    if (fault_ == Fault::retry_limit_off_by_one && limit > 0) ++limit;  // planted fault: one attempt too many
#endif
    if (limit > 0 && c.failures >= limit) {
      give_up(ci);
      return;
    }
    double sleep = (c.mixed ? mix_sampler_ : sampler_).sleep(c.failures, c.prev, sleeps_);
    sleep = std::max(sleep, retry_after);
    if (t + sleep > c.arrival + o_.deadline) {
      ++deadline_lost_;
      give_up(ci);
      return;
    }
    if (controls_) {
      const RetryGrant grant = budget_.try_retry(t * ms_, timed_out);
      if (!grant.allowed) {
        ++retries_denied_;
        if constexpr (requires { observer_.on_retry_denied(std::int64_t{0}, 0.0); })
          observer_.on_retry_denied(c.serial, t);
        give_up(ci);
        return;
      }
      c.paid = grant.paid;
    }
    if constexpr (requires { observer_.on_sleep(c.serial, c.failures, sleep); })
      observer_.on_sleep(c.serial, c.failures, sleep);
    wakes_.push(t + sleep, ci);
  }

  // Client ci gives up now: the request is lost and the client leaves.
  void give_up(std::int32_t ci) {
    Client& c = clients_[ci];
    ++lost_;
    if (tracks_effects_) {
      c.lost = true;
      if (c.effects > 0) ++hidden_effects_;
    }
    if constexpr (requires { observer_.on_give_up(std::int64_t{0}, 0.0); }) observer_.on_give_up(c.serial, t_);
    if (c.burst) tally_.burst_left_at(t_, s_.clients);
    release_client(ci);
  }

  // Whether an attempt the server completes now, which would succeed, fails by injection.
  bool injected() noexcept {
    if (!injects_) return false;
    const double p = t_ >= o_.outage_start && t_ < o_.outage_end ? o_.outage_fraction : o_.failure_prob;
    if (!(p > 0.0) || !(failures_.uniform() < p)) return false;
    ++injected_;
    return true;
  }

  void release_client(std::int32_t c) {
    tally_.leave();
    if (tracks_effects_) {
      clients_[c].left = true;
      free_if_done(c);
    } else {
      free_clients_.push_back(c);
    }
  }

  void free_if_done(std::int32_t c) {
    if (clients_[c].left && clients_[c].pending == 0) free_clients_.push_back(c);
  }

  // A successful attempt of client ci completes at the server: its request takes effect, unless a
  // fixed idempotency key has already taken it.
  void take_effect(std::int32_t ci) {
    if (!tracks_effects_) return;  // without timeouts every effect is a success its client sees
    Client& c = clients_[ci];
    if (c.effects > 0 && o_.idempotency == Idempotency::fixed) return;
    ++effects_;
    if (c.effects > 0) ++duplicate_effects_;
    if (c.lost && c.effects == 0) ++hidden_effects_;
    ++c.effects;
  }

  // An attempt's outcome at the server now (service end, or rejection), for recovery_time.
  void record_completion(bool success) {
    if (t_ < o_.outage_start) {
      ++baseline_done_;
      baseline_ok_ += success;
    } else if (t_ >= o_.outage_end) {
      const double k = std::floor((t_ - o_.outage_end) / o_.recovery_window);
      if (k > 1e7) return;  // far beyond any horizon a study uses: not binned
      const auto bin = static_cast<std::size_t>(k);
      if (bins_.size() <= bin) bins_.resize(bin + 1, {0, 0});
      ++bins_[bin].first;
      bins_[bin].second += success;
    }
  }

  double recovery_time() const {
    const double baseline = baseline_done_ > 0 ? static_cast<double>(baseline_ok_) / static_cast<double>(baseline_done_)
                                               : 1.0 - o_.failure_prob;
    for (std::size_t k = 0; k < bins_.size(); ++k) {
      if (bins_[k].first == 0) continue;  // a window with no attempt does not count
      const double fraction = static_cast<double>(bins_[k].second) / static_cast<double>(bins_[k].first);
      if (fraction >= 0.95 * baseline) return static_cast<double>(k + 1) * o_.recovery_window;
    }
    return nan;
  }

  void push(Fifo& q, std::int32_t j) noexcept {
    jobs_[j].next = -1;
    if (q.tail < 0) {
      q.head = j;
    } else {
      jobs_[q.tail].next = j;
    }
    q.tail = j;
  }
  std::int32_t pop(Fifo& q) noexcept {
    const std::int32_t j = q.head;
    q.head = jobs_[j].next;
    if (q.head < 0) q.tail = -1;
    return j;
  }

  RunResult finish(StopReason why, double stop) {
    pulse_.end(tally_.attempts);
    advance(stop);
    RunResult r = tally_.result(s_.clients, why, stop, warmup_);
    const bool has_window = stop - warmup_ > 0.0;
    r.rejected = rejected_;
    r.served = served_;
    r.reject_fraction =
        tally_.attempts > 0 ? static_cast<double>(rejected_) / static_cast<double>(tally_.attempts) : nan;
    r.queue_wait = queue_wait_n_ > 0 ? queue_wait_sum_ / static_cast<double>(queue_wait_n_) : nan;
    r.mean_limit = limited_ && has_window ? area_limit_ / (stop - warmup_) : nan;
    r.lost = lost_;
    r.lost_fraction =
        tally_.successes + lost_ > 0 ? static_cast<double>(lost_) / static_cast<double>(tally_.successes + lost_) : nan;
    r.timed_out = timed_out_;
    r.retries_denied = retries_denied_;
    r.breaker_rejected = breaker_rejected_;
    r.throttled = throttled_;
    r.injected = injected_;
    r.deadline_lost = deadline_lost_;
    r.breaker_opened = controls_ ? breaker_.times_opened() : 0;
    r.effects = tracks_effects_ ? effects_ : r.successes;
    r.duplicate_effects = duplicate_effects_;
    r.hidden_effects = hidden_effects_;
    r.measured_recovery = recovery_;
    r.recovery_time = recovery_ ? recovery_time() : nan;
    r.latency_p50 = percentile(0.50);
    r.latency_p99 = percentile(0.99);
    return r;
  }

  // Nearest rank: the ceil(p·n)-th smallest latency.
  double percentile(double p) {
    if (latencies_.empty()) return nan;
    const auto n = latencies_.size();
    auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(n)));
    rank = std::clamp<std::size_t>(rank, 1, n);
    std::nth_element(latencies_.begin(), latencies_.begin() + static_cast<std::ptrdiff_t>(rank - 1), latencies_.end());
    return latencies_[rank - 1];
  }

  const Scenario& s_;
  const ServerOptions& o_;
  Observer& observer_;
  SleepSampler sampler_, mix_sampler_;
  std::uint64_t key_;
  Stream arrivals_, sleeps_, ties_, service_, delay_, population_, rows_, retry_after_;
  double horizon_, warmup_;
  bool limited_;
  bool timeout_;
  bool delayed_;
  std::int64_t limit_;  // the concurrency limit in force (fixed, or AIMD's current value)
  double mu_ = 0.0, sigma_ = 0.0;
#if RETRYLAB_PLANTED_FAULTS
  Fault fault_ = Fault::none;
#endif

  std::vector<Client> clients_;
  std::vector<std::int32_t> free_clients_;
  std::vector<Job> jobs_;
  std::vector<std::int32_t> free_jobs_, group_;
  MonotoneWakeQueue wakes_, reaches_, responds_;  // montecarlo/wake_queue.hpp
  EndQueue ends_;                                 // keyed by real (collision, free) or virtual (shared, ps) end
  std::vector<std::int64_t> row_inflight_, mark_, row_count_, row_winner_;
  std::vector<double> last_commit_;
  std::vector<char> row_busy_;
  std::vector<Fifo> row_queue_;
  Fifo limit_queue_;
  Ring<Timeout> timeouts_;
  std::vector<double> latencies_;

  double t_ = 0.0, v_ = 0.0, next_arrival_ = inf;
  std::int64_t service_seq_ = 0, in_service_ = 0, admitted_ = 0;
  Tally tally_;  // the counts both event loops share (engine.hpp)
  PulseWriter pulse_;
  std::int64_t rejected_ = 0, served_ = 0, lost_ = 0, timed_out_ = 0;
  double queue_wait_sum_ = 0.0, area_limit_ = 0.0;
  std::int64_t queue_wait_n_ = 0;
  // Client-side controls and injected failures (declared last: initialised after everything above).
  RetryBudget budget_;
  CircuitBreaker breaker_;
  Stream failures_, throttle_;
  bool controls_, adaptive_, injects_;
  double ms_;  // milliseconds per attempt-duration: the controls' clock
  std::int64_t retries_denied_ = 0, breaker_rejected_ = 0, throttled_ = 0, injected_ = 0, deadline_lost_ = 0;
  // Effects, recovery and settling (declared last, like the controls).
  bool tracks_effects_, recovery_, settle_;
  std::int64_t effects_ = 0, duplicate_effects_ = 0, hidden_effects_ = 0;
  std::int64_t baseline_done_ = 0, baseline_ok_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> bins_;  // (completed, succeeded) per recovery window
};

template <class Observer>
RunResult run_server_engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                            const EngineOptions& options, Observer& observer) {
  switch (s.model) {
    case Model::collision: return ServerEngine<Model::collision, Observer>(s, seed, run_index, options, observer).run();
    case Model::free: return ServerEngine<Model::free, Observer>(s, seed, run_index, options, observer).run();
    case Model::shared: return ServerEngine<Model::shared, Observer>(s, seed, run_index, options, observer).run();
    case Model::ps: return ServerEngine<Model::ps, Observer>(s, seed, run_index, options, observer).run();
    case Model::none: return ServerEngine<Model::none, Observer>(s, seed, run_index, options, observer).run();
  }
  return {};
}

#undef RL_HOT

}  // namespace retrylab::montecarlo::detail
