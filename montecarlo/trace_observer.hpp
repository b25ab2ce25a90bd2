#pragma once
// The trace's observer (internal; montecarlo/trace.hpp is the format, trace.cpp the writer): it writes
// one row per attempt as the attempt ends, through an AtomicFile.
// Invariants: per-client state only while the client is waiting (arrived, not yet done); it tolerates
// the one-event shortcut (its rows need only the hooks that shortcut tells, in time order), not the
// lock-step one (which tells no attempt after the burst's first).
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "montecarlo/atomic_file.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"
#include "montecarlo/trace.hpp"

namespace retrylab::montecarlo::detail {

class TraceObserver {
 public:
  static constexpr unsigned tolerated_shortcuts = shortcut::one_event;
  TraceObserver(AtomicFile& sink, TraceFormat f, std::int64_t run, bool retries, const TimeUnit& u, bool kinds)
      : sink_(sink), format_(f), run_(run), retries_(retries), unit_(u), kinds_(kinds) {}
  void on_arrival(std::int64_t client, double t, bool burst) {
    clients_[client] = {t, 0, std::nan(""), burst, FailureKind::retryable};
  }
  // The full tier's completed outcome record, just before its on_end: the failure's kind.
  void on_outcome(std::int64_t client, const Outcome& o) {
    if (!kinds_) return;
    const auto it = clients_.find(client);
    if (it != clients_.end()) it->second.kind = o.status;
  }
  void on_start(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*t*/) noexcept {}
  void on_sleep(std::int64_t client, std::int32_t retry, double sleep) {
    State& c = clients_[client];
    c.retry = retry;
    c.sleep = sleep;
  }
  void on_end(std::int64_t /*attempt*/, std::int64_t client, double start, double end, bool success) {
    const auto it = clients_.find(client);
    if (it == clients_.end()) return;  // cannot happen: every client arrives before its attempts
    const State& c = it->second;
    sink_.write(trace_line({run_, client, c.arrival, start, end, success, c.retry, c.sleep, c.burst, c.kind}, format_,
                           unit_, kinds_));
    if (success || !retries_) clients_.erase(it);
  }
  // Server engine (retry limit): a client that gives up leaves; its state goes with it.
  void on_give_up(std::int64_t client, double /*t*/) { clients_.erase(client); }

 private:
  struct State {
    double arrival;
    std::int64_t retry;
    double sleep;
    bool burst;
    FailureKind kind;  // of the outcome heard last (on_outcome), with kinds_
  };
  AtomicFile& sink_;
  TraceFormat format_;
  std::int64_t run_;
  bool retries_;
  const TimeUnit& unit_;
  bool kinds_;
  std::unordered_map<std::int64_t, State> clients_;
};

}  // namespace retrylab::montecarlo::detail
