#pragma once
// BreakerParams: the circuit breaker's parameters (components/breaker.hpp, its rows of the field
// table), held by value in the scenario's client policy (ClientPolicy::breaker). A preset of a
// library (index into breaker_preset_names, montecarlo/controls.hpp; 0 = none), whose the breaker is
// (scope), and numbers that override the preset's, each 0 = the preset's: a time window
// (attempt-durations) or a count window (calls), at most one of the two; the outcomes needed before
// it can open; the failure fraction that opens it, in (0, 1]; how long it stays open
// (attempt-durations); the probes it admits when half-open. Ranges: the rows; rules between them:
// Breaker::check.
#include <cstdint>

#include "montecarlo/scoped.hpp"

namespace retrylab::montecarlo {

struct BreakerConfig;  // montecarlo/controls.hpp

struct BreakerParams {
  int preset = 0;  // index into breaker_preset_names (field `breaker`)
  Scope scope = Scope::shared;
  double window = 0.0;
  std::int64_t calls = 0;
  std::int64_t minimum_calls = 0;
  double failure_threshold = 0.0;
  double open_duration = 0.0;
  std::int64_t half_open_calls = 0;

  bool on() const noexcept { return preset != 0; }
  // The breaker the clients run: the preset with every number that is set, its windows in ms (the
  // time fields times attempt_ms, milliseconds per attempt-duration, or 1 when attempt_ms is 0).
  BreakerConfig config(double attempt_ms) const;
};

}  // namespace retrylab::montecarlo
