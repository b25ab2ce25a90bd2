#pragma once
// TraceObserver: records every arrival, attempt start and attempt end the engine reports, so tests
// can check the model invariants (docs/models.md §1) on the raw history of a run.
#include <cstdint>
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
};

struct TraceObserver {
  // The one-event shortcut tells exactly its three hooks (in time order); the lock-step one does not.
  static constexpr unsigned tolerated_shortcuts = detail::shortcut::one_event;
  std::vector<double> arrival_time;  // by client serial
  std::vector<bool> arrival_burst;
  std::vector<TracedAttempt> attempts;  // by attempt id
  std::vector<std::int64_t> end_order;  // attempt ids in the order they ended

  void on_arrival(std::int64_t client, double t, bool burst) {
    if (client != static_cast<std::int64_t>(arrival_time.size())) bad_serial = true;
    arrival_time.push_back(t);
    arrival_burst.push_back(burst);
  }
  void on_start(std::int64_t attempt, std::int64_t client, double t) {
    if (attempt != static_cast<std::int64_t>(attempts.size())) bad_serial = true;
    attempts.push_back({attempt, client, t, -1.0, false, false});
  }
  void on_end(std::int64_t attempt, std::int64_t client, double start, double end, bool success) {
    TracedAttempt& a = attempts.at(static_cast<std::size_t>(attempt));
    if (a.client != client || a.start != start || a.ended) bad_serial = true;
    a.end = end;
    a.ended = true;
    a.success = success;
    end_order.push_back(attempt);
  }
  bool bad_serial = false;
};

}  // namespace retrylab::montecarlo::testing
