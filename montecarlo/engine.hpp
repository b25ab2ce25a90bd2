#pragma once
// The event loop (internal; simulate_run is the public face). One run of one scenario, docs/models.md
// §1–§5. Invariants it relies on (each tested in tests/montecarlo):
//  - attempts end in the order they started in every model (proofs/Engine.v: ps_fifo_order), so
//    in-flight attempts are a FIFO ring buffer; `shared`/`ps` run in virtual time V, dV/dt = 1/n:
//    an attempt started at virtual time v ends when V = v + 1;
//  - only wake-ups (sleeping clients) need a priority queue, ordered by (time, push order); as wakes
//    are pushed at the current time plus a sleep, a monotone one (wake_queue.hpp: radix heap); the
//    next Poisson arrival is a single pending time;
//  - at equal times attempt ends are processed before attempt starts (half-open intervals);
//  - client slots and attempt slots are recycled: no allocation once the peak backlog is reached.
// The Observer template parameter sees every arrival, start and end (tests check the invariants
// on it), and, if it declares on_sleep(client, retry, sleep), every sleep chosen; NullObserver
// compiles to nothing.
// Lock-step shortcut: `collision` with `none`/`nojitter`, a pure burst of N >= 2 and retries on
// can never succeed (clients that start together collide forever, docs/models.md §4). After the burst
// starts the engine recognises this exact state and advances round by round (O(1) per round, not
// O(N)), and once the rounds are periodic (none; nojitter at its cap) whole cycles at once, to the
// horizon; the result equals the event loop's up to floating-point summation order (tested with
// the shortcut off).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "analytic/model.hpp"
#include "montecarlo/pulse.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/sampler.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/wake_queue.hpp"
#if RETRYLAB_PLANTED_FAULTS
#include "montecarlo/faults.hpp"
#endif

namespace retrylab::montecarlo::detail {

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct NullObserver {
  void on_arrival(std::int64_t /*client*/, double /*t*/, bool /*burst*/) noexcept {}
  void on_start(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*t*/) noexcept {}
  void on_end(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*start*/, double /*end*/,
              bool /*success*/) noexcept {}
};

struct EngineOptions {
  bool lockstep_shortcut = true;
  // Run the server engine (server_engine.hpp) even without server options: for tests comparing it
  // with this loop on the original model, and for studies that want its extra metrics everywhere.
  bool force_server_engine = false;
  Pulse* pulse = nullptr;  // coarse progress for a display (pulse.hpp); null: none
#if RETRYLAB_PLANTED_FAULTS
  Fault fault = Fault::none;
#endif
};

// Ring buffer of in-flight attempts (FIFO). Grows by doubling only past its previous peak.
template <class T>
class Ring {
 public:
  explicit Ring(std::size_t capacity = 64) {
    std::size_t c = 1;
    while (c < capacity) c <<= 1;
    data_.resize(c);
    mask_ = c - 1;
  }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  T& front() noexcept { return data_[head_]; }
  T& operator[](std::size_t i) noexcept { return data_[(head_ + i) & mask_]; }
  void pop_front() noexcept {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void push_back(const T& x) {
    if (size_ == data_.size()) grow();
    data_[(head_ + size_) & mask_] = x;
    ++size_;
  }
  void clear() noexcept { head_ = size_ = 0; }

 private:
  void grow() {
    std::vector<T> bigger(data_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    data_.swap(bigger);
    head_ = 0;
    mask_ = data_.size() - 1;
  }
  std::vector<T> data_;
  std::size_t head_ = 0, size_ = 0, mask_ = 0;
};

// What both event loops (this one and server_engine.hpp) count for RunResult (docs/models.md §5), and
// the part of the result made from the counts alone. Window counts and integrals cover [warmup, stop).
struct Tally {
  std::int64_t arrived = 0, attempts = 0, successes = 0;
  std::int64_t waiting = 0, max_waiting = 0;
  std::int64_t window_arrivals = 0, window_attempts = 0, window_successes = 0;
  std::int64_t burst_successes = 0, burst_left = 0, p99_target = 0;
  double last_success = nan, drain_time = nan, drain_p99 = nan;
  double latency_sum = 0.0, waiting_time_sum = 0.0, sojourn_sum = 0.0;
  std::int64_t latency_n = 0, waiting_time_n = 0, sojourn_n = 0;
  double area_waiting = 0.0, busy = 0.0, work = 0.0;

  // A client arrives at t: returns its serial (arrival order).
  std::int64_t arrive(double t, double warmup) noexcept {
    if (t >= warmup) ++window_arrivals;
    ++waiting;
    max_waiting = std::max(max_waiting, waiting);
    return arrived++;
  }
  // An attempt sent at `sent` ends, for its client, at t.
  void attempt_ended(double sent, double t, double warmup) noexcept {
    if (t >= warmup) {
      sojourn_sum += t - sent;
      ++sojourn_n;
    }
  }
  // A client that arrived at `arrival` succeeds at t (it then leaves: see leave()).
  void succeed(double arrival, double t, bool burst, double warmup, std::int64_t burst_clients) noexcept {
    ++successes;
    if (t >= warmup) ++window_successes;
    latency_sum += t - arrival;
    ++latency_n;
    if (arrival >= warmup) {
      waiting_time_sum += t - arrival;
      ++waiting_time_n;
    }
    last_success = t;
    if (burst) {
      if (++burst_successes == p99_target) drain_p99 = t;
      burst_left_at(t, burst_clients);
    }
  }
  // A burst client leaves at t (succeeded, or gave up); the last one sets the drain time.
  void burst_left_at(double t, std::int64_t burst_clients) noexcept {
    if (++burst_left == burst_clients) drain_time = t;
  }
  void leave() noexcept { --waiting; }

  RunResult result(std::int64_t burst_clients, StopReason why, double stop, double warmup) const {
    RunResult r;
    r.stop = why;
    r.stop_time = stop;
    r.clients_arrived = arrived;
    r.attempts = attempts;
    r.successes = successes;
    r.burst_clients = burst_clients;
    r.attempts_per_client = arrived > 0 ? static_cast<double>(attempts) / static_cast<double>(arrived) : nan;
    r.makespan = why == StopReason::finished && successes > 0 ? last_success : nan;
    r.latency = latency_n > 0 ? latency_sum / static_cast<double>(latency_n) : nan;
    const double span = stop - warmup;
    const bool has_window = span > 0.0;
    r.goodput = has_window ? static_cast<double>(window_successes) / span : nan;
    r.attempt_rate = has_window ? static_cast<double>(window_attempts) / span : nan;
    r.sojourn = sojourn_n > 0 ? sojourn_sum / static_cast<double>(sojourn_n) : nan;
    r.collapsed = why == StopReason::collapsed;
    r.drained = burst_clients > 0 && burst_left == burst_clients;
    r.drain_time = r.drained ? drain_time : nan;
    r.drain_time_p99 = burst_clients > 0 && burst_successes >= p99_target ? drain_p99 : nan;
    r.unfinished = waiting;
    r.max_waiting = max_waiting;
    r.mean_waiting = has_window ? area_waiting / span : nan;
    r.mean_time_waiting = waiting_time_n > 0 ? waiting_time_sum / static_cast<double>(waiting_time_n) : nan;
    r.arrival_rate = has_window ? static_cast<double>(window_arrivals) / span : nan;
    r.busy_time = busy;
    r.work_done = work;
    return r;
  }
};

template <Model M, class Observer>
class Engine {
  static constexpr bool virtual_time = M == Model::shared || M == Model::ps;

  struct Client {
    double arrival;
    double prev;          // decorrelated jitter state s_(k−1)
    std::int64_t serial;  // arrival order, for observers
    std::int32_t failures;
    bool burst;
  };
  struct Attempt {
    double start;  // real start time
    double end;    // real end (collision, free) or virtual end (shared, ps)
    std::int64_t id;
    std::int32_t client;
  };

 public:
  Engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
         Observer& observer)
      : s_(s),
        options_(options),
        observer_(observer),
#if RETRYLAB_PLANTED_FAULTS
        sampler_(s.backoff, options.fault),
#else
        sampler_(s.backoff),
#endif
        key_(run_key(seed, stable_hash(s))),
        arrivals_(key_, StreamId::arrivals, run_index),
        sleeps_(key_, StreamId::sleeps, run_index),
        ties_(key_, StreamId::ties, run_index),
        horizon_(effective_horizon(s)),
        warmup_(s.warmup),
        fifo_(static_cast<std::size_t>(std::min<std::int64_t>(s.clients + 64, 1 << 20))) {
#if RETRYLAB_PLANTED_FAULTS
    const bool biased = options.fault == Fault::biased_uniform;
    arrivals_.set_biased(biased);
    sleeps_.set_biased(biased);
    ties_.set_biased(biased);
#endif
    const auto expected = static_cast<std::size_t>(std::min<std::int64_t>(s.clients + 64, s.collapse + 64));
    clients_.reserve(expected);
    free_slots_.reserve(expected);
    wakes_.reserve(expected);
    tally_.p99_target = (99 * s.clients + 99) / 100;  // ceil(0.99·N)
  }

  RunResult run() {
    if (s_.rate > 0.0) schedule_next_arrival(0.0);
    for (std::int64_t i = 0; i < s_.clients; ++i) {
      start_attempt(new_client(0.0, true), 0.0);
      if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, 0.0);
    }
    if (options_.lockstep_shortcut && M == Model::collision && s_.rate == 0.0 && s_.retries &&
        sampler_.deterministic() && s_.clients >= 2)
      return lockstep();

    for (;;) {
      const double te = next_end_time();
      const double tw = wakes_.top_time();
      const double ts = std::min(tw, next_arrival_);
      if (te <= ts) {
        if (te >= horizon_) break;
        advance(te);
        end_group(te);
        if (tally_.waiting == 0 && s_.rate == 0.0) return finish(StopReason::finished, t_);
        if (s_.rate > 0.0 && s_.clients > 0 && tally_.burst_left == s_.clients) return finish(StopReason::drained, t_);
      } else {
        if (ts >= horizon_) break;
        advance(ts);
        if (next_arrival_ <= tw) {
          const std::int32_t c = new_client(ts, false);
          start_attempt(c, ts);
          schedule_next_arrival(ts);
          if (tally_.waiting >= s_.collapse) return finish(StopReason::collapsed, ts);
        } else {
          const std::int32_t c = wakes_.top().client;
          wakes_.pop();
          start_attempt(c, ts);
        }
      }
    }
    return finish(StopReason::horizon, horizon_);
  }

 private:
  void schedule_next_arrival(double from) {
    next_arrival_ = from + arrivals_.exponential() / s_.rate;
    if (!(next_arrival_ < horizon_)) next_arrival_ = inf;
  }

  std::int32_t new_client(double t, bool burst) {
    std::int32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<std::int32_t>(clients_.size());
      clients_.push_back({});
    }
    const std::int64_t serial = tally_.arrive(t, warmup_);
    clients_[slot] = {t, s_.backoff.base, serial, 0, burst};
    observer_.on_arrival(serial, t, burst);
    return slot;
  }

  void release(std::int32_t slot) {
    tally_.leave();
    free_slots_.push_back(slot);
  }

  double next_end_time() noexcept {
    if (fifo_.empty()) return inf;
    if constexpr (virtual_time) {
      const double te = t_ + (fifo_.front().end - v_) * static_cast<double>(fifo_.size());
      return std::max(te, t_);
    } else {
      return fifo_.front().end;
    }
  }

  // Moves the clock to t, integrating the window's time averages and virtual time.
  void advance(double t) noexcept {
    if (!(t > t_)) return;
    const auto n = static_cast<double>(fifo_.size());
    if (t > warmup_) {
      const double from = t_ > warmup_ ? t_ : warmup_;
      const double dt = t - from;
      tally_.area_waiting += static_cast<double>(tally_.waiting) * dt;
      if (n > 0) tally_.busy += dt;
    }
    if constexpr (virtual_time) {
      if (t_ < warmup_ && warmup_ <= t) v_warmup_ = n > 0 ? v_ + (warmup_ - t_) / n : v_;
      if (n > 0) v_ += (t - t_) / n;
    }
    t_ = t;
  }

  void start_attempt(std::int32_t c, double t) {
    const std::int64_t id = tally_.attempts++;
    pulse_.attempt(tally_.attempts, t, horizon_, tally_.burst_left, s_.clients);
    if (t >= warmup_) ++tally_.window_attempts;
    if constexpr (M == Model::collision) {
      if (!fifo_.empty()) collision_mark_ = id;  // every attempt in flight and this one overlap
    }
    double end;
    if constexpr (virtual_time) {
      end = v_ + 1.0;
    } else {
      end = t + 1.0;
    }
    fifo_.push_back({t, end, id, c});
    observer_.on_start(id, clients_[c].serial, t);
  }

  // Service an attempt received inside the window, given its (real or virtual) end.
  double service_in_window(const Attempt& a, double end) const noexcept {
    if constexpr (virtual_time) {
      if (t_ < warmup_) return 0.0;
      const double from = std::max(a.end - 1.0, v_warmup_);
      return end > from ? end - from : 0.0;
    } else {
      const double from = std::max(a.start, warmup_);
      return end > from ? end - from : 0.0;
    }
  }

  // Processes every attempt ending at real time te (the FIFO head's group).
  void end_group(double te) {
    if constexpr (M == Model::collision) {
      const Attempt a = fifo_.front();
      fifo_.pop_front();
      end_attempt(a, te, a.end, a.id > collision_mark_);
    } else if constexpr (M == Model::ps) {
      const Attempt a = fifo_.front();
      v_ = a.end;  // snap: the head has received exactly one unit of service
      fifo_.pop_front();
      end_attempt(a, te, a.end, true);
    } else {
      // free, shared: first commit wins; simultaneous eligible commits: one uniform winner.
      const double key = fifo_.front().end;
      if constexpr (virtual_time) v_ = key;
      std::size_t g = 1;
      while (g < fifo_.size() && fifo_[g].end == key) ++g;
      if (g == 1) {
        const Attempt a = fifo_.front();
        fifo_.pop_front();
        const bool ok = !(last_commit_ > a.start);
        if (ok) last_commit_ = te;
        end_attempt(a, te, a.end, ok);
      } else {
        std::uint64_t eligible = 0;
        for (std::size_t i = 0; i < g; ++i) eligible += !(last_commit_ > fifo_[i].start);
        std::uint64_t winner = eligible >= 2 ? ties_.index(eligible) : 0;
#if RETRYLAB_PLANTED_FAULTS
        if (M == Model::free && options_.fault == Fault::free_ties_all_fail && eligible >= 2) winner = eligible;
#endif
        const double commit_before = last_commit_;
        std::uint64_t rank = 0;
        for (std::size_t i = 0; i < g; ++i) {
          const Attempt a = fifo_.front();
          fifo_.pop_front();
          bool ok = false;
          if (!(commit_before > a.start)) ok = rank++ == winner;
          if (ok) last_commit_ = te;
          end_attempt(a, te, a.end, ok);
        }
      }
#if RETRYLAB_PLANTED_FAULTS
      if (M == Model::shared && options_.fault == Fault::shared_doomed_leave_at_commit && last_commit_ == te) {
        // Planted fault: every attempt still in flight is doomed by this commit and leaves now.
        while (!fifo_.empty()) {
          const Attempt a = fifo_.front();
          fifo_.pop_front();
          end_attempt(a, te, v_, false);
        }
      }
#endif
    }
  }

  void end_attempt(const Attempt& a, double te, double service_end, bool success) {
    Client& c = clients_[a.client];
    observer_.on_end(a.id, c.serial, a.start, te, success);
    if (te >= warmup_) {  // tally_.attempt_ended, with the work in the same branch (hot path)
      tally_.sojourn_sum += te - a.start;
      ++tally_.sojourn_n;
      tally_.work += service_in_window(a, service_end);
    }
    if (success) {
      tally_.succeed(c.arrival, te, c.burst, warmup_, s_.clients);
      release(a.client);
    } else if (!s_.retries) {
      if (c.burst) tally_.burst_left_at(te, s_.clients);
      release(a.client);
    } else {
      if (c.failures < std::numeric_limits<std::int32_t>::max()) ++c.failures;
      const double sleep = sampler_.sleep(c.failures, c.prev, sleeps_);
      // Optional hook (attempt traces, montecarlo/trace.hpp): the sleep chosen before retry k.
      // Observers without it (NullObserver) compile to nothing.
      if constexpr (requires { observer_.on_sleep(c.serial, c.failures, sleep); })
        observer_.on_sleep(c.serial, c.failures, sleep);
      wakes_.push(te + sleep, a.client);
    }
  }

  // collision + none/nojitter + pure burst of N >= 2: every round is N simultaneous attempts that
  // all fail; the clients sleep the same deterministic w_k and start again together.
  RunResult lockstep() {
    const auto n = static_cast<std::int64_t>(fifo_.size());
    const double nd = static_cast<double>(n);
    fifo_.clear();
    // The event loop's own arithmetic: end = start + 1, wake = end + sleep.
    double start = 0.0;
    int k = 0;
    double prev = s_.backoff.base;
    bool in_flight = true;
    for (;;) {
      const double end = start + 1.0;
      if (end >= horizon_) break;
      advance_lockstep(end, n, true);
      tally_.sojourn_sum += nd * (end - start) * (end >= warmup_);
      tally_.sojourn_n += n * (end >= warmup_);
      if (end > warmup_) tally_.work += nd * (end - std::max(start, warmup_));
      if (k < std::numeric_limits<int>::max()) ++k;
      const double sleep = sampler_.sleep(k, prev, sleeps_);
      const double next = end + sleep;
      if (next >= horizon_) {
        in_flight = false;
        break;
      }
      advance_lockstep(next, n, false);
      tally_.attempts += n;
      if (next >= warmup_) tally_.window_attempts += n;
      start = next;
      // Once the sleep is constant (none; nojitter at its cap) the rounds are periodic with period
      // P = 1 + sleep: skip whole cycles (an end, then the next start) that lie inside the window
      // and well before the horizon, leaving the last two to the exact loop above.
      const bool periodic = s_.backoff.strategy == Strategy::none || sleep_at_cap(k);
      if (periodic && start >= warmup_) {
        const double period = 1.0 + sleep;
        const double cycles = std::floor((horizon_ - start) / period) - 2.0;
        if (cycles >= 1.0) {
          const auto c = static_cast<std::int64_t>(cycles);
          tally_.busy += cycles;                        // each round [s, s + 1) is busy
          tally_.area_waiting += nd * cycles * period;  // n clients wait throughout
          tally_.sojourn_sum += nd * cycles;            // each attempt lasts exactly 1
          tally_.sojourn_n += n * c;
          tally_.work += nd * cycles;
          tally_.attempts += n * c;
          tally_.window_attempts += n * c;
          start += cycles * period;
          t_ = start;
          k = static_cast<int>(std::min<std::int64_t>(k + c, std::numeric_limits<int>::max()));
        }
      }
    }
    if (in_flight) {
      advance_lockstep(horizon_, n, true);
      if (horizon_ > warmup_) tally_.work += nd * (horizon_ - std::max(start, warmup_));
    } else {
      advance_lockstep(horizon_, n, false);
    }
    return result(StopReason::horizon, horizon_);
  }

  // nojitter's sleep after the k-th failure has reached the cap, so every later one equals it.
  bool sleep_at_cap(int k) const noexcept {
    return s_.backoff.strategy == Strategy::nojitter && sampler_.width(k) == s_.backoff.cap;
  }

  void advance_lockstep(double t, std::int64_t /*n*/, bool busy) noexcept {
    if (t > warmup_) {
      const double from = t_ > warmup_ ? t_ : warmup_;
      const double dt = t - from;
      tally_.area_waiting += static_cast<double>(tally_.waiting) * dt;
      if (busy) tally_.busy += dt;
    }
    t_ = t;
  }

  RunResult finish(StopReason why, double stop) {
    pulse_.end(tally_.attempts);
    advance(stop);
    // Service received by the attempts still in flight at the stop.
    for (std::size_t i = 0; i < fifo_.size(); ++i) {
      if constexpr (virtual_time) {
        tally_.work += service_in_window(fifo_[i], v_);
      } else {
        tally_.work += service_in_window(fifo_[i], stop);
      }
    }
    return result(why, stop);
  }

  RunResult result(StopReason why, double stop) const {
    RunResult r = tally_.result(s_.clients, why, stop, warmup_);
    r.served = tally_.attempts;  // every attempt is served: no admission control here
    r.reject_fraction = tally_.attempts > 0 ? 0.0 : nan;
    r.lost_fraction = r.successes > 0 ? 0.0 : nan;
    return r;
  }

  const Scenario& s_;
  EngineOptions options_;
  Observer& observer_;
  SleepSampler sampler_;
  std::uint64_t key_;
  Stream arrivals_, sleeps_, ties_;
  double horizon_, warmup_;

  std::vector<Client> clients_;
  std::vector<std::int32_t> free_slots_;
  Ring<Attempt> fifo_;
  MonotoneWakeQueue wakes_;  // pushes at te + sleep >= the current time: monotone

  double t_ = 0.0;
  double v_ = 0.0;         // virtual time (shared, ps)
  double v_warmup_ = 0.0;  // virtual time at the warmup instant
  double next_arrival_ = inf;
  double last_commit_ = -inf;
  std::int64_t collision_mark_ = -1;  // attempts with id <= mark overlapped another

  Tally tally_;
  PulseWriter pulse_{options_.pulse};
};

// The server engine (montecarlo/server_engine.hpp, included at the end of this file): scenarios
// with any server option. Declared here so run_engine can dispatch to it.
template <class Observer>
RunResult run_server_engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                            const EngineOptions& options, Observer& observer);

// One branch per run, outside the event loop: scenarios without server options run the original
// loop above, unchanged (same results, same speed).
template <class Observer>
RunResult run_engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index, const EngineOptions& options,
                     Observer& observer) {
  if (options.force_server_engine || has_server_features(s))
    return run_server_engine(s, seed, run_index, options, observer);
  switch (s.model) {
    case Model::collision: return Engine<Model::collision, Observer>(s, seed, run_index, options, observer).run();
    case Model::free: return Engine<Model::free, Observer>(s, seed, run_index, options, observer).run();
    case Model::shared: return Engine<Model::shared, Observer>(s, seed, run_index, options, observer).run();
    case Model::ps: return Engine<Model::ps, Observer>(s, seed, run_index, options, observer).run();
    case Model::none: break;  // has_server_features: never here
  }
  return {};
}

}  // namespace retrylab::montecarlo::detail

#include "montecarlo/server_engine.hpp"  // IWYU pragma: export
