#pragma once
// The run detail's observer (internal; montecarlo/run_detail.hpp says what it gathers): counts attempts
// per client (by arrival serial) and, inside the outage, requests ended and lost per bin and the
// budget's first refusal.
// Invariants: it tolerates the one-event shortcut (which tells every on_start; its scenarios have no
// outage, retry limit or budget), and the lock-step one only when it does not count attempts (that
// shortcut tells no on_start after the burst's first round).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "montecarlo/engine_parts.hpp"
#include "montecarlo/run_detail.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::montecarlo::detail {

class DetailObserver {
 public:
  static constexpr unsigned tolerated_shortcuts = shortcut::one_event | shortcut::lockstep;
  bool tolerates(unsigned which) const noexcept { return which != shortcut::lockstep || !o_.most_attempts; }

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

}  // namespace retrylab::montecarlo::detail
