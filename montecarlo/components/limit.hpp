#pragma once
// Admission control at the server (docs/models.md §3): a concurrency limit L, fixed or adaptive
// (AIMD, the rules of Netflix concurrency-limits' AIMDLimit, scenario.hpp), counts the attempts
// admitted (waiting for a row's lock or in service). An attempt reaching the server with L admitted
// is rejected at once or queued (FIFO). A rejection is a failed attempt for its client; it costs
// reject_cost units of service before the client hears of it (a job on no row, never counted
// toward L) and may carry a Retry-After (fixed, or uniform(0, 2·retry_after) from the retry_after
// stream). AIMD samples every admitted attempt as it leaves: drop (it failed, or its time since
// admission exceeds the AIMD timeout) → floor(L·backoff); else 2·inflight >= L → L + 1; clamped.
// With replicas (components/replicas.hpp) the limit and the queue are each replica's: L attempts
// admitted per replica, counted here, each replica's queue moving only for its own releases.
// Metrics: rejected, mean_limit (the time-average limit over the window).
#include <fmt/format.h>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Limit : public Component {
 public:
  static constexpr bool delays_start = true;
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static constexpr std::array series{SeriesQuantityDef{"rejected", "attempts rejected by the limit (per bin)",
                                                       Dim::count, 40, 40, [](const Scenario& s) {
                                                         return s.admission.limit > 0 || s.admission.aimd;  // active(s)
                                                       }}};
  struct JobState {
    double admitted_at = 0.0, retry_after = 0.0;
    std::int64_t inflight = 0;  // admitted count at its admission (AIMD)
  };
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "limit",
            .group = FieldGroup::admission,
            .rank = 180,
            .kind = FieldKind::integer,
            .hi = static_cast<double>(max_limit),
            .meaning = "concurrency limit: at most L attempts admitted at once (0 = none)",
            .access = member<&Scenario::admission, &Admission::limit>()},
      Field{.name = "overflow",
            .group = FieldGroup::admission,
            .rank = 190,
            .kind = FieldKind::choice,
            .choices = overflow_names,
            .meaning = "an attempt over the limit: rejected at once, or queued (FIFO)",
            .access = member<&Scenario::admission, &Admission::overflow>()},
      Field{.name = "reject_cost",
            .group = FieldGroup::admission,
            .rank = 200,
            .kind = FieldKind::number,
            .hi = 1,
            .meaning = "work of a rejection, as a fraction of an attempt's",
            .access = member<&Scenario::admission, &Admission::reject_cost>()},
      Field{.name = "retry_after",
            .group = FieldGroup::admission,
            .rank = 210,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "Retry-After sent with rejections (0 = none)",
            .access = member<&Scenario::admission, &Admission::retry_after>()},
      Field{.name = "retry_after_rule",
            .group = FieldGroup::admission,
            .rank = 220,
            .kind = FieldKind::choice,
            .choices = retry_after_names,
            .meaning = "fixed: exactly retry_after; uniform: U(0, 2 retry_after)",
            .access = member<&Scenario::admission, &Admission::retry_after_rule>()},
      Field{.name = "aimd",
            .group = FieldGroup::admission,
            .rank = 240,
            .kind = FieldKind::on_off,
            .hi = 1,
            .meaning = "on: adaptive concurrency limit (AIMD rules of Netflix concurrency-limits)",
            .access = member<&Scenario::admission, &Admission::aimd>()},
      Field{.name = "aimd_initial",
            .group = FieldGroup::admission,
            .rank = 250,
            .kind = FieldKind::integer,
            .presence = Presence::with_aimd,
            .lo = 1,
            .hi = static_cast<double>(max_limit),
            .meaning = "AIMD initial limit (aimd_min..aimd_max)",
            .access = member<&Scenario::admission, &Admission::aimd_params, &Aimd::initial>()},
      Field{.name = "aimd_min",
            .group = FieldGroup::admission,
            .rank = 260,
            .kind = FieldKind::integer,
            .presence = Presence::with_aimd,
            .lo = 1,
            .hi = static_cast<double>(max_limit),
            .meaning = "AIMD minimum limit",
            .access = member<&Scenario::admission, &Admission::aimd_params, &Aimd::min>()},
      Field{.name = "aimd_max",
            .group = FieldGroup::admission,
            .rank = 270,
            .kind = FieldKind::integer,
            .presence = Presence::with_aimd,
            .lo = 1,
            .hi = static_cast<double>(max_limit),
            .meaning = "AIMD maximum limit (>= aimd_min)",
            .access = member<&Scenario::admission, &Admission::aimd_params, &Aimd::max>()},
      Field{.name = "aimd_backoff",
            .group = FieldGroup::admission,
            .rank = 280,
            .kind = FieldKind::number,
            .presence = Presence::with_aimd,
            .lo = 0.5,
            .hi = 1,
            .hi_open = true,
            .meaning = "AIMD decrease ratio on a drop",
            .access = member<&Scenario::admission, &Admission::aimd_params, &Aimd::backoff>()},
      Field{.name = "aimd_timeout",
            .group = FieldGroup::admission,
            .rank = 290,
            .kind = FieldKind::number_or_none,
            .unit = FieldUnit::time,
            .presence = Presence::with_aimd,
            .hi = inf,
            .lo_open = true,
            .meaning = "AIMD: an attempt admitted longer ago than this counts as a drop, or none",
            .access = member<&Scenario::admission, &Admission::aimd_params, &Aimd::timeout>()},
      Field{.name = "reject_kind",
            .group = FieldGroup::admission,
            .rank = 1120,
            .kind = FieldKind::choice,
            .choices = failure_kind_names,
            .meaning = "the kind of failure a rejection is to its client: retryable (503), throttled (429) or fatal "
                       "(needs rejections)",
            .access = member<&Scenario::admission, &Admission::reject_kind>()}};
  static constexpr std::array streams{StreamId::retry_after};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept { return s.admission.limit > 0 || s.admission.aimd; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const Admission& o = s.admission;
    if (o.aimd && o.limit != 0)
      throw InputError("limit", fmt::format("must be 0 with aimd (the adaptive limit replaces it) (got {})", o.limit));
    const bool limited = o.limit > 0 || o.aimd;
    if (o.overflow == Overflow::queue && !limited)
      throw InputError("overflow", "queue needs a concurrency limit (limit > 0 or aimd)");
    const bool rejects = limited && o.overflow == Overflow::reject;
    if (o.reject_cost > 0.0 && !rejects)
      throw InputError("reject_cost", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
    if (o.retry_after > 0.0 && !rejects)
      throw InputError("retry_after", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
    if (o.retry_after == 0.0 && o.retry_after_rule != RetryAfterRule::fixed)
      throw InputError("retry_after_rule", "needs retry_after > 0");
    if (o.reject_kind != FailureKind::retryable && !rejects)
      throw InputError("reject_kind", "needs rejections: a concurrency limit (limit > 0 or aimd) with overflow=reject");
    const Aimd& a = o.aimd_params;
    if (!o.aimd) {
      const Aimd da{};
      if (a.initial != da.initial || a.min != da.min || a.max != da.max || a.backoff != da.backoff ||
          a.timeout != da.timeout)
        throw InputError("aimd",
                         "must be on for aimd_initial, aimd_min, aimd_max, aimd_backoff or aimd_timeout to apply");
      return;
    }
    // Each bound alone is its row's range; these are the bounds between them.
    if (a.max < a.min)
      throw InputError("aimd_max", fmt::format("must be in [aimd_min={}, {}] (got {})", a.min, max_limit, a.max));
    if (a.initial < a.min || a.initial > a.max)
      throw InputError("aimd_initial",
                       fmt::format("must be in [aimd_min={}, aimd_max={}] (got {})", a.min, a.max, a.initial));
  }
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
        aimd_(s.admission.aimd),
        o_(&s.admission),
        limit_(s.admission.aimd ? s.admission.aimd_params.initial : s.admission.limit) {
    if (on_ && s.replicas.count > 1) {  // aimd is refused with replicas (replicas.hpp)
      held_.assign(static_cast<std::size_t>(s.replicas.count), 0);
      queues_.assign(static_cast<std::size_t>(s.replicas.count), Fifo{});
    }
  }

  template <class E>
  [[gnu::always_inline]] bool admits(E& e, std::int32_t j) {
    if (!on_ || admitted_at(e, j) < limit_) return true;
    if (o_->overflow == Overflow::queue) {
      e.push(queue_of(e, j), j);
    } else {
      reject(e, j);
    }
    return false;
  }
  template <class E>
  [[gnu::always_inline]] void on_admit(E& e, std::int32_t j) {
    if (!held_.empty()) ++held_[replica(e, j)];
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
    if (!held_.empty()) return release_replica(e, replica(e, j));
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
  // A cancelled attempt in the queue leaves it (never admitted); a place freed after admission (a
  // cancelled attempt waiting for its row's lock) lets the queue move up. AIMD takes no sample of
  // either: the attempt never ran (concurrency-limits' onIgnore).
  template <class E>
  Withdrawn withdraws(E& e, std::int32_t j) noexcept {
    return on_ && e.unlink(queue_of(e, j), j) ? Withdrawn::before_admission : Withdrawn::not_held;
  }
  template <class E>
  void on_withdrawn(E& e, std::int32_t j, Withdrawn where) {
    if (!on_ || where != Withdrawn::after_admission) return;
    if (!held_.empty()) return release_replica(e, replica(e, j));
    while (!queue_.empty() && e.admitted() < limit_) e.admit(e.pop(queue_));
  }
  // A rejection's outcome carries the Retry-After it drew and its kind (reject_kind).
  template <class E>
  void describe(E& e, Outcome& o) noexcept {
    if (o.kind != OutcomeKind::rejected) return;
    o.retry_after = static_cast<JobState&>(e.extra(o.job)).retry_after;
    o.status = o_->reject_kind;
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
  // With replicas: attempt j's replica (components/replicas.hpp writes it), the attempts admitted
  // there, its queue; without: the server's.
  template <class E>
  static std::size_t replica(E& e, std::int32_t j) noexcept {
    return static_cast<std::size_t>(e.extra(j).replica);
  }
  template <class E>
  std::int64_t admitted_at(E& e, std::int32_t j) noexcept {
    return held_.empty() ? e.admitted() : held_[replica(e, j)];
  }
  template <class E>
  Fifo& queue_of(E& e, std::int32_t j) noexcept {
    return held_.empty() ? queue_ : queues_[replica(e, j)];
  }
  // An attempt admitted at replica r left it: r's queue moves up while r's limit allows.
  template <class E>
  void release_replica(E& e, std::size_t r) {
    --held_[r];
    while (!queues_[r].empty() && held_[r] < limit_) e.admit(e.pop(queues_[r]));
  }
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
    e.template tell_series<Limit>(0, 1.0);
    e.parts().each([&](auto& p) RL_HOOK { p.on_rejected(e, j); });
    if (o_->reject_cost > 0.0) {
      e.start_service(j, o_->reject_cost);  // the server's work of saying no
    } else {
      e.respond(j);
    }
  }

  bool on_, aimd_;
  const Admission* o_;
  std::int64_t limit_;  // in force: fixed, or AIMD's current value
  std::int64_t rejected_ = 0;
  double area_ = 0.0;
  Fifo queue_;
  std::vector<std::int64_t> held_;  // with replicas: the attempts admitted at each (empty: one server)
  std::vector<Fifo> queues_;        // with replicas: each one's queue
};

}  // namespace retrylab::montecarlo::detail
