// Deadlines that cancel (components/deadline_cancel.hpp; gRPC's deadline, Envoy's route timeout).
// Exact small cases worked by hand (a limit's queue, a row's lock behind a limit, finish and
// abandon), a property over fixed seeds (a cancelled queued attempt is never served, no request is
// answered after its deadline), the spike of a gRPC service with a 5 s deadline (p99 bounded by the
// deadline, the lost counted), the default's bytes, and the refusals of fields that cannot apply.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "montecarlo/engine.hpp"
#include "montecarlo/profile.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
namespace d = retrylab::montecarlo::detail;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::refused_field;
using retrylab::test::same_bits;

namespace {

mc::RunResult simulate(const mc::Scenario& s, std::uint64_t seed = 5) {
  mc::check_scenario(s);
  return mc::simulate_run(s, seed, 0);
}

// A burst of n clients at t = 0 on a server of unit deterministic service, no failures, retries
// on, deadline D.
mc::Scenario burst(std::int64_t n, double deadline) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::none, 1.0, 10.0, 0.0};
  s.traffic.clients = n;
  s.client.deadline = deadline;
  return s;
}

}  // namespace

TEST(DeadlineCancel, ExactLimitQueueFinishAndAbandon) {
  // Five clients at t = 0, one slot (limit 1, queue), deadline 2.5. Clients 1 and 2 are served in
  // [0, 1) and [1, 2); at 2.5 client 3 is in service (since 2) and clients 4, 5 wait in the queue.
  // Their requests end at 2.5, lost, in arrival order: finish: 3 is finished (the server works on,
  // its reply discarded) and 4, 5 leave the queue unserved; abandon: 3 leaves the server, which
  // frees the slot, so 4 starts its service and is abandoned at once, then 5 likewise.
  mc::Scenario s = burst(5, 2.5);
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  const mc::RunResult plain = simulate(s);  // the deadline alone stops no attempt in flight
  EXPECT_EQ(plain.successes, 5);
  EXPECT_EQ(plain.lost, 0);
  s.client.deadline_cancel = true;
  const mc::RunResult finish = simulate(s);
  EXPECT_EQ(finish.successes, 2);
  EXPECT_EQ(finish.lost, 3);
  EXPECT_EQ(finish.metric("deadline_cancelled"), 3);
  EXPECT_EQ(finish.metric("cancelled_queued"), 2);
  EXPECT_EQ(finish.metric("cancelled_in_service"), 1);
  EXPECT_EQ(finish.attempts, 5);
  s.client.cancel_in_service = mc::InService::abandon;
  const mc::RunResult abandon = simulate(s);
  EXPECT_EQ(abandon.successes, 2);
  EXPECT_EQ(abandon.lost, 3);
  EXPECT_EQ(abandon.metric("cancelled_queued"), 0);
  EXPECT_EQ(abandon.metric("cancelled_in_service"), 3);
}

TEST(DeadlineCancel, ExactRowLockBehindALimit) {
  // Four clients at t = 0, one row with a lock, limit 2 with a queue, deadline 1.5. At 0: client 1
  // admitted and served [0, 1), client 2 admitted and waiting for the row, clients 3, 4 in the
  // limit's queue. At 1: 1 answered; 2 takes the row [1, 2); 3 admitted (waits for the row).
  // At 1.5 the deadlines, in arrival order:
  //  - finish: 2 (in service) finished unanswered; 3 leaves the row's queue, which frees its place in
  //    the limit, so 4 is admitted and waits for the row; then 4 leaves it: 2 queued cancels.
  //  - abandon: 2 leaves the server, the row passes to 3, which starts and is abandoned at once,
  //    then 4 is admitted, starts and is abandoned: 3 cancels in service.
  mc::Scenario s = burst(4, 1.5);
  s.resource.rows = 1;
  s.resource.lock = true;
  s.admission.limit = 2;
  s.admission.overflow = mc::Overflow::queue;
  s.client.deadline_cancel = true;
  const mc::RunResult finish = simulate(s);
  EXPECT_EQ(finish.successes, 1);
  EXPECT_EQ(finish.lost, 3);
  EXPECT_EQ(finish.metric("cancelled_queued"), 2);
  EXPECT_EQ(finish.metric("cancelled_in_service"), 1);
  s.client.cancel_in_service = mc::InService::abandon;
  const mc::RunResult abandon = simulate(s);
  EXPECT_EQ(abandon.successes, 1);
  EXPECT_EQ(abandon.lost, 3);
  EXPECT_EQ(abandon.metric("cancelled_queued"), 0);
  EXPECT_EQ(abandon.metric("cancelled_in_service"), 3);
}

TEST(DeadlineCancel, ExactOnTheNetwork) {
  // Two clients at t = 0, one slot with a queue, a fixed network leg of 0.5 each way. Client 1
  // reaches the server at 0.5, is served [0.5, 1.5), its reply reaches it at 2; client 2 waits in the
  // queue and is served [1.5, 2.5). Deadline 2: client 1's reply comes first (replies before
  // deadlines at one instant), client 2 is cancelled in service. Deadline 1.9: client 1's reply is
  // on the wire (the client stops waiting for it: neither queued nor in service), client 2 in service.
  mc::Scenario s = burst(2, 2.0);
  s.resource.delay = 0.5;
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.client.deadline_cancel = true;
  const mc::RunResult at2 = simulate(s);
  EXPECT_EQ(at2.successes, 1);
  EXPECT_EQ(at2.lost, 1);
  EXPECT_EQ(at2.metric("cancelled_in_service"), 1);
  s.client.deadline = 1.9;
  const mc::RunResult early = simulate(s);
  EXPECT_EQ(early.successes, 0);
  EXPECT_EQ(early.lost, 2);
  EXPECT_EQ(early.metric("deadline_cancelled"), 2);
  EXPECT_EQ(early.metric("cancelled_queued"), 0);
  EXPECT_EQ(early.metric("cancelled_in_service"), 1);
}

TEST(DeadlineCancel, AWakeAtTheDeadlineGivesUp) {
  // One client whose attempts all fail after one unit and retry at once (strategy none), deadline 4:
  // attempts at 0, 1, 2, 3, and the fifth would start at 4 = its deadline. The deadline alone lets
  // it start (lost at 5, the next wake past the deadline); with deadline_cancel the client gives up
  // at 4 (that attempt would be cancelled as it starts), counted by the deadline.
  mc::Scenario s = burst(1, 4.0);
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 10;
  const mc::RunResult plain = simulate(s);
  EXPECT_EQ(plain.attempts, 5);
  EXPECT_EQ(plain.lost, 1);
  s.client.deadline_cancel = true;
  const mc::RunResult cancel = simulate(s);
  EXPECT_EQ(cancel.attempts, 4);
  EXPECT_EQ(cancel.lost, 1);
  EXPECT_EQ(cancel.metric("deadline_lost"), 1);
  EXPECT_EQ(cancel.metric("deadline_cancelled"), 0);
}

TEST(DeadlineCancel, ACancelledQueuedAttemptIsNeverServed) {
  // 12 runs (3 seeds × limit queue alone or behind a row lock × finish/abandon) at 1.6 times a
  // 2-slot server's capacity, exponential service, injected failures and retries, deadline 6: the
  // observer sees queued attempts cancelled (> 0 in each run), none of them ever starts service,
  // and no request is answered later than its deadline.
  int runs = 0;
  for (const bool lock : {false, true}) {
    for (const mc::InService in_service : {mc::InService::finish, mc::InService::abandon}) {
      for (const std::uint64_t seed : {1U, 2U, 3U}) {
        mc::Scenario s;
        s.model = Model::none;
        s.backoff = {Strategy::full, 0.5, 8.0, 0.0};
        s.resource.service = mc::ServiceDist::exponential;
        s.traffic.rate = 3.2;
        s.measurement.horizon = 200.0;
        s.admission.limit = 2;
        s.admission.overflow = mc::Overflow::queue;
        if (lock) {
          s.resource.rows = 1;
          s.resource.lock = true;
          s.admission.limit = 4;
          s.traffic.rate = 1.6;
        }
        s.failures.failure_prob = 0.2;
        s.client.max_attempts = 4;
        s.client.deadline = 6.0;
        s.client.deadline_cancel = true;
        s.client.cancel_in_service = in_service;
        mc::check_scenario(s);
        // The tests' server-view observer (server_trace.hpp): the attempts cancelled before their
        // service started (on_cancel without an on_service_start before it), any of them started
        // later, the worst answered latency; its own checks of every hook hold too.
        mc::testing::ServerTrace watch;
        const mc::RunResult r = mc::testing::run_none_full(s, seed, 0, d::EngineOptions{}, watch).result;
        EXPECT_FALSE(watch.bad);
        SCOPED_TRACE(::testing::Message()
                     << "lock " << lock << " abandon " << (in_service == mc::InService::abandon) << " seed " << seed);
        EXPECT_GT(watch.cancelled_unstarted.size(), 0U);
        EXPECT_EQ(watch.served_after_cancel, 0);
        EXPECT_LE(watch.worst_latency, 6.0);
        EXPECT_EQ(static_cast<double>(watch.cancels), r.metric("cancelled_queued") + r.metric("cancelled_in_service"));
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 12);
}

TEST(DeadlineCancel, SpikeUnderAGrpcDeadline) {
  // The gRPC service of a 5 s method timeout (deadline), 5 attempts, backoff 0.5 s to 30 s, in ms:
  // 500 requests/s against one slot of 1 ms (1,000/s) with a queue, a spike to 2,000/s in [10 s,
  // 20 s). The deadline alone stops only the next attempt: the queue built in the spike holds
  // answered requests for up to about 10 s (p99 9.8 s in this run) and none is lost. Cancelling at
  // the deadline bounds every answer by 5 s and counts the requests it ends as lost.
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 500.0, 30000.0, 0.0, 2.0};
  s.traffic.load_profile = mc::LoadProfile::parse("step:0:0.5,10000:2,20000:0.5");
  s.measurement.horizon = 60000.0;
  s.measurement.collapse = 1000000;
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.client.max_attempts = 5;
  s.client.deadline = 5000.0;
  const mc::RunResult plain = simulate(s);
  EXPECT_GT(plain.metric("latency_p99"), 9000.0);
  EXPECT_EQ(plain.lost, 0);
  s.client.deadline_cancel = true;
  const mc::RunResult cancel = simulate(s);
  EXPECT_LE(cancel.metric("latency_p99"), 5000.0);
  EXPECT_GT(cancel.metric("deadline_cancelled"), 1000);
  EXPECT_EQ(cancel.lost,
            static_cast<std::int64_t>(cancel.metric("deadline_cancelled") + cancel.metric("deadline_lost")));
  EXPECT_EQ(cancel.successes + cancel.lost + cancel.unfinished, cancel.clients_arrived);
}

TEST(DeadlineCancel, OffKeepsTheBytes) {
  // deadline_cancel off and cancel_in_service finish (the defaults) leave the canonical text, hence
  // the hash and every draw, as before the fields existed; on, the text says so.
  mc::Scenario s = burst(50, 6.0);
  s.client.deadline_cancel = false;
  s.client.cancel_in_service = mc::InService::finish;
  EXPECT_EQ(mc::canonical(s), mc::canonical(burst(50, 6.0)));
  EXPECT_EQ(mc::canonical(s).find("cancel"), std::string::npos);
  s.client.deadline_cancel = true;
  EXPECT_NE(mc::canonical(s).find("deadline_cancel"), std::string::npos);
}

TEST(DeadlineCancel, FieldsThatCannotApplyAreRefused) {
  mc::Scenario s = burst(4, 5.0);
  s.client.cancel_in_service = mc::InService::abandon;
  EXPECT_EQ(refused_field(s), "cancel_in_service");
  s = burst(4, std::numeric_limits<double>::infinity());
  s.client.deadline_cancel = true;
  EXPECT_EQ(refused_field(s), "deadline_cancel");
  s = burst(4, 5.0);
  s.client.hedge.attempts = 2;
  EXPECT_EQ(refused_field(s), "hedge_attempts");  // a deadline with hedging that does not cancel
  s.client.deadline_cancel = true;
  EXPECT_EQ(refused_field(s), "(accepted)");  // it cancels every copy (hedge_cancel_test.cpp)
  s = burst(4, 5.0);
  s.client.deadline_cancel = true;
  EXPECT_EQ(refused_field(s), "(accepted)");
}
