// Hedging with the rest (components/hedge.hpp with cancel_attempt.hpp, deadline_cancel.hpp and
// timeout.hpp): a copy cancelled in a queue is never served, one in service is abandoned or finished
// (hedge_in_service), a deadline that cancels ends every copy of its request, and a client timeout
// fails one copy at a time. Exact small cases worked by hand (deterministic service: every time
// below is exact in binary), and properties over fixed seeds (no false failures: each run is a pure
// function of its seed): a request is answered at most once, never after its deadline, a copy
// cancelled in a queue never starts service, and a request that ends has no copy left in flight.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "montecarlo/engine.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"

namespace mc = retrylab::montecarlo;
namespace d = retrylab::montecarlo::detail;
using retrylab::Model;
using retrylab::Strategy;

namespace {

// What the cases watch, by client serial and attempt id: sends, service starts, cancellations
// (those before any service start: cancelled in a queue or on the way), answers, and the attempts
// still in flight whenever a request ends (answered or lost: it must have none left). Read from the
// tests' server-view observer (server_trace.hpp), whose own checks of every hook must hold too.
struct Watch {
  std::map<std::int64_t, std::vector<double>> sends;
  std::map<std::int64_t, int> answers;
  std::set<std::int64_t> started, cancelled_unstarted;
  std::int64_t served_after_cancel = 0, cancels = 0, left_flying = 0;
  double worst_latency = 0.0;
  void take(const mc::testing::ServerTrace& t) {
    EXPECT_FALSE(t.bad);
    sends = t.sends_by_client();
    answers = t.answers;
    started.clear();
    for (const auto& [attempt, served] : t.served) started.insert(attempt);
    cancelled_unstarted = t.cancelled_unstarted;
    served_after_cancel = t.served_after_cancel;
    cancels = t.cancels;
    left_flying = t.left_flying;
    worst_latency = t.worst_latency;
  }
};

// One run on `none`'s full build; the client slots still in use at its end in `slots`.
mc::RunResult run(const mc::Scenario& s, Watch& w, std::uint64_t seed = 7, std::size_t* slots = nullptr) {
  mc::check_scenario(s);
  mc::testing::ServerTrace t;
  const mc::testing::NoneRun x = mc::testing::run_none_full(s, seed, 0, d::EngineOptions{}, t);
  w.take(t);
  if (slots != nullptr) *slots = x.client_slots_in_use;
  return x.result;
}

// One client on `none` (no contention), every attempt served for exactly 1, hedged.
mc::Scenario one_client(std::int64_t attempts, double delay) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::none, 1.0, 10.0, 0.0};
  s.traffic.clients = 1;
  s.client.hedge.attempts = attempts;
  s.client.hedge.delay = delay;
  return s;
}

}  // namespace

TEST(HedgeCancel, ACancelledQueuedCopyIsNeverServed) {
  // One slot with a queue; sends at 0, 0.5, 1 (hedge_delay 0.5; ends before sends at 1). The first
  // is served [0, 1) and answers at 1; its end has already admitted the first hedge (it starts at 1)
  // while the second waits in the queue. The answer cancels the queued copy first (it leaves the
  // queue), then the one in service: abandon: it leaves at once (work 1, the run over at 1); finish:
  // the server completes it [1, 2) and its reply is dropped (work 2; settling runs to 2).
  for (const mc::InService rule : {mc::InService::abandon, mc::InService::finish}) {
    mc::Scenario s = one_client(3, 0.5);
    s.admission.limit = 1;
    s.admission.overflow = mc::Overflow::queue;
    s.client.retries = false;
    s.measurement.settle = true;
    s.client.hedge.in_service = rule;
    Watch w;
    const mc::RunResult r = run(s, w);
    const bool finish = rule == mc::InService::finish;
    SCOPED_TRACE(finish ? "finish" : "abandon");
    EXPECT_EQ(w.sends[0], (std::vector<double>{0.0, 0.5}));  // the third was due at 1, after the answer
    EXPECT_EQ(r.attempts, 2);
    EXPECT_EQ(r.successes, 1);
    EXPECT_EQ(r.metric("hedges_cancelled"), 1);
    EXPECT_EQ(w.started.size(), 2U);
    EXPECT_EQ(w.cancelled_unstarted.size(), 0U);
    EXPECT_DOUBLE_EQ(r.work_done, finish ? 2.0 : 1.0);
    EXPECT_DOUBLE_EQ(r.stop_time, finish ? 2.0 : 1.0);
  }
  // Four attempts 0.25 apart: at 1 the first answers; the second starts (admitted by that end), the
  // third and fourth wait in the queue: both leave it unserved, the second is abandoned.
  mc::Scenario s = one_client(4, 0.25);
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.client.retries = false;
  s.measurement.settle = true;
  Watch w;
  const mc::RunResult r = run(s, w);
  EXPECT_EQ(w.sends[0], (std::vector<double>{0.0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(r.metric("hedges_cancelled"), 3);
  EXPECT_EQ(w.cancelled_unstarted.size(), 2U);  // the two queued ones
  EXPECT_EQ(w.served_after_cancel, 0);
  EXPECT_EQ(w.started.size(), 2U);
  EXPECT_DOUBLE_EQ(r.work_done, 1.0);
  EXPECT_EQ(w.left_flying, 0);
}

TEST(HedgeCancel, TheDeadlineCancelsEveryCopy) {
  // Sends at 0, 0.25, 0.5, 0.75 would go (hedge_delay 0.25, four attempts); the deadline 0.625
  // comes first: the three copies sent, all in service, are cancelled (cancel_in_service: abandon,
  // they leave at once: work 0.625 + 0.375 + 0.125; finish, the server completes each, its reply
  // dropped: work 3, settling to 1.5), the request is lost, and no hedge goes after it.
  for (const mc::InService rule : {mc::InService::abandon, mc::InService::finish}) {
    mc::Scenario s = one_client(4, 0.25);
    s.client.max_attempts = 1;
    s.client.deadline = 0.625;
    s.client.deadline_cancel = true;
    s.client.cancel_in_service = rule;
    s.measurement.settle = true;
    Watch w;
    const mc::RunResult r = run(s, w);
    const bool finish = rule == mc::InService::finish;
    SCOPED_TRACE(finish ? "finish" : "abandon");
    EXPECT_EQ(w.sends[0], (std::vector<double>{0.0, 0.25, 0.5}));
    EXPECT_EQ(r.successes, 0);
    EXPECT_EQ(r.lost, 1);
    EXPECT_EQ(r.metric("deadline_cancelled"), 1);
    EXPECT_EQ(r.metric("cancelled_in_service"), 3);
    EXPECT_EQ(r.metric("cancelled_queued"), 0);
    EXPECT_EQ(r.metric("hedges_cancelled"), 0);  // none by an answer
    EXPECT_EQ(w.cancels, 3);
    EXPECT_EQ(w.left_flying, 0);
    EXPECT_DOUBLE_EQ(r.work_done, finish ? 3.0 : 1.125);
    EXPECT_DOUBLE_EQ(r.stop_time, finish ? 1.5 : 0.625);
  }
  // Behind one slot with a queue the copies wait: the deadline 0.625 takes the two queued ones out
  // of the queue (never served) and the first out of service.
  mc::Scenario s = one_client(4, 0.25);
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.client.max_attempts = 1;
  s.client.deadline = 0.625;
  s.client.deadline_cancel = true;
  Watch w;
  const mc::RunResult r = run(s, w);
  EXPECT_EQ(r.metric("cancelled_queued"), 2);
  EXPECT_EQ(r.metric("cancelled_in_service"), 1);
  EXPECT_EQ(w.started.size(), 1U);
  EXPECT_EQ(w.served_after_cancel, 0);
}

TEST(HedgeCancel, AClientTimeoutFailsOneCopyAtATime) {
  // Every attempt takes 1 and times out at 0.5 (Finagle's timeout under backup requests): sends at
  // 0 and 0.25; the first times out at 0.5 and sends the third at once (a failure sends the next
  // hedge; at one instant timeouts come before sends), the second times out at 0.75 (the third may
  // still answer), the third at 1: the request has failed; retried at once (strategy none) it does
  // the same from 1, and the retry limit (two requests) ends it at 2. Every attempt is counted once:
  // six sent, four of them hedges, six timed out, nothing answered.
  mc::Scenario s = one_client(3, 0.25);
  s.client.timeout = 0.5;
  s.client.max_attempts = 2;
  Watch w;
  const mc::RunResult r = run(s, w);
  EXPECT_EQ(w.sends[0], (std::vector<double>{0.0, 0.25, 0.5, 1.0, 1.25, 1.5}));
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.metric("hedges"), 4);
  EXPECT_EQ(r.metric("timed_out"), 6);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, 1);
  EXPECT_DOUBLE_EQ(r.stop_time, 2.0);
  EXPECT_EQ(w.left_flying, 0);
  // With the timeout at 1.5 the first answers at 1 and cancels the other two (in service, abandoned).
  s.client.timeout = 1.5;
  Watch a;
  const mc::RunResult answered = run(s, a);
  EXPECT_EQ(answered.attempts, 3);
  EXPECT_EQ(answered.successes, 1);
  EXPECT_EQ(answered.metric("timed_out"), 0);
  EXPECT_EQ(answered.metric("hedges_cancelled"), 2);
}

TEST(HedgeCancel, TheAmplificationIsCountedOnce) {
  // 24 runs (2 seeds × timeout or deadline × abandon/finish × 3 hedge delays) at 1.2 times a 2-slot
  // queue's capacity, exponential service, injected failures and retries: every attempt the engine
  // counts was sent (the observer's sends), hedges are at most hedge_attempts − 1 per request,
  // answered requests at most the requests that arrived, each answered once, never later than the
  // deadline; a copy cancelled before its service never starts it; and a request that ends (answered
  // or lost) has no copy left in flight.
  int runs = 0;
  for (const bool deadline : {false, true}) {
    for (const mc::InService rule : {mc::InService::abandon, mc::InService::finish}) {
      for (const double delay : {0.0, 0.5, 2.0}) {
        for (const std::uint64_t seed : {1U, 2U}) {
          mc::Scenario s;
          s.model = Model::none;
          s.backoff = {Strategy::full, 0.5, 8.0, 0.0};
          s.resource.service = mc::ServiceDist::exponential;
          s.traffic.rate = 2.4;
          s.measurement.horizon = 150.0;
          s.admission.limit = 2;
          s.admission.overflow = mc::Overflow::queue;
          s.failures.failure_prob = 0.2;
          s.client.max_attempts = 3;
          s.client.hedge.attempts = 3;
          s.client.hedge.delay = delay;
          s.client.hedge.in_service = rule;
          if (deadline) {
            s.client.deadline = 6.0;
            s.client.deadline_cancel = true;
            s.client.cancel_in_service = rule;
          } else {
            s.client.timeout = 2.0;
          }
          Watch w;
          const mc::RunResult r = run(s, w, seed);
          SCOPED_TRACE(::testing::Message() << "deadline " << deadline << " finish " << (rule == mc::InService::finish)
                                            << " delay " << delay << " seed " << seed);
          std::int64_t sent = 0;
          for (const auto& [client, times] : w.sends) {
            sent += static_cast<std::int64_t>(times.size());
            EXPECT_LE(static_cast<std::int64_t>(times.size()), s.client.hedge.attempts * s.client.max_attempts);
          }
          EXPECT_EQ(sent, r.attempts);
          EXPECT_GT(r.metric("hedges"), 0);
          EXPECT_LE(r.metric("hedges"), 2.0 * (static_cast<double>(r.attempts) - r.metric("hedges")));
          EXPECT_LE(r.metric("hedge_wins"), r.metric("hedges"));
          std::int64_t answered = 0;
          for (const auto& [client, n] : w.answers) {
            EXPECT_EQ(n, 1);
            answered += n;
          }
          EXPECT_EQ(answered, r.successes);
          EXPECT_LE(r.successes, r.clients_arrived);
          EXPECT_EQ(r.successes + r.lost + r.unfinished, r.clients_arrived);
          EXPECT_EQ(w.served_after_cancel, 0);
          EXPECT_EQ(w.left_flying, 0);
          if (deadline) {
            EXPECT_LE(w.worst_latency, 6.0);
            EXPECT_GT(r.metric("deadline_cancelled"), 0);
            EXPECT_GT(r.metric("cancelled_queued"), 0);
          } else {
            EXPECT_GT(r.metric("timed_out"), 0);
          }
          ++runs;
        }
      }
    }
  }
  EXPECT_EQ(runs, 24);
}

TEST(HedgeCancel, ACancelledCopyGivesItsClientSlotBack) {
  // With a client timeout the effects component keeps a client's slot while any of its attempts is
  // at the server. One request every 100 on average into one slot with a queue, each served for
  // exactly 1, hedged twice 0.25 apart: at its answer both hedges wait in the queue and are
  // withdrawn (or, with hedge_in_service, the one started is abandoned or finished). Every client
  // leaves, so at the end of a settled run no slot is in use; had a cancelled copy stayed pending,
  // each of the ~200 requests would have kept its slot.
  for (const mc::InService rule : {mc::InService::abandon, mc::InService::finish}) {
    mc::Scenario s = one_client(3, 0.25);
    s.traffic.clients = 0;
    s.traffic.rate = 0.01;
    s.measurement.horizon = 20000.0;
    s.measurement.settle = true;
    s.admission.limit = 1;
    s.admission.overflow = mc::Overflow::queue;
    s.client.timeout = 10.0;
    s.client.max_attempts = 1;  // a request ends at its answer or its copies' failures (settle needs an end)
    s.client.hedge.cancel = true;
    s.client.hedge.in_service = rule;
    mc::check_scenario(s);
    Watch w;
    std::size_t slots = 0;
    const mc::RunResult r = run(s, w, 7, &slots);
    SCOPED_TRACE(rule == mc::InService::finish ? "finish" : "abandon");
    EXPECT_GT(r.successes, 150);
    EXPECT_GT(r.metric("hedges_cancelled"), 150);
    EXPECT_EQ(slots, 0U);
  }
}
