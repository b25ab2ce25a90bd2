#include "validation/trace/ps_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace retrylab::validation::trace {

namespace {
constexpr std::size_t max_in_flight = 1000000;  // bounded memory: past it, a run's sweep stops
}

ServiceRules::ServiceRules(const montecarlo::Scenario& s, const ServerRules& sv)
    : on_(s.model == Model::shared || s.model == Model::ps),
      why_not_(sv.service_na),
      order_("end in start order", "invariant",
             "shared/ps: attempts end in the order they started (proofs/Engine.v: ps_fifo_order)"),
      service_("processor sharing", "invariant",
               "shared/ps: each attempt receives one unit of service, the integral of 1/n(t) over [start, end) "
               "with n(t) the attempts in flight (exact where every attempt in flight has a row; at a stop, "
               "at most 1)") {}

void ServiceRules::row(const Row& r, std::int64_t line) {
  if (!on_ || !why_not_.empty()) return;
  ++order_n_;
  if (r.start < last_start_ - tol(last_start_))
    order_.add(
        line, row_text(r),
        fmt::format("started at {}, before the previous row's start {}, but ended after it", r.start, last_start_));
  last_start_ = std::max(last_start_, r.start);
  if (q_.size() >= max_in_flight) overflow_ = true;  // the rest of this run is not judged
  if (overflow_) return;
  q_.push_back({r, line, 0.0, 0});
  // Every row after this one starts no earlier (FIFO): each start and end before its start is known.
  sweep(r.start, false, false);
}

void ServiceRules::sweep(double until, bool inclusive, bool censored) {
  for (;;) {
    const double next_start = started_ < q_.size() ? q_[started_].row.start : inf;
    const double next_end = started_ > 0 ? q_.front().row.end : inf;  // its start was swept
    const double t = std::max(t_, std::min(next_start, next_end));    // max: a row out of FIFO order
    if (!(inclusive ? t <= until : t < until) || !std::isfinite(t)) return;
    if (n_ > 0) v_ += (t - t_) / static_cast<double>(n_);
    t_ = t;
    ++events_;
    if (next_end <= next_start) {  // ends first at equal times: intervals are half-open
      judge(q_.front(), censored);
      q_.pop_front();
      --started_;
      if (--n_ == 0) v_ = 0;  // idle: virtual time restarts, so it never grows large
    } else {
      q_[started_].v_start = v_;
      q_[started_].events_at_start = events_;
      ++started_;
      ++n_;
    }
  }
}

void ServiceRules::judge(const Entry& e, bool censored) {
  const double service = v_ - e.v_start;
  const double tolerance = static_cast<double>(events_ - e.events_at_start + 2) * tol(e.row.end);
  ++service_n_;
  if (service < 1.0 - tolerance || (!censored && service > 1.0 + tolerance))
    service_.add(e.line, row_text(e.row),
                 fmt::format("received {:.9g} units of service{}", service,
                             censored ? " (at most, with the attempts in flight at the stop unrecorded)" : ""));
}

void ServiceRules::end_run(const std::optional<RunEnd>& stop) {
  if (on_ && why_not_.empty() && !overflow_) {
    if (stop && stop->stop == "finished") {
      sweep(inf, true, false);  // nothing was in flight at the stop: every row is exact
    } else {
      sweep(last_start_, true, false);  // the attempts without a row started after the last start
      sweep(inf, true, true);
    }
  }
  q_.clear();
  started_ = 0;
  t_ = v_ = 0;
  n_ = 0;
  last_start_ = -inf;
  overflow_ = false;
}

void ServiceRules::finish(std::vector<TraceCheck>& out) {
  if (!on_) return;
  out.push_back(applies(order_, why_not_, order_n_, "rows"));
  out.push_back(applies(service_, why_not_, service_n_, "rows"));
}

}  // namespace retrylab::validation::trace
