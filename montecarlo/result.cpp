#include "montecarlo/result.hpp"

#include <cmath>

namespace retrylab::montecarlo {

std::string_view to_string(StopReason r) noexcept {
  constexpr std::string_view names[] = {"finished", "drained", "collapsed", "horizon"};
  return names[static_cast<int>(r)];
}

namespace {
struct Acc {
  MeanAccumulator acc;
  void add(double x) noexcept {
    if (!std::isnan(x)) acc.add(x);  // undefined for this run: left out of n
  }
  MeanSummary summary() const { return acc.summary(); }
};
}  // namespace

Summary summarize(const std::vector<RunResult>& results) {
  Acc apc, makespan, latency, goodput, attempt_rate, sojourn, drain_time, drain_p99, unfinished, max_waiting,
      mean_waiting, mean_time_waiting, arrival_rate, busy, work, rejected, reject_fraction, queue_wait, mean_limit,
      latency_p50, latency_p99, lost, lost_fraction, timed_out, retries_denied, breaker_rejected, throttled, injected,
      deadline_lost, breaker_opened, effects, duplicate_effects, hidden_effects, recovery_time;
  std::int64_t collapsed = 0, drained = 0, with_burst = 0, recovered = 0, measured_recovery = 0;
  Summary s;
  for (const RunResult& r : results) {
    apc.add(r.attempts_per_client);
    makespan.add(r.makespan);
    latency.add(r.latency);
    goodput.add(r.goodput);
    attempt_rate.add(r.attempt_rate);
    sojourn.add(r.sojourn);
    drain_time.add(r.drain_time);
    drain_p99.add(r.drain_time_p99);
    unfinished.add(static_cast<double>(r.unfinished));
    max_waiting.add(static_cast<double>(r.max_waiting));
    mean_waiting.add(r.mean_waiting);
    mean_time_waiting.add(r.mean_time_waiting);
    arrival_rate.add(r.arrival_rate);
    busy.add(r.busy_time);
    work.add(r.work_done);
    rejected.add(static_cast<double>(r.rejected));
    reject_fraction.add(r.reject_fraction);
    queue_wait.add(r.queue_wait);
    mean_limit.add(r.mean_limit);
    latency_p50.add(r.latency_p50);
    latency_p99.add(r.latency_p99);
    lost.add(static_cast<double>(r.lost));
    lost_fraction.add(r.lost_fraction);
    timed_out.add(static_cast<double>(r.timed_out));
    retries_denied.add(static_cast<double>(r.retries_denied));
    breaker_rejected.add(static_cast<double>(r.breaker_rejected));
    throttled.add(static_cast<double>(r.throttled));
    injected.add(static_cast<double>(r.injected));
    deadline_lost.add(static_cast<double>(r.deadline_lost));
    breaker_opened.add(static_cast<double>(r.breaker_opened));
    effects.add(static_cast<double>(r.effects));
    duplicate_effects.add(static_cast<double>(r.duplicate_effects));
    hidden_effects.add(static_cast<double>(r.hidden_effects));
    recovery_time.add(r.recovery_time);
    if (r.measured_recovery) {
      ++measured_recovery;
      recovered += !std::isnan(r.recovery_time);
    }
    collapsed += r.collapsed;
    if (r.burst_clients > 0) {
      ++with_burst;
      drained += r.drained;
    }
    ++s.stops[static_cast<int>(r.stop)];
  }
  s.runs = static_cast<std::int64_t>(results.size());
  s.attempts_per_client = apc.summary();
  s.makespan = makespan.summary();
  s.latency = latency.summary();
  s.goodput = goodput.summary();
  s.attempt_rate = attempt_rate.summary();
  s.sojourn = sojourn.summary();
  s.drain_time = drain_time.summary();
  s.drain_time_p99 = drain_p99.summary();
  s.unfinished = unfinished.summary();
  s.max_waiting = max_waiting.summary();
  s.mean_waiting = mean_waiting.summary();
  s.mean_time_waiting = mean_time_waiting.summary();
  s.arrival_rate = arrival_rate.summary();
  s.busy_time = busy.summary();
  s.work_done = work.summary();
  s.rejected = rejected.summary();
  s.reject_fraction = reject_fraction.summary();
  s.queue_wait = queue_wait.summary();
  s.mean_limit = mean_limit.summary();
  s.latency_p50 = latency_p50.summary();
  s.latency_p99 = latency_p99.summary();
  s.lost = lost.summary();
  s.lost_fraction = lost_fraction.summary();
  s.timed_out = timed_out.summary();
  s.retries_denied = retries_denied.summary();
  s.breaker_rejected = breaker_rejected.summary();
  s.throttled = throttled.summary();
  s.injected = injected.summary();
  s.deadline_lost = deadline_lost.summary();
  s.breaker_opened = breaker_opened.summary();
  s.effects = effects.summary();
  s.duplicate_effects = duplicate_effects.summary();
  s.hidden_effects = hidden_effects.summary();
  s.recovery_time = recovery_time.summary();
  s.recovered = summarize_proportion(recovered, measured_recovery);
  s.collapsed = summarize_proportion(collapsed, s.runs);
  s.drained = summarize_proportion(drained, with_burst);
  return s;
}

}  // namespace retrylab::montecarlo
