#pragma once
// The event loop's builds (internal): which components each is compiled with, in hook order, and
// how a scenario's build is derived (docs/architecture.md).
//  - plain: no component; the core alone (JobRing: every attempt served at once for one unit).
//    Taken when no scenario field that the original loop lacks is set (has_server_features) and
//    the full tier is not asked for.
//  - lean: the components whose per-attempt work is small (the server view, rows, service times,
//    client timeouts and their effects, retry limits, deadlines): the rest compiles away.
//  - full: every component.
// A scenario runs on the first of lean, full whose list holds every component it turns on
// (Parts::hosts over FullParts, which lists them all): a new component added to FullParts alone is
// safe by default, since any scenario that turns it on takes the full build.
// Hook order is the list's: the decision fold (component.hpp) asks breaker, then budget (its send
// step; they hear outcomes in that order too), and deadline, then budget, then quota (its after_sleep
// step); the lock passes a row on before the limit's queue moves (on_release). The results of every
// golden depend on it. Hedge's cancellations (on_succeeded) follow every other component's hook for
// the answering attempt. A component added later goes last (its metrics take the next slots):
// RetryOn (failure kinds), RetriesInFlight, AdaptiveRate (its send step answers wait),
// DeadlineCancel (its deadline lane), Replicas (the balancer: the limit and the injection read the
// replica it writes at on_send, which comes before any admission or service).
#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>
#include <vector>

#include "montecarlo/component.hpp"
#include "montecarlo/components/adaptive_rate.hpp"
#include "montecarlo/components/breaker.hpp"
#include "montecarlo/components/budget.hpp"
#include "montecarlo/components/deadline.hpp"
#include "montecarlo/components/deadline_cancel.hpp"
#include "montecarlo/components/effects.hpp"
#include "montecarlo/components/hedge.hpp"
#include "montecarlo/components/injection.hpp"
#include "montecarlo/components/limit.hpp"
#include "montecarlo/components/load_profile.hpp"
#include "montecarlo/components/lock.hpp"
#include "montecarlo/components/network.hpp"
#include "montecarlo/components/population.hpp"
#include "montecarlo/components/quota.hpp"
#include "montecarlo/components/recovery.hpp"
#include "montecarlo/components/replicas.hpp"
#include "montecarlo/components/retries_in_flight.hpp"
#include "montecarlo/components/retry_limit.hpp"
#include "montecarlo/components/retry_on.hpp"
#include "montecarlo/components/rows.hpp"
#include "montecarlo/components/server_view.hpp"
#include "montecarlo/components/service.hpp"
#include "montecarlo/components/settle.hpp"
#include "montecarlo/components/timeout.hpp"
#include "montecarlo/jobs.hpp"
#include "montecarlo/wake_queue.hpp"

namespace retrylab::montecarlo::detail {

using PlainParts = Parts<>;
using LeanParts = Parts<ServerView, Rows, Service, Timeout, Effects, RetryLimit, Deadline>;
using FullParts = Parts<ServerView, Rows, Service, Network, Population, Lock, Limit, Timeout, Effects, Breaker,
                        RetryLimit, Deadline, Budget, Quota, Injection, Recovery, Settle, LoadThinning, Hedge, RetryOn,
                        RetriesInFlight, AdaptiveRate, DeadlineCancel, Replicas>;

// The per-attempt and per-client records of the full tier: every component's state (one layout for
// both full builds, so a worker's lent storage serves either).
template <class P>
struct composed;
template <class... Cs>
struct composed<Parts<Cs...>> {
  using job = ComposedJob<Cs...>;
  using client = ComposedClient<Cs...>;
};
using JobExtra = composed<FullParts>::job;
using ClientExtra = composed<FullParts>::client;

// A waiting client: what every tier reads (32 bytes).
struct EngineClient {
  double arrival;
  double prev;  // decorrelated jitter state s_(k−1)
  std::int64_t serial;
  std::int32_t failures;
  bool burst;
};

// An attempt in flight in the one-event shortcut, by client (a client has at most one).
struct EngineFlight {
  double sent = 0.0, start = 0.0;
  std::int64_t id = 0;
  std::int32_t row = 0;
  bool success = false;
};

// Storage a worker thread lends to each run it does (run_in_order_with): the queues, the job slots
// and the client tables, whose memory is then allocated once per thread, not once per run (on a
// short run, such as Brooker's test, the full tier's queues, job slab and latency list cost as much
// in allocation and first touches as in use). A run swaps the containers in (the core's, and each
// component's Scratch through its lend()), clears them, and swaps them back out when it ends; no
// result depends on what the storage held.
struct EngineScratch {
  MonotoneWakeQueue wakes;
  std::vector<EngineClient> clients;
  std::vector<std::int32_t> free_clients;
  // The full tier's.
  JobSlab<JobExtra> jobs{false};
  std::vector<ClientExtra> client_extra;
  std::vector<EngineFlight> flights;
  FullParts::Scratch parts;  // each component's own (its Scratch), for any full build

  template <class C>
  typename C::Scratch& of() noexcept {
    return parts.template of<C>();
  }
};

// The components' metrics (montecarlo/metric.hpp), in FullParts order: component C's k-th metric is
// slot metric_offset<C> + k of RunResult::extra and Summary::extra (every build uses FullParts'
// slots, so a result's slots mean the same whatever build made it).
template <class P>
struct metric_table;
template <class... Cs>
struct metric_table<Parts<Cs...>> {
  static constexpr std::size_t count = (std::size(Cs::metrics) + ... + 0);
  static constexpr std::array<MetricDef, count> defs = [] {
    std::array<MetricDef, count> out{};
    std::size_t i = 0;
    ((std::copy(Cs::metrics.begin(), Cs::metrics.end(), out.begin() + static_cast<std::ptrdiff_t>(i)),
      i += std::size(Cs::metrics)),
     ...);
    return out;
  }();
  template <class C>
  static constexpr std::size_t offset = [] {
    std::size_t off = 0;
    bool found = false;
    ((found = found || std::is_same_v<C, Cs>, off += found ? 0 : std::size(Cs::metrics)), ...);
    return off;
  }();
};
using component_metrics = metric_table<FullParts>;
static_assert(component_metrics::count <= max_component_metrics, "raise max_component_metrics (result.hpp)");
static_assert(
    [] {
      const auto& d = component_metrics::defs;
      for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t k = i + 1; k < d.size(); ++k)
          if (d[i].key == d[k].key || d[i].rank == d[k].rank) return false;
      return true;
    }(),
    "two component metrics share a key or a rank");

// The parts list whose slots a build's results use: FullParts for every build of its components
// (plain, lean, full: one meaning per slot), else the build's own list (a test's, with a component
// of its own: tests/montecarlo/toy_component_test.cpp).
template <class P>
struct universe_of;
template <class... Cs>
struct universe_of<Parts<Cs...>> {
  using type = std::conditional_t<(FullParts::has<Cs> && ...), FullParts, Parts<Cs...>>;
};
template <class P>
using universe_t = typename universe_of<P>::type;

// The time-series quantities (montecarlo/series.hpp) of a parts list: the core's and every
// component's (its `series`), in rank order: slot i of a run's series is defs[i]. Component C's k-th
// quantity is slot slot<C>(k). FullParts' table is the series registry.
template <class P>
struct series_table;
template <class... Cs>
struct series_table<Parts<Cs...>> {
  static constexpr std::size_t count = std::size(core_series) + (std::size(Cs::series) + ... + 0);
  static constexpr std::array<SeriesQuantityDef, count> defs = [] {
    std::array<SeriesQuantityDef, count> out{};
    std::size_t i = 0;
    for (SeriesQuantityDef d : core_series) {
      if (d.shown == nullptr) d.shown = [](const Scenario& s) { return Parts<Cs...>::refuses_locally(s); };
      out[i++] = d;
    }
    ((std::copy(Cs::series.begin(), Cs::series.end(), out.begin() + static_cast<std::ptrdiff_t>(i)),
      i += std::size(Cs::series)),
     ...);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
    return out;
  }();
  template <class C>
  static constexpr std::size_t slot(std::size_t k) {
    for (std::size_t i = 0; i < count; ++i)
      if (defs[i].rank == C::series[k].rank) return i;
    return count;
  }
  static_assert(
      [] {
        for (std::size_t i = 1; i < count; ++i)
          if (defs[i].rank == defs[i - 1].rank) return false;
        for (std::size_t i = 0; i < count; ++i)
          for (std::size_t k = i + 1; k < count; ++k)
            if (defs[i].key == defs[k].key || defs[i].column == defs[k].column) return false;
        return true;
      }(),
      "two series quantities share a key, a rank or a column");
};

// A run's result: the core's part, every component metric at its value for a run without the
// component, then each component of the build writes its own (in its universe's slots).
template <class E, class P>
void fill_metrics(E& e, P& parts, RunResult& r, double stop) {
  using table = metric_table<universe_t<P>>;
  static_assert(table::count <= max_component_metrics, "raise max_component_metrics (result.hpp)");
  const auto& defs = table::defs;
  for (std::size_t i = 0; i < defs.size(); ++i) r.extra[i] = defs[i].when_absent(r);
  parts.each([&](auto& p) {
    using C = std::decay_t<decltype(p)>;
    p.report(e, static_cast<const RunResult&>(r), stop, MetricOut{r.extra.data() + table::template offset<C>});
  });
}

// Whether a full-tier run of s can take the lean build: every component it turns on is in it.
inline bool lean_applies(const Scenario& s) noexcept { return LeanParts::hosts(s, static_cast<FullParts*>(nullptr)); }

}  // namespace retrylab::montecarlo::detail
