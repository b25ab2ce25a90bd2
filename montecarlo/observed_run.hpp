#pragma once
// One run for the entry points that watch it with an observer (internal): a trace (trace.cpp), a
// series (series.cpp) and a run's detail (run_detail.cpp). The three share one observer type,
// RunObserver, which passes each hook on to the observers it is given for the run (trace_observer.hpp,
// series_observer.hpp, detail_observer.hpp), so their event loops are compiled once, in
// observed_run.cpp, and each entry point links to that copy (RETRYLAB_OBSERVED_ENGINES below).
// Invariants: each observer given is told exactly the hooks it declares, in the engine's order, as if
// it ran alone; a shortcut is taken for a run only if every observer given tolerates it.
#include <cstdint>

#include "montecarlo/detail_observer.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/run_engine.hpp"
#include "montecarlo/series_observer.hpp"
#include "montecarlo/trace_observer.hpp"

namespace retrylab::montecarlo::detail {

class RunObserver {
 public:
  static constexpr unsigned tolerated_shortcuts = shortcut::all;  // narrowed per run by tolerates
  RunObserver(TraceObserver* trace, SeriesObserver* series, DetailObserver* detail) noexcept
      : trace_(trace), series_(series), detail_(detail) {}
  bool tolerates(unsigned which) const noexcept {
    bool all = true;
    each([&](const auto& o) { all = all && observer_tolerates(o, which); });
    return all;
  }

  void on_arrival(std::int64_t client, double t, bool burst) {
    each([&](auto& o) { o.on_arrival(client, t, burst); });
  }
  void on_start(std::int64_t attempt, std::int64_t client, double t) {
    each([&](auto& o) { o.on_start(attempt, client, t); });
  }
  void on_end(std::int64_t attempt, std::int64_t client, double start, double end, bool success) {
    each([&](auto& o) { o.on_end(attempt, client, start, end, success); });
  }
  void on_sleep(std::int64_t client, std::int32_t retry, double sleep) {
    each([&](auto& o) {
      if constexpr (requires { o.on_sleep(client, retry, sleep); }) o.on_sleep(client, retry, sleep);
    });
  }
  void on_outcome(std::int64_t client, const Outcome& outcome) {
    each([&](auto& o) {
      if constexpr (requires { o.on_outcome(client, outcome); }) o.on_outcome(client, outcome);
    });
  }
  void on_give_up(std::int64_t client, double t) {
    each([&](auto& o) {
      if constexpr (requires { o.on_give_up(client, t); }) o.on_give_up(client, t);
    });
  }
  void on_cancel(std::int64_t attempt, std::int64_t client, double t) {
    each([&](auto& o) {
      if constexpr (requires { o.on_cancel(attempt, client, t); }) o.on_cancel(attempt, client, t);
    });
  }
  void on_refused(std::int64_t client, double t) {
    each([&](auto& o) {
      if constexpr (requires { o.on_refused(client, t); }) o.on_refused(client, t);
    });
  }
  void on_reject(std::int64_t attempt, std::int64_t client, double t, double retry_after) {
    each([&](auto& o) {
      if constexpr (requires { o.on_reject(attempt, client, t, retry_after); })
        o.on_reject(attempt, client, t, retry_after);
    });
  }
  void on_series(std::size_t slot, double t, double value) {
    each([&](auto& o) {
      if constexpr (requires { o.on_series(slot, t, value); }) o.on_series(slot, t, value);
    });
  }
  void on_leave(std::int64_t client, double t) {
    each([&](auto& o) {
      if constexpr (requires { o.on_leave(client, t); }) o.on_leave(client, t);
    });
  }
  void on_succeeded(std::int64_t client, double t, double latency) {
    each([&](auto& o) {
      if constexpr (requires { o.on_succeeded(client, t, latency); }) o.on_succeeded(client, t, latency);
    });
  }
  void on_reach(double t) {
    each([&](auto& o) {
      if constexpr (requires { o.on_reach(t); }) o.on_reach(t);
    });
  }
  void on_release(double t) {
    each([&](auto& o) {
      if constexpr (requires { o.on_release(t); }) o.on_release(t);
    });
  }

 private:
  template <class F>
  void each(F&& f) const {
    if (trace_) f(*trace_);
    if (series_) f(*series_);
    if (detail_) f(*detail_);
  }
  TraceObserver* trace_;
  SeriesObserver* series_;
  DetailObserver* detail_;
};

// One run on the plain tier or on the full build, never the lean one: the loops are compiled for two
// builds, not three (a third less compiler time). A scenario the lean build takes gives the same
// result on the full build bit for bit (tests/montecarlo/lean_test.cpp) and the same trace (the
// fingerprints, tests/montecarlo/fingerprint.py, hold the traces).
template <class Observer, class Faults = NoFaults>
RunResult run_engine_plain_or_full(bool full, const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                                   const EngineOptions& options, Observer& observer, EngineScratch* scratch,
                                   const Faults& faults = {}) {
  if (!full) return run_engine_build<PlainParts>(s, seed, run_index, options, observer, scratch, faults);
  return run_engine_build<FullParts>(s, seed, run_index, options, observer, scratch, faults);
}

// The loops for RunObserver: defined in observed_run.cpp (SPEC empty), declared here (extern).
#define RETRYLAB_OBSERVED_ENGINES(SPEC)                                                                        \
  SPEC template RunResult run_engine_plain_or_full<RunObserver, EntryFaults>(                                  \
      bool, const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, RunObserver&, EngineScratch*, \
      const EntryFaults&);                                                                                     \
  SPEC template RunResult run_engine_build<PlainParts, RunObserver, EntryFaults>(                              \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, RunObserver&, EngineScratch*,       \
      const EntryFaults&);                                                                                     \
  SPEC template RunResult run_engine_build<FullParts, RunObserver, EntryFaults>(                               \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, RunObserver&, EngineScratch*,       \
      const EntryFaults&);

RETRYLAB_OBSERVED_ENGINES(extern)

}  // namespace retrylab::montecarlo::detail
