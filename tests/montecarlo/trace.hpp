#pragma once
// TraceObserver: the montecarlo tests' client-side observer. It records every arrival, attempt start
// and attempt end the engine reports, so tests can check the model invariants (docs/models.md §1) on
// the raw history of a run, and the client-side hooks beside them: each answered request
// (on_succeeded), each cancelled attempt (on_cancel, never followed by its on_end) and, when
// `log_hooks` is set, every start, end and sleep in the order the engine told them.
// It declares none of the server-view hooks, so a run with it may take the one-event shortcut: the
// tests of that shortcut's deferred hooks use it. The server-view recorder is server_trace.hpp's
// ServerTrace. Both reach the engine through one observer type, whose event loops are compiled once
// (engine_instances.hpp: TestObserver, testing::run_engine), and which takes a run's shortcuts from
// its recorder's declaration (`tolerated_shortcuts` below; ServerTrace declares none).
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "montecarlo/engine_parts.hpp"

namespace retrylab::montecarlo::testing {

struct TracedAttempt {
  std::int64_t id = -1;
  std::int64_t client = -1;
  double start = 0.0;
  double end = -1.0;  // -1: still in flight at the stop
  bool ended = false;
  bool success = false;
  bool cancelled = false;  // on_cancel: then no on_end
};

struct TraceObserver {
  // The one-event shortcut tells exactly its three hooks (in time order); the lock-step one does not.
  static constexpr unsigned tolerated_shortcuts = detail::shortcut::one_event;
  struct Answer {
    std::int64_t client;
    double t, latency;
  };
  // One hook as told (log_hooks): kind 's' start, 'e' end, 'z' sleep (a sleep carries the time of
  // the hook before it: on_sleep has none of its own).
  struct Hook {
    char kind;
    std::int64_t attempt, client;
    double t;
  };
  std::vector<double> arrival_time;  // by client serial
  std::vector<bool> arrival_burst;
  std::vector<TracedAttempt> attempts;  // by attempt id
  std::vector<std::int64_t> end_order;  // attempt ids in the order they ended
  std::vector<Answer> answers;          // in the order told
  std::vector<std::int64_t> cancelled;  // attempt ids in the order cancelled
  bool log_hooks = false;               // set before the run to fill `hooks`
  std::vector<Hook> hooks;
  // The four-event loop numbers attempts in the order it sends them, so each on_start's id is the
  // next (checked when set). The one-event shortcut numbers an attempt when the one before it is
  // decided and tells the hooks later, in time order: ids may then come out of order (clear it).
  bool serial_ids = true;

  void on_arrival(std::int64_t client, double t, bool burst) {
    if (client != static_cast<std::int64_t>(arrival_time.size())) bad_serial = true;
    arrival_time.push_back(t);
    arrival_burst.push_back(burst);
  }
  void on_start(std::int64_t attempt, std::int64_t client, double t) {
    if (serial_ids && attempt != static_cast<std::int64_t>(attempts.size())) bad_serial = true;
    if (attempt < 0) {
      bad_serial = true;
      return;
    }
    const auto i = static_cast<std::size_t>(attempt);
    if (i >= attempts.size()) attempts.resize(i + 1);
    if (attempts[i].id != -1) bad_serial = true;  // started twice
    attempts[i] = {attempt, client, t, -1.0, false, false, false};
    if (log_hooks) hooks.push_back({'s', attempt, client, t});
  }
  void on_end(std::int64_t attempt, std::int64_t client, double start, double end, bool success) {
    TracedAttempt& a = attempts.at(static_cast<std::size_t>(attempt));
    if (a.id != attempt || a.client != client || a.start != start || a.ended || a.cancelled) bad_serial = true;
    a.end = end;
    a.ended = true;
    a.success = success;
    end_order.push_back(attempt);
    if (log_hooks) hooks.push_back({'e', attempt, client, end});
  }
  void on_sleep(std::int64_t client, std::int32_t /*retry*/, double /*sleep*/) {
    if (log_hooks) hooks.push_back({'z', -1, client, hooks.empty() ? 0.0 : hooks.back().t});
  }
  void on_succeeded(std::int64_t client, double t, double latency) { answers.push_back({client, t, latency}); }
  void on_cancel(std::int64_t attempt, std::int64_t client, double /*t*/) {
    TracedAttempt& a = attempts.at(static_cast<std::size_t>(attempt));
    if (a.id != attempt || a.client != client || a.ended || a.cancelled) bad_serial = true;
    a.cancelled = true;
    cancelled.push_back(attempt);
  }
  bool bad_serial = false;

  // By client serial: its attempts' send times (in the order sent), its answers, its cancellations.
  std::map<std::int64_t, std::vector<double>> sends_by_client() const {
    std::map<std::int64_t, std::vector<double>> out;
    for (const TracedAttempt& a : attempts)
      if (a.id != -1) out[a.client].push_back(a.start);
    return out;
  }
  std::map<std::int64_t, int> answers_by_client() const {
    std::map<std::int64_t, int> out;
    for (const Answer& a : answers) ++out[a.client];
    return out;
  }
  std::map<std::int64_t, int> cancels_by_client() const {
    std::map<std::int64_t, int> out;
    for (const std::int64_t id : cancelled) ++out[attempts.at(static_cast<std::size_t>(id)).client];
    return out;
  }
};

}  // namespace retrylab::montecarlo::testing
