#pragma once
// The event core's steps (internal; the member functions of Engine in montecarlo/engine.hpp, defined
// here to keep that file to the core's shape): the two loops, a client's arrival and send, the end
// of a service, the reply reaching a client, a client's failure and the run's result.
#include "montecarlo/engine.hpp"

namespace retrylab::montecarlo::detail {

// The full tier's loop: every event source, in the order of the header's invariants.
template <Model M, class P, class Observer, class Faults>
inline RunResult Engine<M, P, Observer, Faults>::run_full() {
  for (;;) {
    const double te = next_end_time();
    const double tw = wakes_.top_time();
    // Each lane's earliest event (+inf when its component is absent or off: not looked at).
    const double tr = parts_.template next_time<lane_response>(*this);
    const double tt = parts_.template next_time<lane_timeout>(*this);
    const double th = parts_.template next_time<lane_reach>(*this);
    const double ts = parts_.template next_time<lane_send>(*this);
    const double td = parts_.template next_time<lane_deadline>(*this);
    const double t =
        std::min(std::min(std::min(te, std::min(tw, next_arrival_)), std::min(std::min(tr, ts), std::min(tt, th))), td);
    if (settle() ? t == inf : !(t < horizon_)) break;
    advance(t);
    if (te == t) {
      end_group();
    } else if (tr == t) {
      parts_.template fire<lane_response>(*this);
    } else if (tt == t) {
      parts_.template fire<lane_timeout>(*this);
    } else if (td == t) {
      parts_.template fire<lane_deadline>(*this);
    } else if (th == t) {
      parts_.template fire<lane_reach>(*this);
    } else if (ts == t) {
      parts_.template fire<lane_send>(*this);
    } else {
      start_next(t, tw);
      if (tally_.waiting >= s_.measurement.collapse) return finish(StopReason::collapsed, t);
    }
    if (const auto why = stopped()) return finish(*why, t_);
  }
  if (settle()) return finish(StopReason::finished, t_);  // every request resolved, every attempt ended
  return finish(StopReason::horizon, horizon_);
}

// The plain tier's loop: the same events in the same order as the full tier's with its lanes
// empty (service ends before starts at one instant, arrivals before wake-ups), written for the two
// sources it has; only an end can finish or drain the run, only an arrival collapse it.
template <Model M, class P, class Observer, class Faults>
inline RunResult Engine<M, P, Observer, Faults>::run_plain() {
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
      if (tally_.waiting >= s_.measurement.collapse) return finish(StopReason::collapsed, ts);
    }
  }
  return finish(StopReason::horizon, horizon_);
}

// Exchanges the run's containers with the lent storage's (member containers, not references into
// the storage: the hot loop then reaches them as before, one load from `this`).
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::swap_storage() noexcept {
  using std::swap;
  swap(clients_, lent_->clients);
  swap(free_clients_, lent_->free_clients);
  if constexpr (full) {
    swap(jobs_, lent_->jobs);
    swap(client_extra_, lent_->client_extra);
    swap(flights_, lent_->flights);
    // Only a component with storage of its own (a Scratch of its own) has a slot to lend: a build
    // may hold components outside FullParts (a test's), which keep nothing between runs.
    parts_.each([&](auto& p) RL_HOOK {
      using C = std::remove_cvref_t<decltype(p)>;
      if constexpr (!std::is_same_v<typename C::Scratch, Component::Scratch>) p.lend(lent_->template of<C>());
    });
  }
}

// Empties every container a run fills (lent ones hold an earlier run's entries), keeping memory.
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::empty_storage(const Scenario& s) {
  const auto expected =
      static_cast<std::size_t>(std::min<std::int64_t>(s.traffic.clients + 64, s.measurement.collapse + 64));
  clients_.clear();
  clients_.reserve(expected);
  free_clients_.clear();
  wakes_.reset(expected);
  if constexpr (full) {
    jobs_.reset(fifo_ends(s));
    client_extra_.clear();
    parts_.each([](auto& p) RL_HOOK { p.reset(); });
  }
}

template <Model M, class P, class Observer, class Faults>
inline std::int32_t Engine<M, P, Observer, Faults>::new_client(double t, bool burst) {
  std::int32_t slot;
  if (free_count_ > 0) {
    slot = free_clients_[--free_count_];
  } else {
    slot = static_cast<std::int32_t>(clients_.size());
    clients_.push_back({});
    if constexpr (full) client_extra_.push_back({});
  }
  double base = s_.backoff.base;
  if constexpr (full) {
    // Copied from a constant: `= ClientExtra{}` built the record on the stack in stores of 4 and 8
    // bytes and copied it in 16-byte loads, which could not be forwarded from those stores (a stall on
    // every arrival: 63% of new_client's time, 11% of the run with a client timeout).
    static constexpr ClientExtra fresh{};
    client_extra_[slot] = fresh;
    parts_.each([&](auto& p) RL_HOOK { p.on_new_client(*this, slot, base); });
  }
  const std::int64_t serial = tally_.arrive(t, warmup_);
  clients_[slot] = {t, base, serial, 0, burst};
  observer_.on_arrival(serial, t, burst);
  if constexpr (full) parts_.each([&](auto& p) RL_HOOK { p.on_arrival(*this, slot, t); });
  return slot;
}

// A client sends an attempt now, unless a component refuses the call locally at the decision's send
// step (a breaker, adaptive throttling): then the call fails at once, unsent (a `refused` outcome: no
// attempt, no work), and the client backs off.
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::send(std::int32_t c) {
  if constexpr (full) {
    Decision d{.ask = Ask::send, .verb = Verb::send, .client = c};
    parts_.decide(*this, d);
    if (d.verb == Verb::refuse) {
      if constexpr (requires { observer_.on_refused(std::int64_t{0}, 0.0); })
        observer_.on_refused(clients_[c].serial, t_);
      Outcome o{.client = c, .kind = OutcomeKind::refused};
      hear(o);
      fail(o);
      return;
    }
    if (d.verb == Verb::wait) {  // not sent now (a rate limiter's token): it asks again at now + d.sleep
      wakes_.push(t_ + d.sleep, c);
      return;
    }
  }
  send_attempt(c);
}

// The attempt itself: a job slot, its id, on_send, then the network or the server.
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::send_attempt(std::int32_t c) {
  const std::int32_t j = jobs_.add();
  Job& job = jobs_[j];
  job.id = tally_.attempts++;
  pulse_.attempt(tally_.attempts, t_, horizon_, tally_.burst_left, s_.traffic.clients);
  if (t_ >= warmup_) ++tally_.window_attempts;
  job.client = c;
  if constexpr (separate_send) jobs_.extra(j).sent = t_;
  if constexpr (full && P::cancels) jobs_.extra(j).stage = Stage::sent;
  if constexpr (full) parts_.each([&](auto& p) RL_HOOK { p.on_send(*this, c, j); });
  observer_.on_start(job.id, clients_[c].serial, t_);
  if constexpr (full) {
    if (parts_.any([&](auto& p) RL_HOOK { return p.carries(*this, j); })) return;
  }
  reach(j);
}

// Moves the clock to t, integrating the window's time averages and virtual time.
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::advance(double t) noexcept {
  if (!(t > t_)) return;
  const auto n = static_cast<double>(in_service_);
  if (t > warmup_) {
    const double dt = t - (t_ > warmup_ ? t_ : warmup_);
    tally_.area_waiting += static_cast<double>(tally_.waiting) * dt;
    if (n > 0) tally_.busy += dt;
    if constexpr (full) {
      if constexpr (virtual_time) {
        if (n > 0) tally_.work += dt;  // one server at rate 1
      } else {
        tally_.work += n * dt;  // every job served at rate 1
      }
      parts_.each([&](auto& p) RL_HOOK { p.on_advance(dt); });
    }
  }
  if constexpr (virtual_time) {
    if constexpr (!full) {
      if (t_ < warmup_ && warmup_ <= t) v_warmup_ = n > 0 ? v_ + (warmup_ - t_) / n : v_;
    }
    if (n > 0) v_ += (t - t_) / n;
  }
  t_ = t;
}

// The plain tier's work meter: the service attempt j received inside the window, given its (real
// or virtual) end.
template <Model M, class P, class Observer, class Faults>
inline double Engine<M, P, Observer, Faults>::service_in_window(const Job& job, double end) const noexcept {
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
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::end_group() {
  const double key = jobs_.top_time();
  if constexpr (virtual_time) v_ = key;  // snap: the group has received exactly its service
  const std::int32_t first = jobs_.top_job();
  jobs_.pop_end();
  if constexpr (P::cancels) drop_cancelled();
  if constexpr (!full) prefetch_client_ahead();
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
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::prefetch_client_ahead() noexcept {
  constexpr std::size_t ahead = 8;
  if (jobs_.ends_size() > ahead) {
    const EngineClient* c = clients_.data() + jobs_[jobs_.end_job_at(ahead)].client;
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*c));  // (GCC 12 left __builtin_prefetch out of this loop)
#else
    __builtin_prefetch(c);
#endif
  }
}

// end_group for two or more simultaneous ends (kept out of line: the rare case).
template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::end_many(std::int32_t first, double key) {
  group_.clear();
  group_.push_back(first);
  while (!jobs_.ends_empty() && jobs_.top_time() == key) {
    group_.push_back(jobs_.top_job());
    jobs_.pop_end();
    if constexpr (P::cancels) drop_cancelled();
  }
  model_.decide(*this, group_);
  if constexpr (full) {
    for (const std::int32_t j : group_) {
      if constexpr (P::cancels) jobs_.extra(j).stage = Stage::done;
      if (!jobs_[j].rejected) parts_.each([&](auto& p) RL_HOOK { p.on_served(*this, j); });
    }
  }
  if constexpr (full && requires { observer_.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); }) {
    for (const std::int32_t j : group_) {
      const Job& job = jobs_[j];
      if (!job.rejected) observer_.on_service(job.id, static_cast<std::int32_t>(row_of(j)), job.start, t_, job.success);
    }
  }
  for (const std::int32_t j : group_) {
    --in_service_;
    if (!jobs_[j].rejected) model_.on_leave(*this, j);
  }
  if constexpr (full) {
    for (const std::int32_t j : group_)
      if (!jobs_[j].rejected) release_server(j);
  }
  for (const std::int32_t j : group_) respond(j);
  if constexpr (Faults::planted && M == Model::shared) doomed_leave_now();
}

// end_group for a group of one, in the same order of steps.
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::end_one(std::int32_t j) {
  Job& job = jobs_[j];
  if constexpr (full) {
    if constexpr (P::cancels) jobs_.extra(j).stage = Stage::done;
    if (job.rejected) {
      --in_service_;
      respond(j);
      return;
    }
  }
  job.success = model_.decide_one(*this, j);
  if constexpr (full) parts_.each([&](auto& p) RL_HOOK { p.on_served(*this, j); });
  if constexpr (full && requires { observer_.on_service(std::int64_t{0}, std::int32_t{0}, 0.0, 0.0, false); })
    observer_.on_service(job.id, static_cast<std::int32_t>(row_of(j)), job.start, t_, job.success);
  --in_service_;
  model_.on_leave(*this, j);
  if constexpr (full) release_server(j);
  respond(j);
  if constexpr (Faults::planted && M == Model::shared) doomed_leave_now();
}

// The outcome reaches the client (unless it timed out: then it is discarded).
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::deliver(std::int32_t j) {
  // A reference is safe: nothing below takes a new job slot (no attempt is sent from here).
  Job& slot = jobs_[j];
  const Job& job = slot;
  const std::int64_t id = slot.id;
  if constexpr (full) {
    slot.id = -1;  // dead: a pending timeout for it no longer applies
    parts_.each([&](auto& p) RL_HOOK { p.on_job_done(*this, j); });
  }
  jobs_.free_job(j);
  EngineClient& c = clients_[job.client];
  const double t = t_;
  Outcome o{.job = j,
            .client = job.client,
            .kind = job.success    ? OutcomeKind::success
                    : job.rejected ? OutcomeKind::rejected
                                   : OutcomeKind::failed};
  if constexpr (full) {
    if (!parts_.all([&](auto& p) RL_HOOK { return p.on_reply(*this, j); })) return;
    if (job.orphaned) return;
    hear(o);
  }
  observer_.on_end(id, c.serial, sent_of(j), t, job.success);
  if constexpr (full) {
    tally_.attempt_ended(sent_of(j), t, warmup_);
  } else if (t >= warmup_) {  // tally_.attempt_ended, with the work in the same branch (hot path)
    tally_.sojourn_sum += t - job.start;
    ++tally_.sojourn_n;
    if (Faults::planted && !std::isnan(cut_)) {
      tally_.work += service_in_window(job, cut_);
    } else {
      tally_.work += service_in_window(job, virtual_time ? job.end : t);
    }
  }
  if constexpr (full) {
    Decision d{
        .ask = Ask::claim, .verb = job.success ? Verb::answered : Verb::retry, .client = job.client, .outcome = &o};
    parts_.decide(*this, d);
    if (d.verb == Verb::absorb) return;
  }
  if (job.success) {
    if constexpr (full) parts_.each([&](auto& p) RL_HOOK { p.on_succeeded(*this, job.client, t - c.arrival); });
    if constexpr (requires { observer_.on_succeeded(std::int64_t{0}, 0.0, 0.0); })
      observer_.on_succeeded(c.serial, t, t - c.arrival);
    tally_.succeed(c.arrival, t, c.burst, warmup_, s_.traffic.clients);
    release_client(job.client);
  } else {
    fail(o);
  }
}

// Outcome o (of an attempt, or a refused call) is made known: completed by the components that know
// more (describe), then heard by every one (on_outcome).
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::hear(Outcome& o) {
  parts_.each([&](auto& p) RL_HOOK { p.describe(*this, o); });
  parts_.each([&](auto& p) RL_HOOK { p.on_outcome(*this, std::as_const(o)); });
  // Optional hook (attempt traces, montecarlo/trace.hpp: a failure's kind): the completed record.
  if constexpr (requires { observer_.on_outcome(std::int64_t{0}, std::as_const(o)); })
    observer_.on_outcome(clients_[o.client].serial, std::as_const(o));
}

// The client stops waiting for attempt j: failed for it, orphaned at the server.
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::time_out(std::int32_t j) {
  Job& job = jobs_[j];
  job.orphaned = true;
  const EngineClient& c = clients_[job.client];
  if constexpr (requires { observer_.on_timeout(std::int64_t{0}, std::int64_t{0}, 0.0); })
    observer_.on_timeout(job.id, c.serial, t_);
  Outcome o{.job = j, .client = job.client, .kind = OutcomeKind::timeout};
  hear(o);
  observer_.on_end(job.id, c.serial, sent_of(j), t_, false);
  tally_.attempt_ended(sent_of(j), t_, warmup_);
  Decision d{.ask = Ask::claim, .verb = Verb::retry, .client = job.client, .outcome = &o};
  parts_.decide(*this, d);
  if (d.verb == Verb::absorb) return;
  fail(o);
}

// Attempt j (in service) is cancelled: it leaves the server now without an outcome.
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::cancel(std::int32_t j) {
  static_assert(P::cancels, "only a component that declares cancels may cancel");
  Job& job = jobs_[j];
  job.cancelled = job.orphaned = true;
  job.success = false;
  ++cancelled_;
  --in_service_;
  if (!job.rejected) {
    model_.on_leave(*this, j);
    release_server(j);
  }
  // No on_end: a cancelled attempt neither succeeded nor failed; observers that ask are told.
  hear_cancelled(j);
  job.id = -1;  // dead: no longer an attempt of its client
  parts_.each([&](auto& p) RL_HOOK { p.on_job_done(*this, j); });
}

// Attempt j (queued at the server) is cancelled: out of its queue, its slot freed, a `cancelled` outcome.
template <Model M, class P, class Observer, class Faults>
inline bool Engine<M, P, Observer, Faults>::withdraw(std::int32_t j) {
  static_assert(P::cancels, "only a component that declares cancels may cancel");
  Withdrawn where = Withdrawn::not_held;
  parts_.each([&](auto& p) RL_HOOK {
    if (where == Withdrawn::not_held) where = p.withdraws(*this, j);
  });
  if (where == Withdrawn::not_held) return false;
  if (where == Withdrawn::after_admission) --admitted_;
  parts_.each([&](auto& p) RL_HOOK { p.on_withdrawn(*this, j, where); });
  // It reached the server and leaves it unserved: the series' server queue counts it out.
  if constexpr (requires { observer_.on_release(t_); }) observer_.on_release(t_);
  Job& job = jobs_[j];
  job.cancelled = job.orphaned = true;  // it leaves the server unserved, as a cancel in service does
  job.success = false;
  hear_cancelled(j);
  job.id = -1;
  parts_.each([&](auto& p) RL_HOOK { p.on_job_done(*this, j); });
  jobs_.free_job(j);
  return true;
}

template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::hear_cancelled(std::int32_t j) {
  const Job& job = jobs_[j];
  if constexpr (requires { observer_.on_cancel(std::int64_t{0}, std::int64_t{0}, 0.0); })
    observer_.on_cancel(job.id, clients_[job.client].serial, t_);
  tally_.attempt_ended(sent_of(j), t_, warmup_);
  Outcome o{.job = j, .client = job.client, .kind = OutcomeKind::cancelled};
  hear(o);
}

// Attempt j ends for its client now (a `cancelled` outcome); the server carries on, its reply discarded.
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::orphan(std::int32_t j) {
  static_assert(P::cancels, "only a component that declares cancels may cancel");
  Job& job = jobs_[j];
  job.orphaned = true;
  hear_cancelled(j);
  parts_.each([&](auto& p) RL_HOOK { p.on_job_done(*this, j); });
}

// Client ci's request failed now (outcome o: an attempt failed, was rejected or timed out, or the call
// was refused locally): it leaves (retries off), or the decision fold runs its steps (before_sleep:
// retry or give up; sleep: the backoff, max'd with the Retry-After; after_sleep: retry or give up),
// and it gives up (lost) or sleeps and retries.
template <Model M, class P, class Observer, class Faults>
RL_HOT void Engine<M, P, Observer, Faults>::fail(const Outcome& o) {
  const std::int32_t ci = o.client;
  EngineClient& c = clients_[ci];
  const double t = t_;
  if (!s_.client.retries) {
    if (c.burst) tally_.burst_left_at(t, s_.traffic.clients);
    release_client(ci);
    return;
  }
  if (c.failures < std::numeric_limits<std::int32_t>::max()) ++c.failures;
  double sleep = 0.0;
  if constexpr (full) {
    Decision d{
        .ask = Ask::before_sleep, .verb = Verb::retry, .client = ci, .outcome = &o, .retry_after = o.retry_after};
    parts_.decide(*this, d);
    if (d.verb == Verb::give_up) {
      give_up(ci);
      return;
    }
    d.ask = Ask::sleep;
    parts_.decide(*this, d);
    if (!d.drawn) d.sleep = sampler_.sleep(c.failures, c.prev, sleeps_);
    d.sleep = std::max(d.sleep, d.retry_after);
    d.ask = Ask::after_sleep;
    parts_.decide(*this, d);
    if (d.verb == Verb::give_up) {
      give_up(ci);
      return;
    }
    sleep = d.sleep;
  } else {
    sleep = sampler_.sleep(c.failures, c.prev, sleeps_);
  }
  // Optional hook (attempt traces, montecarlo/trace.hpp): the sleep chosen before retry k.
  if constexpr (requires { observer_.on_sleep(c.serial, c.failures, sleep); })
    observer_.on_sleep(c.serial, c.failures, sleep);
  wakes_.push(t + sleep, ci);
}

// Client ci gives up now: the request is lost and the client leaves.
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::give_up(std::int32_t ci) {
  EngineClient& c = clients_[ci];
  ++lost_;
  parts_.each([&](auto& p) RL_HOOK { p.on_give_up(*this, ci); });
  if constexpr (requires { observer_.on_give_up(std::int64_t{0}, 0.0); }) observer_.on_give_up(c.serial, t_);
  if (c.burst) tally_.burst_left_at(t_, s_.traffic.clients);
  release_client(ci);
}

// Planted fault only (shared_doomed_leave_at_commit): after a commit on `shared`, every attempt
// still in service is doomed and leaves now, failed.
template <Model M, class P, class Observer, class Faults>
inline void Engine<M, P, Observer, Faults>::doomed_leave_now() {
  if (!faults_(Fault::shared_doomed_leave_at_commit) || model_.last_commit(0) != t_) return;
  while (!jobs_.ends_empty()) {
    const std::int32_t j = jobs_.top_job();
    jobs_.pop_end();
    Job& job = jobs_[j];
    if constexpr (P::cancels) {
      if (job.cancelled) {
        jobs_.free_job(j);
        --cancelled_;
        continue;
      }
    }
    job.success = false;
    --in_service_;
    if constexpr (full) {
      if (!job.rejected) release_server(j);
    }
    cut_ = v_;  // it received service up to now
    respond(j);
    cut_ = nan;
  }
}

template <Model M, class P, class Observer, class Faults>
inline RunResult Engine<M, P, Observer, Faults>::finish(StopReason why, double stop) {
  pulse_.end(tally_.attempts);
  advance(stop);
  if constexpr (!full) {
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

template <Model M, class P, class Observer, class Faults>
inline RunResult Engine<M, P, Observer, Faults>::plain_result(StopReason why, double stop) const {
  RunResult r = tally_.result(s_.traffic.clients, why, stop, warmup_);
  r.lost_fraction = r.successes > 0 ? 0.0 : nan;
  const auto& defs = component_metrics::defs;  // no component: each metric at its value without it
  for (std::size_t i = 0; i < defs.size(); ++i) r.extra[i] = defs[i].when_absent(r);
  return r;
}

// The tally's counts, each component's metrics, then what the core derives from them.
template <Model M, class P, class Observer, class Faults>
inline RunResult Engine<M, P, Observer, Faults>::full_result(StopReason why, double stop) {
  RunResult r = tally_.result(s_.traffic.clients, why, stop, warmup_);
  r.lost = lost_;
  r.lost_fraction =
      tally_.successes + lost_ > 0 ? static_cast<double>(lost_) / static_cast<double>(tally_.successes + lost_) : nan;
  fill_metrics(*this, parts_, r, stop);
  return r;
}

}  // namespace retrylab::montecarlo::detail
