#pragma once
// The one-event shortcut of the event loop's full tier (internal; the member functions of Engine in
// montecarlo/engine.hpp that it declares under "The one-event shortcut", defined here to keep that
// file to the loop itself).
//
// A pure burst on `free` with network delay and no component on that does not allow the shortcut
// (Brooker's test; Engine::one_event_applies: rows, service times and the mixed population's
// ignoring of Retry-After allow it, as does the network that it needs): an
// attempt's legs and service depend on nothing another attempt does, and its reply and its client's
// sleep touch no shared state. So only its end is an event (the write reaching the server, where
// first commit wins decides it against the commits before): its row, first leg and service are
// drawn when it is sent; at its end the reply's leg and, after a failure, the sleep and the next
// attempt's draws follow at once. One event per attempt instead of four (send, reach, end, reply),
// docs/models.md §8.
// Invariants: the four-event loop's laws, not its numbers (the streams are drawn in another order;
// with fixed legs the same order); tests/montecarlo/one_event_test.cpp compares the two. The time
// integrals are sums over attempts and clients (the busy time a union of services, IntervalUnion);
// observers without server-view hooks get the same hooks in time order (DeferredHook).
#include "montecarlo/engine.hpp"

namespace retrylab::montecarlo::detail {

template <Model M, class P, class Observer, class Faults>
RunResult Engine<M, P, Observer, Faults>::one_event() {
  const auto n = static_cast<std::size_t>(s_.traffic.clients);
  flights_.assign(n, EngineFlight{});
  busy_union_.clear();
  hooks_.clear();
  for (std::size_t i = 0; i < n; ++i) one_event_send(new_client(0.0, true), 0.0, true);
  while (!wakes_.empty() && wakes_.top_time() < horizon_) {
    const double e = wakes_.top_time();
    tell_hooks_before(e);
    group_.clear();
    while (!wakes_.empty() && wakes_.top_time() == e) {
      group_.push_back(wakes_.top().client);
      wakes_.pop();
    }
    for (const std::int32_t c : group_) busy_union_.add(std::max(flights_[c].start, warmup_), e);
    one_event_decide(e);
    for (const std::int32_t c : group_) one_event_reply(c, e);
  }
  while (!wakes_.empty()) {  // in service at the horizon
    busy_union_.add(std::max(flights_[wakes_.top().client].start, warmup_), horizon_);
    wakes_.pop();
  }
  tell_hooks_before(inf);
  pulse_.end(tally_.attempts);
  const bool finished = tally_.waiting == 0;
  const double stop = finished ? last_leave_ : horizon_;
  if (stop > warmup_) tally_.area_waiting += static_cast<double>(tally_.waiting) * (stop - warmup_);
  tally_.busy = busy_union_.length();
  if (tally_.burst_left == s_.traffic.clients) tally_.drain_time = last_leave_;
  if (tally_.burst_successes >= tally_.p99_target && tally_.p99_target > 0) {
    // Every client arrived at 0, so a latency is its success time.
    std::vector<double>& latencies = parts_.template get<ServerView>().latencies();
    const auto k = latencies.begin() + static_cast<std::ptrdiff_t>(tally_.p99_target - 1);
    std::nth_element(latencies.begin(), k, latencies.end());
    tally_.drain_p99 = *k;
  }
  return full_result(finished ? StopReason::finished : StopReason::horizon, stop);
}

// Client c sends an attempt at t < horizon: counted; its row, first leg and service drawn now.
template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::one_event_send(std::int32_t c, double t, bool now) {
  EngineFlight& f = flights_[c];
  f.id = tally_.attempts++;
  pulse_.attempt(tally_.attempts, t, horizon_, tally_.burst_left, s_.traffic.clients);
  if (t >= warmup_) ++tally_.window_attempts;
  f.sent = t;
  f.row = parts_.template get<Rows>().draw(*this);
  if (faults_(Fault::rows_ignored)) f.row = 0;  // planted fault, as in Rows::on_send
  if (now) {
    observer_.on_start(f.id, clients_[c].serial, t);
  } else {
    tell_later({t, 1, 0, f.id, clients_[c].serial, t, false, false, 0, 0.0});
  }
  f.start = t + parts_.template get<Network>().draw_delay(*this);
  if (!(f.start < horizon_)) return;  // still on its way at the horizon
  ServerView& view = parts_.template get<ServerView>();
  view.count_served();
  if (f.start >= warmup_) view.count_wait();  // served on arrival: a wait of 0
  const double end = f.start + draw_service();
  if (end > warmup_) tally_.work += std::min(end, horizon_) - std::max(f.start, warmup_);
  wakes_.push(end, c);
}

// The outcomes of the attempts ending at e (group_, in end order), by decide()'s rules.
template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::one_event_decide(double e) {
  for (const std::int32_t c : group_) {
    EngineFlight& f = flights_[c];
    f.success = !(model_.last_commit(static_cast<std::size_t>(f.row)) > f.start);  // eligible
  }
  if (group_.size() == 1) {  // the common case: no tie
    const EngineFlight& f = flights_[group_.front()];
    if (f.success) model_.last_commit(static_cast<std::size_t>(f.row)) = e;
    return;
  }
  model_.commit_winners(
      *this, group_, e, [&](std::int32_t c) { return static_cast<std::size_t>(flights_[c].row); },
      [&](std::int32_t c) -> bool& { return flights_[c].success; });
}

// The outcome of client c's attempt, decided at its end e, reaches the client one leg later: it
// leaves, or sleeps and sends again.
template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::one_event_reply(std::int32_t c, double e) {
  const EngineFlight& f = flights_[c];
  EngineClient& client = clients_[c];
  const double r = e + parts_.template get<Network>().draw_delay(*this);
  if (!(r < horizon_)) return;  // the reply is still on its way at the horizon
  tally_.attempt_ended(f.sent, r, warmup_);
  if (f.success || !s_.client.retries) {
    tell_later({r, 0, 0, f.id, client.serial, f.sent, f.success, false, 0, 0.0});
    if (f.success) {
      parts_.template get<ServerView>().add_latency(r - client.arrival);
      tally_.count_success(client.arrival, r, warmup_);  // succeed()'s order-free part; the rest below
      tally_.last_success = std::isnan(tally_.last_success) ? r : std::max(tally_.last_success, r);
      ++tally_.burst_successes;
    }
    tally_.leave();
    ++tally_.burst_left;
    last_leave_ = std::max(last_leave_, r);
    if (r > warmup_) tally_.area_waiting += r - std::max(client.arrival, warmup_);
    return;
  }
  if (client.failures < std::numeric_limits<std::int32_t>::max()) ++client.failures;
  const double sleep = sampler_.sleep(client.failures, client.prev, sleeps_);
  tell_later({r, 0, 0, f.id, client.serial, f.sent, false, true, client.failures, sleep});
  if (r + sleep < horizon_) one_event_send(c, r + sleep, false);
}

// Hooks known early wait in a heap until every event before them has been told.
template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::tell_later(DeferredHook h) {
  if constexpr (!std::is_same_v<Observer, NullObserver>) {
    h.seq = hook_seq_++;
    hooks_.push_back(h);
    std::push_heap(hooks_.begin(), hooks_.end(), later);
  }
}

template <Model M, class P, class Observer, class Faults>
void Engine<M, P, Observer, Faults>::tell_hooks_before(double t) {
  if constexpr (!std::is_same_v<Observer, NullObserver>) {
    while (!hooks_.empty() && hooks_.front().time < t) {
      std::pop_heap(hooks_.begin(), hooks_.end(), later);
      const DeferredHook h = hooks_.back();
      hooks_.pop_back();
      if (h.rank == 1) {
        observer_.on_start(h.attempt, h.client, h.time);
        continue;
      }
      observer_.on_end(h.attempt, h.client, h.sent, h.time, h.success);
      if constexpr (requires { observer_.on_sleep(h.client, h.retry, h.sleep); })
        if (h.slept) observer_.on_sleep(h.client, h.retry, h.sleep);
    }
  }
}

}  // namespace retrylab::montecarlo::detail
