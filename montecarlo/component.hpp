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
//  - cancels: it may cancel an attempt in service (E::cancel), so the core skips cancelled ends; or
//    one queued at the server (E::withdraw) or its client's wait only (E::orphan).
//  - refuses_locally(s): on in s, it may refuse a call at the decision's send step (a `refused`
//    outcome: no attempt), so the series shows `refused` and check_scenario asks a client on strategy
//    none for max_attempts (it would retry at one instant forever).
//  - sends_several: it may keep several attempts of a request in flight (hedging); then every other
//    component s turns on must declare allows_several_in_flight(s) (default false, so a new component
//    that counts on one attempt per request is safe: check_scenario refuses the combination).
//  - shows_controls: when it is on, outputs show the controls' metrics (shown::controls).
//  - series: the time-series quantities it adds (SeriesQuantityDef, montecarlo/metric.hpp; registered
//    as metrics are: every series output carries them), told through E::tell_series<C>(k, value).
// Hooks (all no-ops here; E is the engine, whose public part is the components' view of the core).
// Every hook of an inactive component returns at once; a hook returning bool is folded in list order
// with short-circuit (&& for accepts_arrival, admits, on_reply; || for holds_back, carries, keeps_client). What
// a client does is one protocol: every outcome is a record every component hears (Outcome), and every
// step of a request is one decision folded over the components (Decision). Randomness: a component
// declares its own streams (`streams`, ids of montecarlo/random.hpp) and draws only from them (and
// the core's sleeps stream, for a sleep), with E::stream<id>(), and only when it is on. Storage a
// worker lends to each run: the component's `Scratch`, held type-indexed by the worker's
// EngineScratch (builds.hpp) and swapped in and out by its `lend`.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "montecarlo/engine_parts.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metric.hpp"
#include "montecarlo/random.hpp"
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
enum Lane : unsigned { lane_response = 1, lane_timeout = 2, lane_reach = 4, lane_send = 8, lane_deadline = 16 };
// lane_deadline (a request's deadline that cancels its attempt: deadline_cancel.hpp) comes after the
// client timeouts, before the reaches.

// What became of an attempt, or of a call never sent, as its client learns it: the record every
// component hears (on_outcome), written by the core and completed by the component that knows more
// (describe). job is the attempt's slot, valid while the hooks run (-1: refused, no attempt).
enum class OutcomeKind : std::uint8_t {
  success,    // answered
  failed,     // the dependency failed it (a collision, an injected failure)
  throttled,  // the dependency failed it with a throttling status (status throttled)
  rejected,   // the server's admission control rejected it (maybe with a Retry-After)
  timeout,    // its client stopped waiting (a client timeout; the server carries on)
  refused,    // refused locally before it was sent (a breaker, adaptive throttling): no attempt
  cancelled,  // cancelled (a hedge's sibling answered, its request's deadline came): no reply will come
};
// Where a cancelled queued attempt was (Component::withdraws): not held by the component, in a queue
// before admission (the limit's), or in a queue after admission (a row's lock: e.admitted() counted it).
enum class Withdrawn : std::uint8_t { not_held, before_admission, after_admission };
struct Outcome {
  std::int32_t job = -1;
  std::int32_t client = 0;
  OutcomeKind kind = OutcomeKind::failed;
  // What the failure tells its client (retryable, throttled, fatal; scenario.hpp): written by the
  // component that failed it (injection, the limit); retryable for every other failure, a client
  // timeout and a local refusal included. Meaningless for a success or a cancellation.
  FailureKind status = FailureKind::retryable;
  double retry_after = 0.0;  // the server's Retry-After with a rejection (0: none)
};

// The decision fold: each step of a request asks the components, in list order, what the client
// does; a component may change the verb, and the fold stops at the first that does (Parts::decide).
// The steps (d.ask), each with the verb it starts from and the verbs a component may answer:
//  - send: client c is about to send an attempt (its first or a retry): send, or refuse (not sent;
//    the core makes it a `refused` outcome and the request fails), or wait (not sent now: the client
//    asks again at now + d.sleep; a rate limiter's token);
//  - hedge: client c, still waiting, may send one more attempt of its request (hedge.hpp): send,
//    or refuse (not sent);
//  - claim: an outcome of one of c's attempts reached it (d.outcome; answered for a success, retry
//    otherwise): absorb, when the component takes it over (a hedge's failure while others may still
//    answer, a late reply), so the client neither succeeds nor fails now;
//  - before_sleep: c's request failed (d.outcome): retry, or give_up (lost), before its sleep is
//    drawn (a retry limit);
//  - sleep: the backoff: a component may draw the sleep itself (d.sleep, d.drawn: a mixed-in
//    backoff; the fold stops once one did, else the core's sampler draws it) or drop the
//    Retry-After (d.retry_after: a client that ignores it); then d.sleep = max(sleep, retry_after);
//  - after_sleep: the sleep is known: retry at now + d.sleep, or give_up (a deadline, a budget, a
//    quota).
enum class Ask : std::uint8_t { send, hedge, claim, before_sleep, sleep, after_sleep };
enum class Verb : std::uint8_t { send, refuse, answered, retry, give_up, absorb, wait };
struct Decision {
  Ask ask;
  Verb verb;
  std::int32_t client;
  const Outcome* outcome = nullptr;  // claim, before_sleep, sleep, after_sleep
  double sleep = 0.0;                // sleep: the backoff's; after_sleep: Retry-After included
  double retry_after = 0.0;          // the outcome's Retry-After, unless the client ignores it
  bool drawn = false;                // sleep: a component drew it
};

struct Component {
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return false; }
  // The rules between its parameters and the rest of the scenario, after every field passed its
  // own row's range (check_scenario calls each component's, in FullParts order).
  static void check(const Scenario& /*s*/) {}
  static constexpr bool delays_start = false;
  static constexpr unsigned lanes = 0;
  static constexpr bool decides_service = false;  // then: double service_time(E&)
  static constexpr bool cancels = false;          // it may call E::cancel(j)
  static bool refuses_locally(const Scenario& /*s*/) noexcept { return false; }
  static constexpr bool sends_several = false;
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return false; }
  static constexpr bool shows_controls = false;
  static constexpr std::array<SeriesQuantityDef, 0> series{};
  // Its parameters: rows of the field table (montecarlo/fields.hpp), each reading its member of Scenario.
  static constexpr std::array<Field, 0> fields{};
  // Its metrics (montecarlo/metric.hpp), which report() writes in this order.
  static constexpr std::array<MetricDef, 0> metrics{};

  // Its random streams: the ids it draws from with E::stream<id>() (each id is the Philox counter's
  // stream word, so the stream's seed: an id is never reused, random.hpp). The engine makes one
  // Stream per id a component of its build declares (ComponentStreams).
  static constexpr std::array<StreamId, 0> streams{};
  // Storage a worker thread lends to each run: its containers (Scratch, held for it by the worker's
  // EngineScratch, builds.hpp) are swapped in and out by lend (at construction and destruction);
  // reset empties them for the run, keeping memory.
  struct Scratch {};
  void lend(Scratch& /*scratch*/) noexcept {}
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
  // Whether attempt j, which the model would let succeed, fails instead (injected failures).
  template <class E>
  bool injects(E& /*e*/, std::int32_t /*j*/) {
    return false;
  }
  // Attempt j (not a rejection) was decided at the end of its service (job.success is set).
  template <class E>
  void on_served(E& /*e*/, std::int32_t /*j*/) {}
  // Admitted attempt j leaves the server (after on_served; e.admitted() no longer counts it).
  template <class E>
  void on_release(E& /*e*/, std::int32_t /*j*/) {}
  // Attempt j, queued by this component (not yet in service), is cancelled: the component takes it
  // out of its queue (E::unlink) and says where it was; not_held when it does not hold it. Then every
  // component hears on_withdrawn (the limit's queue moves up when a place after admission was freed).
  template <class E>
  Withdrawn withdraws(E& /*e*/, std::int32_t /*j*/) {
    return Withdrawn::not_held;
  }
  template <class E>
  void on_withdrawn(E& /*e*/, std::int32_t /*j*/, Withdrawn /*where*/) {}
  // Attempt j is done at the server and for its client (its slot is freed next), or done for its
  // client only (cancelled: E::cancel, E::withdraw, E::orphan). job.cancelled says it left the server
  // unserved (abandoned in service or withdrawn from a queue); an orphan is still there.
  template <class E>
  void on_job_done(E& /*e*/, std::int32_t /*j*/) {}
  // The reply of attempt j reaches its client: false when the component ended its handling (an
  // orphan's reply); else the outcome record is made (describe, then on_outcome).
  template <class E>
  bool on_reply(E& /*e*/, std::int32_t /*j*/) {
    return true;
  }
  // The outcome protocol (Outcome, above): a component that knows more of an outcome than the core
  // writes it in (describe: the server's Retry-After of a rejection), then every component hears it
  // (on_outcome): every kind, a client timeout, a local refusal and a cancellation included.
  template <class E>
  void describe(E& /*e*/, Outcome& /*o*/) {}
  template <class E>
  void on_outcome(E& /*e*/, const Outcome& /*o*/) {}
  // The decision fold (Decision, above): asked at each step d.ask of a request, in list order,
  // while the verb keeps its value for that step (Parts::decide); a component answers the steps it
  // takes part in and leaves the rest alone.
  template <class E>
  void decide(E& /*e*/, Decision& /*d*/) {}
  // Client c's request succeeded now, `latency` after its arrival.
  template <class E>
  void on_succeeded(E& /*e*/, std::int32_t /*c*/, double /*latency*/) {}
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
// times (when a component delays the start), its service start order (collision), its row, the
// next job in a FIFO (row lock, limit queue) or in the free list, and its stage: set by the core
// (sent at its send, in_service at its service start, a rejection's with a reject_cost included,
// done when its service ends; a free rejection stays sent), it tells a component that cancels the
// attempt where it is (components/cancel_attempt.hpp).
enum class Stage : std::uint8_t { sent, in_service, done };
struct CoreJobState {
  double sent = 0.0, reached = 0.0;
  std::int64_t seq = 0;
  std::int32_t row = 0;
  std::int32_t next = -1;
  Stage stage = Stage::sent;
};

// The composed per-attempt and per-client records: each component reads its own part as a base
// (`JobState& mine = e.extra(j);`).
template <class... Cs>
struct ComposedJob : CoreJobState, job_state_of<Cs>::type... {};
template <class... Cs>
struct ComposedClient : client_state_of<Cs>::type... {};

// The name a rule uses for component C: its first field's (a component without fields: "").
template <class C>
constexpr std::string_view field_name_of() noexcept {
  if constexpr (std::size(C::fields) > 0) {
    return C::fields[0].name;
  } else {
    return {};
  }
}

// The components' random streams: one Stream per id a component of the build declares (its
// `streams`), found at compile time by stream<id>(). Invariant (static_assert): each id is declared
// once in a build and is none of the core's (arrivals, sleeps, ties) or retired ones, so the ids,
// and with them every stream's numbers, are those the engine had when it owned them by hand.
template <class... Cs>
class ComponentStreams {
 public:
  static constexpr std::size_t count = (std::size(Cs::streams) + ... + 0);
  static constexpr std::array<StreamId, count> ids = [] {
    std::array<StreamId, count> out{};
    [[maybe_unused]] std::size_t i = 0;  // unused by a build without components
    ((std::copy(Cs::streams.begin(), Cs::streams.end(), out.begin() + static_cast<std::ptrdiff_t>(i)),
      i += std::size(Cs::streams)),
     ...);
    return out;
  }();
  static constexpr bool valid = [] {
    for (std::size_t i = 0; i < count; ++i) {
      if (!component_stream_id(ids[i])) return false;
      for (std::size_t k = i + 1; k < count; ++k)
        if (ids[i] == ids[k]) return false;
    }
    return true;
  }();
  static_assert(valid, "a component's stream id is declared twice, or is the core's or a retired one (random.hpp)");

  ComponentStreams(std::uint64_t key, std::uint64_t run) noexcept
      : streams_(make(key, run, std::make_index_sequence<count>{})) {}

  template <StreamId id>
  [[gnu::always_inline]] Stream& get() noexcept {
    constexpr std::size_t i = index_of(id);
    static_assert(i < count, "no component of this build declares the stream (its `streams`)");
    return streams_[i];
  }

 private:
  static constexpr std::size_t index_of(StreamId id) noexcept {
    for (std::size_t i = 0; i < count; ++i)
      if (ids[i] == id) return i;
    return count;
  }
  template <std::size_t... I>
  static std::array<Stream, count> make([[maybe_unused]] std::uint64_t key, [[maybe_unused]] std::uint64_t run,
                                        std::index_sequence<I...> /*i*/) noexcept {
    return {Stream(key, ids[I], run)...};
  }

  std::array<Stream, count> streams_;
};

// Each component's Scratch, type-indexed by the component (of<C>()): the storage a worker lends to
// each run of any build whose components are among Cs.
template <class C>
struct ScratchSlot {
  typename C::Scratch value;
};
template <class... Cs>
struct ComponentScratch {
  std::tuple<ScratchSlot<Cs>...> slots;
  template <class C>
  typename C::Scratch& of() noexcept {
    return std::get<ScratchSlot<C>>(slots).value;
  }
};

// A build's components, in hook order. Every fold below is over the list in order.
template <class... Cs>
class Parts {
 public:
  static constexpr bool empty = sizeof...(Cs) == 0;
  using Streams = ComponentStreams<Cs...>;
  using Scratch = ComponentScratch<Cs...>;
  template <class C>
  static constexpr bool has = (std::is_same_v<C, Cs> || ...);
  static constexpr bool delays_start = (Cs::delays_start || ...);
  static constexpr bool cancels = (Cs::cancels || ...);
  template <unsigned L>
  static constexpr bool has_lane = (((Cs::lanes & L) != 0) || ...);
  template <unsigned L>
  static constexpr int lane_sources = (int{(Cs::lanes & L) != 0} + ... + 0);
  static_assert(lane_sources<lane_response> <= 1 && lane_sources<lane_timeout> <= 1 && lane_sources<lane_reach> <= 1 &&
                    lane_sources<lane_send> <= 1 && lane_sources<lane_deadline> <= 1,
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
  // The decision fold (Decision): each component's decide in order, until one changes the verb (or,
  // at the sleep step, draws the sleep).
  template <class E>
  RL_HOOK void decide(E& e, Decision& d) {
    const Verb from = d.verb;
    all([&](auto& p) RL_HOOK {
      p.decide(e, d);
      return d.verb == from && !(d.ask == Ask::sleep && d.drawn);
    });
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
  // Whether a component s turns on may refuse a call locally / shows the controls' metrics.
  static bool refuses_locally(const Scenario& s) noexcept { return ((Cs::active(s) && Cs::refuses_locally(s)) || ...); }
  static bool shows_controls(const Scenario& s) noexcept { return ((Cs::shows_controls && Cs::active(s)) || ...); }
  // The first field of the first component s turns on that may refuse a call locally ("" when none).
  static std::string_view first_refusing(const Scenario& s) noexcept {
    std::string_view out;
    ((out.empty() && Cs::active(s) && Cs::refuses_locally(s) ? (out = field_name_of<Cs>(), 0) : 0), ...);
    return out;
  }
  // With a component on that sends several attempts of a request, the first field of the first other
  // component s turns on that does not allow them ("" when none, or when none sends several).
  static std::string_view one_in_flight_only(const Scenario& s) noexcept {
    if (!((Cs::sends_several && Cs::active(s)) || ...)) return {};
    std::string_view out;
    ((out.empty() && !Cs::sends_several && Cs::active(s) && !Cs::allows_several_in_flight(s)
          ? (out = field_name_of<Cs>(), 0)
          : 0),
     ...);
    return out;
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
