#include "montecarlo/run_detail.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/entry.hpp"
#include "montecarlo/observed_run.hpp"
#include "montecarlo/parallel_runs.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::montecarlo {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Counts attempts per client (by arrival serial) and, inside the outage, requests ended and lost
// per bin and the budget's first refusal. It tolerates the one-event shortcut (which tells every
// on_start; its scenarios have no outage, retry limit or budget), and the lock-step one only when
// it does not count attempts (that shortcut tells no on_start after the burst's first round).
class DetailObserver {
 public:
  static constexpr unsigned tolerated_shortcuts = detail::shortcut::one_event | detail::shortcut::lockstep;
  bool tolerates(unsigned shortcut) const noexcept {
    return shortcut != detail::shortcut::lockstep || !o_.most_attempts;
  }
  DetailObserver(const Scenario& s, const DetailOptions& o)
      : o_(o), start_(s.failures.outage_start), end_(s.failures.outage_end) {}

  void on_arrival(std::int64_t /*client*/, double /*t*/, bool /*burst*/) noexcept {}
  void on_start(std::int64_t /*attempt*/, std::int64_t client, double /*t*/) {
    if (!o_.most_attempts) return;
    const auto c = static_cast<std::size_t>(client);
    if (attempts_.size() <= c) attempts_.resize(c + 1, 0);
    most_ = std::max(most_, ++attempts_[c]);
  }
  void on_end(std::int64_t /*attempt*/, std::int64_t /*client*/, double /*start*/, double end, bool success) {
    if (success) ended(end, false);
  }
  void on_give_up(std::int64_t /*client*/, double t) { ended(t, true); }
  // The budget's series quantity retries_denied (E::tell_series): a retry it refused.
  void on_series(std::size_t slot, double t, double /*value*/) noexcept {
    if (slot != static_cast<std::size_t>(SeriesQuantity::retries_denied)) return;
    if (o_.outage && t >= start_ && t < end_ && std::isnan(first_denied_)) first_denied_ = t;
  }

  RunDetail finish(RunResult r) const {
    RunDetail d;
    d.result = r;
    d.most_attempts = most_;
    d.warning_time = d.failure_time = d.warning_lead = d.warning_ratio = nan;
    if (!o_.outage) return d;
    d.warning_time = first_denied_ - start_;
    std::int64_t all = 0, all_lost = 0;
    for (std::size_t b = 0; b < ended_.size(); ++b) all += ended_[b], all_lost += lost_[b];
    if (all > 0) {
      const double level = static_cast<double>(all_lost) / static_cast<double>(all);
      for (std::size_t b = 0; b < ended_.size(); ++b)
        if (ended_[b] > 0 && static_cast<double>(lost_[b]) >= level * static_cast<double>(ended_[b])) {
          d.failure_time = static_cast<double>(b + 1) * o_.bin;
          break;
        }
    }
    d.warning_lead = d.failure_time - d.warning_time;
    d.warning_ratio = d.warning_time / d.failure_time;
    return d;
  }

 private:
  void ended(double t, bool lost) {
    if (!o_.outage || !(t >= start_ && t < end_)) return;
    const auto b = static_cast<std::size_t>(std::floor((t - start_) / o_.bin));
    if (ended_.size() <= b) ended_.resize(b + 1, 0), lost_.resize(b + 1, 0);
    ++ended_[b];
    lost_[b] += lost ? 1 : 0;
  }

  const DetailOptions& o_;
  double start_, end_;
  std::vector<std::int32_t> attempts_;
  std::int32_t most_ = 0;
  double first_denied_ = nan;
  std::vector<std::int64_t> ended_, lost_;
};

}  // namespace

std::vector<RunDetail> simulate_detailed(const Scenario& s, const RunPlan& plan, const DetailOptions& options,
                                         const std::function<void(std::int64_t, std::int64_t)>& progress) {
  check_scenario(s);
  check_run_plan(plan);
  if (!(options.bin > 0.0) || !std::isfinite(options.bin))
    throw InputError("bin", fmt::format("must be a finite number > 0 (got {})", options.bin));
  if (options.outage && !(s.failures.outage_end > 0.0))
    throw InputError("outage_end", "must be > 0 for the outage's course to be measured");
  if (options.outage && (s.failures.outage_end - s.failures.outage_start) / options.bin > 1e8)
    throw InputError("bin", fmt::format("must cut the outage into at most 1e8 bins (got {})", options.bin));
  const detail::EngineOptions engine;
  const auto faults = detail::entry_faults();
  return detail::run_in_order<RunDetail>(
      plan,
      [&](std::uint64_t i) {
        DetailObserver observer(s, options);
        const RunResult r = detail::run_engine_plain_or_full(detail::full_tier(s, engine), s, plan.seed, i, engine,
                                                             observer, nullptr, faults);
        return observer.finish(r);
      },
      progress);
}

}  // namespace retrylab::montecarlo
