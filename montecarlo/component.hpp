#pragma once
// Components of the event loop (internal; docs/architecture.md): what a mechanism is to the event
// core (montecarlo/engine.hpp). A component is a small class deriving from Component that owns its
// parameters, its state (per run, and per attempt or per client through its JobState/ClientState),
// its counters and the metrics they fill in; the core calls it through the fixed hooks below, in
// the order of its build's list (montecarlo/builds.hpp), so a mechanism is one file and a new one
// touches no other component and not the loop.
// Declarations (static, read before a run):
//  - active(s): whether scenario s turns it on. A scenario runs on the smallest build whose list
//    holds every component it turns on (builds.hpp derives this; nothing lists options by hand).
//  - allows_one_event(s): whether the one-event shortcut (one_event.hpp) may run while it is on.
//    Default false, so a new component is safe: an active component the shortcut does not know
//    turns the shortcut off.
//  - delays_start: it may hold an attempt between its send and its service start (network delay,
//    admission control), so the core stores send and reach times.
//  - lanes: the event kinds it is the source of (Lane), each stepped by exactly one component
//    (then: double next_time<L>(E&), the earliest, and void fire<L>(E&), which steps it);
//  - decides_service: it draws each attempt's service requirement (then: double service_time(E&)).
//  - cancels: it may cancel an attempt in service (E::cancel), so the core skips cancelled ends.
// Hooks (all no-ops here; E is the engine, whose public part is the components' view of the core).
// Every hook of an inactive component returns at once; a hook returning bool is folded in list order
// with short-circuit (&& for accepts_arrival, allow_call, holds_back..., || for gives_up_*). Randomness: a component
// draws only from the streams the core owns for its purpose (E::stream<id>()), and only when it is on.
#include <array>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "montecarlo/engine_parts.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metric.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"

// A hook call is inlined into the loop: every fold below, and every lambda the core folds with.
#if defined(__GNUC__)
#define RL_HOOK __attribute__((always_inline))
#else
#define RL_HOOK
#endif

namespace retrylab::montecarlo::detail {

struct EngineScratch;

// The event kinds a component can be the source of (besides the core's own: service ends,
// arrivals, wake-ups). At one instant the core steps them in this order (engine.hpp's invariants);
// lane_send (a component's own sends of more attempts for a waiting client: hedges) comes after
// the reaches, before arrivals.
enum Lane : unsigned { lane_response = 1, lane_timeout = 2, lane_reach = 4, lane_send = 8 };

struct Component {
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return false; }
  // The rules between its parameters and the rest of the scenario, after every field passed its
  // own row's range (check_scenario calls each component's, in FullParts order).
  static void check(const Scenario& /*s*/) {}
  static constexpr bool delays_start = false;
  static constexpr unsigned lanes = 0;
  static constexpr bool decides_service = false;  // then: double service_time(E&)
  static constexpr bool cancels = false;          // it may call E::cancel(j)
  // Its parameters: rows of the field table (montecarlo/fields.hpp), each reading its member of Scenario.
  static constexpr std::array<Field, 0> fields{};
  // Its metrics (montecarlo/metric.hpp), which report() writes in this order.
  static constexpr std::array<MetricDef, 0> metrics{};

  // Storage a worker thread lends to each run (EngineScratch): swap the component's containers in
  // and out (at construction and destruction); reset empties them for the run, keeping memory.
  void lend(EngineScratch& /*scratch*/) noexcept {}
  void reset() noexcept {}

  // A client arrives: before its record is set (base: the backoff base its decorrelated state
  // starts from), and after.
  template <class E>
  void on_new_client(E& /*e*/, std::int32_t /*c*/, double& /*base*/) {}
  template <class E>
  void on_arrival(E& /*e*/, std::int32_t /*c*/, double /*t*/) {}

  // A steady arrival's candidate at t (not a burst client): false drops it before any client
  // exists (a load profile's thinning).
  template <class E>
  bool accepts_arrival(E& /*e*/, double /*t*/) {
    return true;
  }
  // Client c is about to send: false rejects the call locally (unsent; the client backs off).
  template <class E>
  bool allow_call(E& /*e*/, std::int32_t /*c*/) {
    return true;
  }
  // Client c, still waiting for its request, may send one more attempt of it now (a hedge): false
  // refuses it (a retry budget's throttle). Asked by the component that sends hedges, not the core.
  template <class E>
  bool allows_hedge(E& /*e*/, std::int32_t /*c*/) {
    return true;
  }
  // Attempt j of client c was sent now (its id and client are set).
  template <class E>
  void on_send(E& /*e*/, std::int32_t /*c*/, std::int32_t /*j*/) {}
  // The attempt's way to the server: true when the component carries it (a network leg) and will
  // call e.reach(j) later; false: it reaches the server now. carries_back: the same for the reply
  // (then it calls e.deliver(j) later).
  template <class E>
  bool carries(E& /*e*/, std::int32_t /*j*/) {
    return false;
  }
  template <class E>
  bool carries_back(E& /*e*/, std::int32_t /*j*/) {
    return false;
  }
  // Admission at the server: false when the component took the attempt (queued or rejected it).
  template <class E>
  bool admits(E& /*e*/, std::int32_t /*j*/) {
    return true;
  }
  // Attempt j was rejected at the server (job.rejected is set).
  template <class E>
  void on_rejected(E& /*e*/, std::int32_t /*j*/) {}
  // Attempt j was admitted (e.admitted() counts it); then: true when the component holds it back
  // (a row's lock), and starts its service later.
  template <class E>
  void on_admit(E& /*e*/, std::int32_t /*j*/) {}
  template <class E>
  bool holds_back(E& /*e*/, std::int32_t /*j*/) {
    return false;
  }
  // Attempt j (not a rejection) starts its service now.
  template <class E>
  void on_service_start(E& /*e*/, std::int32_t /*j*/) {}
  // Whether an attempt the model would let succeed fails instead (injected failures).
  template <class E>
  bool injects(E& /*e*/) {
    return false;
  }
  // Attempt j (not a rejection) was decided at the end of its service (job.success is set).
  template <class E>
  void on_served(E& /*e*/, std::int32_t /*j*/) {}
  // Admitted attempt j leaves the server (after on_served; e.admitted() no longer counts it).
  template <class E>
  void on_release(E& /*e*/, std::int32_t /*j*/) {}
  // Attempt j is done at the server and for its client (its slot is freed next).
  template <class E>
  void on_job_done(E& /*e*/, std::int32_t /*j*/) {}
  // The outcome of attempt j reaches its client: on_reply first (false: the component ended the
  // reply's handling, an orphan's), then, unless the attempt was orphaned, on_outcome.
  template <class E>
  bool on_reply(E& /*e*/, std::int32_t /*j*/) {
    return true;
  }
  template <class E>
  void on_outcome(E& /*e*/, std::int32_t /*j*/) {}
  // After the outcome of attempt j is tallied: true when the component takes it over for its
  // client, which then neither succeeds nor fails now (one of several attempts of a request in
  // flight: a hedge's failure while others may still answer, a reply to a request already answered).
  template <class E>
  bool absorbs(E& /*e*/, std::int32_t /*j*/) {
    return false;
  }
  // A rejection's Retry-After for its client, and whether client c heeds it.
  template <class E>
  double retry_after_of(E& /*e*/, std::int32_t /*j*/) {
    return 0.0;
  }
  template <class E>
  bool heeds_retry_after(E& /*e*/, std::int32_t /*c*/) {
    return true;
  }
  // Client c's request succeeded now, `latency` after its arrival.
  template <class E>
  void on_succeeded(E& /*e*/, std::int32_t /*c*/, double /*latency*/) {}
  // Client c stopped waiting for attempt j (a client timeout).
  template <class E>
  void on_timed_out(E& /*e*/, std::int32_t /*j*/) {}
  // The client policy chain after a failure of client c: before its sleep is drawn (true: give
  // up), who draws the sleep (true: this component did, into `sleep`; else the core's sampler), and
  // after (true: give up; timed_out: the failure was a timeout).
  template <class E>
  bool gives_up_before_sleep(E& /*e*/, std::int32_t /*c*/) {
    return false;
  }
  template <class E>
  bool draws_sleep(E& /*e*/, std::int32_t /*c*/, double& /*sleep*/) {
    return false;
  }
  template <class E>
  bool gives_up_after_sleep(E& /*e*/, std::int32_t /*c*/, double /*sleep*/, bool /*timed_out*/) {
    return false;
  }
  // Client c gives up (lost); client c leaves: true when the component keeps its slot (and frees
  // it later through e.free_client).
  template <class E>
  void on_give_up(E& /*e*/, std::int32_t /*c*/) {}
  template <class E>
  bool keeps_client(E& /*e*/, std::int32_t /*c*/) {
    return false;
  }
  // The clock moves by dt inside the measurement window.
  void on_advance(double /*dt*/) noexcept {}
  // The concurrency limit in force (0: none), for observers.
  std::int64_t limit_in_force() const noexcept { return 0; }
  // The run goes on while this holds, past the horizon (settling).
  bool holds_run_open() const noexcept { return false; }
  // Writes the component's metrics (out[k]: metrics[k]) when the run ends at `stop`; core: the
  // core's part of the result (counts, times).
  template <class E>
  void report(E& /*e*/, const RunResult& /*core*/, double /*stop*/, MetricOut /*out*/) {}
};

// A component's per-attempt and per-client state: its nested JobState / ClientState, or an empty
// type of its own (distinct per component, so the composed structs below can inherit them all).
template <class C>
struct NoState {};
template <class C>
struct job_state_of {
  using type = NoState<C>;
};
template <class C>
requires requires { typename C::JobState; }
struct job_state_of<C> {
  using type = typename C::JobState;
};
template <class C>
struct client_state_of {
  using type = NoState<C>;
};
template <class C>
requires requires { typename C::ClientState; }
struct client_state_of<C> {
  using type = typename C::ClientState;
};

// What the core keeps of an attempt in the full tier beside Job (jobs.hpp): its send and reach
// times (when a component delays the start), its service start order (collision), its row, and
// the next job in a FIFO (row lock, limit queue) or in the free list.
struct CoreJobState {
  double sent = 0.0, reached = 0.0;
  std::int64_t seq = 0;
  std::int32_t row = 0;
  std::int32_t next = -1;
};

// The composed per-attempt and per-client records: each component reads its own part as a base
// (`JobState& mine = e.extra(j);`).
template <class... Cs>
struct ComposedJob : CoreJobState, job_state_of<Cs>::type... {};
template <class... Cs>
struct ComposedClient : client_state_of<Cs>::type... {};

// A build's components, in hook order. Every fold below is over the list in order.
template <class... Cs>
class Parts {
 public:
  static constexpr bool empty = sizeof...(Cs) == 0;
  template <class C>
  static constexpr bool has = (std::is_same_v<C, Cs> || ...);
  static constexpr bool delays_start = (Cs::delays_start || ...);
  static constexpr bool cancels = (Cs::cancels || ...);
  template <unsigned L>
  static constexpr bool has_lane = (((Cs::lanes & L) != 0) || ...);
  template <unsigned L>
  static constexpr int lane_sources = (int{(Cs::lanes & L) != 0} + ... + 0);
  static_assert(lane_sources<lane_response> <= 1 && lane_sources<lane_timeout> <= 1 && lane_sources<lane_reach> <= 1 &&
                    lane_sources<lane_send> <= 1,
                "each event lane has one source");

  template <class Faults>
  Parts(const Scenario& s, const Faults& faults) : items_(Cs(s, faults)...) {}

  template <class C>
  C& get() noexcept {
    return std::get<C>(items_);
  }
  // f(component) for each, in order.
  template <class F>
  RL_HOOK void each(F&& f) {
    each_in(f, std::index_sequence_for<Cs...>{});
  }
  // f(component) in order while it returns true / false; the fold's value.
  template <class F>
  RL_HOOK bool all(F&& f) {
    return all_in(f, std::index_sequence_for<Cs...>{});
  }
  template <class F>
  RL_HOOK bool any(F&& f) {
    return any_in(f, std::index_sequence_for<Cs...>{});
  }

  // The service requirement of an attempt: the deciding component's draw, else `otherwise`.
  template <class E>
  [[gnu::always_inline]] double service_time(E& e, double otherwise) {
    double x = otherwise;
    each([&](auto& p) RL_HOOK {
      if constexpr (std::decay_t<decltype(p)>::decides_service) x = p.service_time(e);
    });
    return x;
  }
  // The earliest event of lane L (+inf when no component is its source), and its step.
  template <unsigned L, class E>
  [[gnu::always_inline]] double next_time(E& e) {
    double t = std::numeric_limits<double>::infinity();
    each([&](auto& p) RL_HOOK {
      if constexpr ((std::decay_t<decltype(p)>::lanes & L) != 0) t = p.template next_time<L>(e);
    });
    return t;
  }
  template <unsigned L, class E>
  void fire(E& e) {
    each([&](auto& p) {
      if constexpr ((std::decay_t<decltype(p)>::lanes & L) != 0) p.template fire<L>(e);
    });
  }

  // Whether every component s turns on is in this list / allows the one-event shortcut.
  template <class... All>
  static bool hosts(const Scenario& s, Parts<All...>* /*all*/) noexcept {
    return ((!All::active(s) || has<All>)&&...);
  }
  static bool allow_one_event(const Scenario& s) noexcept {
    return ((!Cs::active(s) || Cs::allows_one_event(s)) && ...);
  }

 private:
  template <class F, std::size_t... I>
  RL_HOOK void each_in(F& f, std::index_sequence<I...> /*i*/) {
    (f(std::get<I>(items_)), ...);
  }
  template <class F, std::size_t... I>
  RL_HOOK bool all_in(F& f, std::index_sequence<I...> /*i*/) {
    return (f(std::get<I>(items_)) && ...);
  }
  template <class F, std::size_t... I>
  RL_HOOK bool any_in(F& f, std::index_sequence<I...> /*i*/) {
    return (f(std::get<I>(items_)) || ...);
  }

  std::tuple<Cs...> items_;
};

}  // namespace retrylab::montecarlo::detail
