// Model invariants (docs/models.md §1) as rapidcheck properties over random small scenarios,
// checked on the engine's full trace (TraceObserver): every rule is re-derived from the raw history
// (starts, ends, outcomes), independently of how the engine computed it. The seed rapidcheck prints
// on failure replays the case (RC_PARAMS="seed=...").
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "montecarlo/engine.hpp"
#include "tests/montecarlo/engine_instances.hpp"
#include "trace.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;

namespace {

struct Case {
  mc::Scenario s;
  std::uint64_t seed;
};

rc::Gen<Case> gen_case(rc::Gen<Model> model) {
  return rc::gen::exec([model] {
    Case c;
    c.s.model = *model;
    c.s.backoff.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal,
                                             Strategy::decorrelated, Strategy::window);
    c.s.backoff.base = *rc::gen::element(0.25, 0.5, 1.0, 1.5);
    c.s.backoff.cap = c.s.backoff.base * *rc::gen::element(1.0, 3.0, 10.0, retrylab::unbounded_cap);
    c.s.backoff.window = *rc::gen::element(0.5, 2.0, 7.0);
    c.s.traffic.clients = *rc::gen::inRange<std::int64_t>(0, 13);
    c.s.traffic.rate = *rc::gen::element(0.0, 0.1, 0.4, 1.0, 2.0);
    if (c.s.traffic.clients == 0 && c.s.traffic.rate == 0.0) c.s.traffic.clients = 1;
    c.s.measurement.horizon = *rc::gen::element(5.0, 17.5, 60.0);
    c.s.measurement.warmup = *rc::gen::element(0.0, 1.0, 3.5);
    c.s.measurement.collapse = *rc::gen::element<std::int64_t>(1, 4, 12, 3000);
    c.s.client.retries = *rc::gen::element(true, true, false);
    c.seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
    return c;
  });
}

struct Run {
  mc::RunResult r;
  mc::testing::TraceObserver t;
};

Run run(const Case& c) {
  Run out;
  mc::detail::EngineOptions o;
  o.lockstep_shortcut = false;  // the trace must see every attempt
  out.r = mc::testing::run_engine(c.s, c.seed, 0, o, out.t);
  return out;
}

// Measure of the union of the attempts' intervals clipped to [from, to): the time the resource was
// busy, computed from the trace alone.
double busy_from_trace(const std::vector<mc::testing::TracedAttempt>& as, double from, double to) {
  std::vector<std::pair<double, double>> iv;
  for (const auto& a : as) {
    const double s = std::max(a.start, from), e = std::min(a.ended ? a.end : to, to);
    if (e > s) iv.emplace_back(s, e);
  }
  std::sort(iv.begin(), iv.end());
  double total = 0.0, cur_s = 0.0, cur_e = -1.0;
  for (const auto& [s, e] : iv) {
    if (s > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = s;
      cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  return total;
}

void check_common(const Case& c, const Run& x) {
  const auto& r = x.r;
  const auto& t = x.t;
  RC_ASSERT(!t.bad_serial);
  // Clients counted once, attempts and successes as the trace shows them.
  RC_ASSERT(r.clients_arrived == static_cast<std::int64_t>(t.arrival_time.size()));
  RC_ASSERT(r.attempts == static_cast<std::int64_t>(t.attempts.size()));
  std::int64_t successes = 0, gave_up = 0;
  std::vector<int> client_successes(t.arrival_time.size(), 0), client_attempts(t.arrival_time.size(), 0);
  std::vector<double> success_time(t.arrival_time.size(), INFINITY);
  for (const auto& a : t.attempts) {
    ++client_attempts[static_cast<std::size_t>(a.client)];
    RC_ASSERT(a.start >= t.arrival_time[static_cast<std::size_t>(a.client)]);
    RC_ASSERT(a.start < mc::effective_horizon(c.s));
    RC_ASSERT(a.start <= success_time[static_cast<std::size_t>(a.client)]);  // nothing after success
    if (a.ended && a.success) {
      ++successes;
      ++client_successes[static_cast<std::size_t>(a.client)];
      success_time[static_cast<std::size_t>(a.client)] = a.end;
    }
    if (a.ended && !a.success && !c.s.client.retries) ++gave_up;
    if (a.ended) RC_ASSERT(a.end <= r.stop_time);
  }
  RC_ASSERT(r.successes == successes);
  RC_ASSERT(r.successes <= r.attempts);
  for (std::size_t i = 0; i < client_successes.size(); ++i) {
    RC_ASSERT(client_successes[i] <= 1);
    if (!c.s.client.retries) RC_ASSERT(client_attempts[i] == 1);
  }
  RC_ASSERT(r.unfinished == r.clients_arrived - successes - gave_up);
  RC_ASSERT(r.max_waiting >= r.unfinished);
  RC_ASSERT(r.collapsed == (r.stop == mc::StopReason::collapsed));
  if (r.collapsed) RC_ASSERT(r.max_waiting == c.s.measurement.collapse);
  RC_ASSERT(r.max_waiting <= c.s.measurement.collapse);
  // Attempts end in the order they started (proofs/Engine.v: ps_fifo_order).
  for (std::size_t i = 1; i < t.end_order.size(); ++i) RC_ASSERT(t.end_order[i - 1] < t.end_order[i]);
  // Busy time equals the measure of the union of attempt intervals in the window.
  const double busy = busy_from_trace(t.attempts, c.s.measurement.warmup, r.stop_time);
  RC_ASSERT(std::abs(busy - r.busy_time) <= 1e-9 * std::max(1.0, busy));
}

// First-commit-wins (free, shared): an attempt succeeds iff no successful commit happened in
// (start, end); attempts ending at the same instant that are eligible: exactly one wins.
void check_first_commit_wins(const Run& x) {
  std::vector<double> commits;
  for (const auto& a : x.t.attempts)
    if (a.ended && a.success) commits.push_back(a.end);
  std::sort(commits.begin(), commits.end());
  std::map<double, std::pair<int, int>> groups;  // end time -> (eligible, successes)
  for (const auto& a : x.t.attempts) {
    if (!a.ended) continue;
    const bool conflict =
        std::any_of(commits.begin(), commits.end(), [&](double e) { return e > a.start && e < a.end; });
    if (conflict) RC_ASSERT(!a.success);
    auto& g = groups[a.end];
    g.first += !conflict;
    g.second += a.success;
  }
  for (const auto& [end, g] : groups) RC_ASSERT(g.second == (g.first > 0 ? 1 : 0));
}

RC_GTEST_PROP(Collision, SuccessIffNoOverlap, ()) {
  const Case c = *gen_case(rc::gen::just(Model::collision));
  const Run x = run(c);
  check_common(c, x);
  const auto& as = x.t.attempts;
  for (const auto& a : as) {
    if (!a.ended) continue;
    RC_ASSERT(a.end == a.start + 1.0);
    bool overlap = false;
    for (const auto& b : as)
      if (&a != &b && b.start < a.end && a.start < b.start + 1.0) overlap = true;  // half-open intervals
    RC_ASSERT(a.success == !overlap);
  }
  // Hence no two successful attempts overlap.
  double last_end = -INFINITY;
  for (const auto& a : as)
    if (a.ended && a.success) {
      RC_ASSERT(a.start >= last_end);
      last_end = a.end;
    }
}

RC_GTEST_PROP(Free, SuccessesOneApartAndIdleAttemptsSucceed, ()) {
  const Case c = *gen_case(rc::gen::just(Model::free));
  const Run x = run(c);
  check_common(c, x);
  check_first_commit_wins(x);
  const auto& as = x.t.attempts;
  double last_commit = -INFINITY;
  for (const auto& a : as) {
    if (!a.ended) continue;
    RC_ASSERT(a.end == a.start + 1.0);
    if (a.success) {
      RC_ASSERT(a.end >= last_commit + 1.0);  // proofs/Engine.v: free_success_spacing
      last_commit = a.end;
    }
    // Idle resource: nothing else in flight at its start and nobody starting with it.
    bool alone = true;
    for (const auto& b : as)
      if (&a != &b && b.start <= a.start && a.start < (b.ended ? b.end : b.start + 1.0)) alone = false;
    if (alone) RC_ASSERT(a.success);
  }
}

RC_GTEST_PROP(Shared, WorkConservingFifoFirstCommitWins, ()) {
  const Case c = *gen_case(rc::gen::just(Model::shared));
  const Run x = run(c);
  check_common(c, x);
  check_first_commit_wins(x);
  for (const auto& a : x.t.attempts)
    if (a.ended) RC_ASSERT(a.end - a.start >= 1.0 - 1e-9);  // service at rate <= 1
  RC_ASSERT(std::abs(x.r.busy_time - x.r.work_done) <= 1e-9 * std::max(1.0, x.r.busy_time));
}

RC_GTEST_PROP(Ps, AlwaysSucceedsWorkConserving, ()) {
  const Case c = *gen_case(rc::gen::just(Model::ps));
  const Run x = run(c);
  check_common(c, x);
  for (const auto& a : x.t.attempts)
    if (a.ended) {
      RC_ASSERT(a.success);
      RC_ASSERT(a.end - a.start >= 1.0 - 1e-9);
    }
  RC_ASSERT(std::abs(x.r.busy_time - x.r.work_done) <= 1e-9 * std::max(1.0, x.r.busy_time));
}

}  // namespace
