#pragma once
// The event loops the montecarlo tests share, compiled once in montecarlo_test_engines instead of in
// each test file that runs the engine: run_engine for one (observer, faults) pair instantiates every
// model, tier and build, about a minute of compiler time at -O3 (several under the sanitizers). The
// tests record a run with one of two recorders: trace.hpp's TraceObserver (client side; a run with it
// may take the one-event shortcut) and server_trace.hpp's ServerTrace (server view too; never the
// shortcut). The engine sees neither: it is compiled for one observer type, TestObserver below, which
// tells each hook to the recorder of the run, so one set of loops serves both (a set per recorder
// cost ~50 s of CPU in release, ~150 s under the sanitizers). A test file includes this header, runs
// with testing::run_engine / run_engine_build and links montecarlo_test_engines (engine_instances.cpp
// defines the loops). The loops without an observer (NullObserver) are the library's own copy
// (montecarlo/run_engine.hpp). Same code, same numbers: only where the instantiation lives changes.
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "montecarlo/faults.hpp"
#include "montecarlo/run_engine.hpp"
#include "tests/montecarlo/server_trace.hpp"
#include "tests/montecarlo/trace.hpp"

namespace retrylab::montecarlo::testing {

// The tests' one observer type: every hook either recorder takes, told to the run's recorder (exactly
// one is set; a hook the recorder lacks is dropped, as the engine drops a hook its observer lacks). It
// declares the shortcuts either recorder tolerates (the one-event shortcut: TraceObserver's) and
// narrows them per run to its recorder's (tolerates): a run that records the server view refuses the
// shortcut, at run time, as a ServerTrace would have at compile time.
class TestObserver {
 public:
  static constexpr unsigned tolerated_shortcuts =
      detail::declared_shortcuts<TraceObserver>() | detail::declared_shortcuts<ServerTrace>();
  explicit TestObserver(TraceObserver& client) noexcept : client_(&client) {}
  explicit TestObserver(ServerTrace& server) noexcept : server_(&server) {}
  bool tolerates(unsigned shortcut) const noexcept {
    return client_ != nullptr ? detail::observer_tolerates(*client_, shortcut)
                              : detail::observer_tolerates(*server_, shortcut);
  }

  void on_arrival(std::int64_t c, double t, bool burst) {
    if (client_ != nullptr) client_->on_arrival(c, t, burst);
    if (server_ != nullptr) server_->on_arrival(c, t, burst);
  }
  void on_start(std::int64_t id, std::int64_t c, double t) {
    if (client_ != nullptr) client_->on_start(id, c, t);
    if (server_ != nullptr) server_->on_start(id, c, t);
  }
  void on_end(std::int64_t id, std::int64_t c, double sent, double t, bool success) {
    if (client_ != nullptr) client_->on_end(id, c, sent, t, success);
    if (server_ != nullptr) server_->on_end(id, c, sent, t, success);
  }
  void on_sleep(std::int64_t c, std::int32_t retry, double sleep) {
    if (client_ != nullptr) client_->on_sleep(c, retry, sleep);
    if (server_ != nullptr) server_->on_sleep(c, retry, sleep);
  }
  void on_succeeded(std::int64_t c, double t, double latency) {
    if (client_ != nullptr) client_->on_succeeded(c, t, latency);
    if (server_ != nullptr) server_->on_succeeded(c, t, latency);
  }
  void on_cancel(std::int64_t id, std::int64_t c, double t) {
    if (client_ != nullptr) client_->on_cancel(id, c, t);
    if (server_ != nullptr) server_->on_cancel(id, c, t);
  }
  // The server view's hooks (ServerTrace's alone).
  void on_timeout(std::int64_t id, std::int64_t c, double t) {
    if (server_ != nullptr) server_->on_timeout(id, c, t);
  }
  void on_give_up(std::int64_t c, double t) {
    if (server_ != nullptr) server_->on_give_up(c, t);
  }
  void on_admit(double t, std::int64_t admitted, std::int64_t limit) {
    if (server_ != nullptr) server_->on_admit(t, admitted, limit);
  }
  void on_reject(std::int64_t id, std::int64_t c, double t, double retry_after) {
    if (server_ != nullptr) server_->on_reject(id, c, t, retry_after);
  }
  void on_service_start(std::int64_t id, std::int32_t row, double t) {
    if (server_ != nullptr) server_->on_service_start(id, row, t);
  }
  void on_service(std::int64_t id, std::int32_t row, double start, double end, bool success) {
    if (server_ != nullptr) server_->on_service(id, row, start, end, success);
  }

 private:
  TraceObserver* client_ = nullptr;
  ServerTrace* server_ = nullptr;
};

}  // namespace retrylab::montecarlo::testing

// SPEC is `extern` (here) or empty (the definitions). Every entry point a test calls with OBSERVER:
// run_engine (the build the scenario takes) and each build by name.
#define RETRYLAB_TEST_ENGINE(SPEC, OBSERVER)                                                                           \
  SPEC template RunResult run_engine<OBSERVER, NoFaults>(const Scenario&, std::uint64_t, std::uint64_t,                \
                                                         const EngineOptions&, OBSERVER&, EngineScratch*,              \
                                                         const NoFaults&);                                             \
  SPEC template RunResult run_engine_chosen<OBSERVER, NoFaults>(bool, bool, const Scenario&, std::uint64_t,            \
                                                                std::uint64_t, const EngineOptions&, OBSERVER&,        \
                                                                EngineScratch*, const NoFaults&);                      \
  SPEC template RunResult run_engine_build<PlainParts, OBSERVER, NoFaults>(                                            \
      const Scenario&, std::uint64_t, std::uint64_t, const EngineOptions&, OBSERVER&, EngineScratch*,                  \
      const NoFaults&);                                                                                                \
  SPEC template RunResult run_engine_build<LeanParts, OBSERVER, NoFaults>(const Scenario&, std::uint64_t,              \
                                                                          std::uint64_t, const EngineOptions&,         \
                                                                          OBSERVER&, EngineScratch*, const NoFaults&); \
  SPEC template RunResult run_engine_build<FullParts, OBSERVER, NoFaults>(const Scenario&, std::uint64_t,              \
                                                                          std::uint64_t, const EngineOptions&,         \
                                                                          OBSERVER&, EngineScratch*, const NoFaults&);

namespace retrylab::montecarlo::detail {
RETRYLAB_TEST_ENGINE(extern, testing::TestObserver)
}  // namespace retrylab::montecarlo::detail

namespace retrylab::montecarlo::testing {

// A recorder of the tests: TraceObserver or ServerTrace.
template <class R>
concept Recorder = std::same_as<R, TraceObserver> || std::same_as<R, ServerTrace>;

// One run on the build the scenario and options choose (detail::run_engine), recorded by `r`.
template <Recorder R>
RunResult run_engine(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                     const detail::EngineOptions& options, R& r, detail::EngineScratch* scratch = nullptr) {
  TestObserver observer(r);
  return detail::run_engine(s, seed, run_index, options, observer, scratch);
}

// One run on build P (detail::run_engine_build: PlainParts, LeanParts or FullParts), recorded by `r`.
template <class P, Recorder R>
RunResult run_engine_build(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                           const detail::EngineOptions& options, R& r) {
  TestObserver observer(r);
  return detail::run_engine_build<P>(s, seed, run_index, options, observer);
}

// One run of s on the `none` model's full build, whatever s.model says (the engine of that model,
// type and all, as a test that names Engine<Model::none, FullParts, …> builds it), recorded by
// `trace`; with the engine's client slots still in use at the end (0 once every request has ended).
struct NoneRun {
  RunResult result;
  std::size_t client_slots_in_use = 0;
};
NoneRun run_none_full(const Scenario& s, std::uint64_t seed, std::uint64_t run_index,
                      const detail::EngineOptions& options, ServerTrace& trace);

}  // namespace retrylab::montecarlo::testing
