#pragma once
// Admission control at the server (docs/models.md §3): a concurrency limit L, fixed or adaptive
// (AIMD, the rules of Netflix concurrency-limits' AIMDLimit, scenario.hpp), counts the attempts
// admitted (waiting for a row's lock or in service). An attempt reaching the server with L admitted
// is rejected at once or queued (FIFO). A rejection is a failed attempt for its client; it costs
// reject_cost units of service before the client hears of it (a job on no row, never counted
// toward L) and may carry a Retry-After (fixed, or uniform(0, 2·retry_after) from the retry_after
// stream). AIMD samples every admitted attempt as it leaves: drop (it failed, or its time since
// admission exceeds the AIMD timeout) → floor(L·backoff); else 2·inflight >= L → L + 1; clamped.
// Metrics: rejected, mean_limit (the time-average limit over the window).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Limit : public Component {
 public:
  static constexpr bool delays_start = true;
  struct JobState {
    double admitted_at = 0.0, retry_after = 0.0;
    std::int64_t inflight = 0;  // admitted count at its admission (AIMD)
  };
  static bool active(const Scenario& s) noexcept { return s.server.limit > 0 || s.server.aimd; }
  // rejected / attempts; NaN if no attempt.
  static double reject_fraction(const RunResult& core, std::int64_t rejected) noexcept {
    return core.attempts > 0 ? static_cast<double>(rejected) / static_cast<double>(core.attempts)
                             : std::numeric_limits<double>::quiet_NaN();
  }
  static constexpr std::array metrics{
      MetricDef{.key = "rejected",
                .label = "rejected attempts (per run)",
                .dim = Dim::count,
                .rank = 160,
                .shown = shown::server,
                .when_absent = absent::zero,
                .integer = true},
      MetricDef{.key = "reject_fraction",
                .label = "rejected / attempts",
                .dim = Dim::count,
                .rank = 170,
                .shown = shown::server,
                .when_absent = [](const RunResult& core) { return reject_fraction(core, 0); },
                .lo = 0.0,
                .hi = 1.0},
      MetricDef{.key = "mean_limit",
                .label = "mean concurrency limit (attempts)",
                .dim = Dim::count,
                .rank = 190,
                .shown = shown::server,
                .when_absent = absent::undefined}};
  template <class Faults>
  Limit(const Scenario& s, const Faults& /*faults*/)
      : on_(active(s)),
        aimd_(s.server.aimd),
        o_(&s.server),
        limit_(s.server.aimd ? s.server.aimd_params.initial : s.server.limit) {}

  template <class E>
  [[gnu::always_inline]] bool admits(E& e, std::int32_t j) {
    if (!on_ || e.admitted() < limit_) return true;
    if (o_->overflow == Overflow::queue) {
      e.push(queue_, j);
    } else {
      reject(e, j);
    }
    return false;
  }
  template <class E>
  [[gnu::always_inline]] void on_admit(E& e, std::int32_t j) {
    if (!aimd_) return;
    JobState& mine = e.extra(j);
    mine.admitted_at = e.now();
    mine.inflight = e.admitted();
  }
  std::int64_t limit_in_force() const noexcept { return on_ ? limit_ : 0; }

  // AIMD's sample, then the queue moves up while the limit allows.
  template <class E>
  [[gnu::always_inline]] void on_release(E& e, std::int32_t j) {
    if (!on_) return;
    if (aimd_) {
      const Aimd& a = o_->aimd_params;
      const JobState& mine = e.extra(j);
      std::int64_t next = limit_;
      if (!e.job(j).success || e.now() - mine.admitted_at > a.timeout) {
        next = static_cast<std::int64_t>(static_cast<double>(limit_) * a.backoff);
      } else if (2 * mine.inflight >= limit_) {
        next = limit_ + 1;
      }
      limit_ = std::min(a.max, std::max(a.min, next));
    }
    while (!queue_.empty() && e.admitted() < limit_) e.admit(e.pop(queue_));
  }
  template <class E>
  double retry_after_of(E& e, std::int32_t j) noexcept {
    return static_cast<JobState&>(e.extra(j)).retry_after;
  }
  void on_advance(double dt) noexcept {
    if (on_) area_ += static_cast<double>(limit_) * dt;
  }

  template <class E>
  void report(E& e, const RunResult& core, double stop, MetricOut out) {
    out[0] = static_cast<double>(rejected_);
    out[1] = reject_fraction(core, rejected_);
    out[2] = on_ && stop - e.warmup() > 0.0 ? area_ / (stop - e.warmup()) : std::numeric_limits<double>::quiet_NaN();
  }

 private:
  template <class E>
  void reject(E& e, std::int32_t j) {
    auto& job = e.job(j);
    job.rejected = true;
    ++rejected_;
    double& retry_after = static_cast<JobState&>(e.extra(j)).retry_after;
    retry_after = 0.0;
    if (o_->retry_after > 0.0)
      retry_after = o_->retry_after_rule == RetryAfterRule::fixed
                        ? o_->retry_after
                        : 2.0 * o_->retry_after * e.template stream<StreamId::retry_after>().uniform();
    auto& observer = e.observer();
    if constexpr (requires { observer.on_reject(std::int64_t{0}, std::int64_t{0}, 0.0, 0.0); })
      observer.on_reject(job.id, e.client(job.client).serial, e.now(), retry_after);
    e.parts().each([&](auto& p) RL_HOOK { p.on_rejected(e, j); });
    if (o_->reject_cost > 0.0) {
      e.start_service(j, o_->reject_cost);  // the server's work of saying no
    } else {
      e.respond(j);
    }
  }

  bool on_, aimd_;
  const ServerOptions* o_;
  std::int64_t limit_;  // in force: fixed, or AIMD's current value
  std::int64_t rejected_ = 0;
  double area_ = 0.0;
  Fifo queue_;
};

}  // namespace retrylab::montecarlo::detail
