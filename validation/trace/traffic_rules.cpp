#include "validation/trace/traffic_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "validation/statistics.hpp"

namespace retrylab::validation::trace {

TrafficRules::TrafficRules(const montecarlo::Scenario& s, const ServerRules& sv)
    : s_(s),
      sv_(sv),
      arrivals_("arrivals", "invariant",
                fmt::format("burst clients arrive at t = 0 ({} declared), steady ones in [0, horizon) ({}); a run has "
                            "at most {} burst clients, exactly {} when it stopped finished or drained",
                            s.traffic.clients,
                            s.traffic.load_profile.set() ? "load profile " + s.traffic.load_profile.text()
                            : s.traffic.rate > 0         ? fmt::format("rate {}", s.traffic.rate)
                                                         : "no steady traffic declared",
                            s.traffic.clients, s.traffic.clients)) {
  tau_ = exact_durations() ? s.measurement.horizon - 1.0 : s.measurement.horizon / 2;
}

bool TrafficRules::exact_durations() const {
  return s_.model == Model::collision || s_.model == Model::free || s_.model == Model::none;
}

void TrafficRules::begin_run(std::int64_t run, std::int64_t line) {
  run_ = run;
  run_line_ = line;
  burst_clients_ = steady_ = 0;
  last_arrival_ = 0;
  last_start_ = -inf;
  run_gaps_.clear();
}

void TrafficRules::row(const Row& r, std::int64_t line, std::string_view text) {
  last_start_ = std::max(last_start_, r.start);
  if (!r.burst_given && steady_traffic(s_) && s_.traffic.clients > 0) burst_unknown_ = true;
  if (r.retry != 0 || burst_unknown_) return;  // a client is counted at its first attempt
  ++checked_;
  if (r.burst) {
    if (s_.traffic.clients == 0) {
      arrivals_.add(line, text, "a burst client, but the header declares no burst (clients=0)");
    } else if (std::fabs(r.arrival) > tol(0)) {
      arrivals_.add(line, text, fmt::format("a burst client arriving at {}, not at t = 0", r.arrival));
      ++burst_clients_;
    } else if (++burst_clients_ == s_.traffic.clients + 1) {
      arrivals_.add(
          line, text,
          fmt::format("burst client {} of run {}: {} are declared", s_.traffic.clients + 1, run_, s_.traffic.clients));
    }
    return;
  }
  if (!steady_traffic(s_)) {
    arrivals_.add(line, text, "a steady client (burst = 0), but the header declares no steady traffic (rate=0)");
    return;
  }
  if (r.arrival < -tol(0) || r.arrival >= s_.measurement.horizon + tol(s_.measurement.horizon)) {
    arrivals_.add(line, text, fmt::format("arrives at {}, outside [0, horizon {})", r.arrival, s_.measurement.horizon));
    return;
  }
  if (r.arrival >= tau_) return;
  ++steady_;
  const double gap = r.arrival - last_arrival_;
  last_arrival_ = r.arrival;
  // Λ over the gap (a load profile: time rescaling makes the gaps of a non-homogeneous Poisson
  // process i.i.d. Exp(1) in Λ), λ·gap at a constant rate
  const montecarlo::LoadProfile& p = s_.traffic.load_profile;
  if (gap >= 0 && gaps_.size() + run_gaps_.size() < static_cast<std::size_t>(ks_sample_cap))
    run_gaps_.push_back(1.0 - std::exp(-(p.set() ? p.integral(r.arrival - gap, r.arrival) : s_.traffic.rate * gap)));
}

void TrafficRules::end_run(const std::optional<RunEnd>& stop) {
  const std::string reason = stop ? stop->stop : "";
  const bool left = reason == "finished" || reason == "drained";  // every burst client left
  if (left && sv_.sequence_na.empty() && !burst_unknown_ && burst_clients_ != s_.traffic.clients &&
      s_.traffic.clients > 0)
    arrivals_.add(run_line_, fmt::format("run {} (its first row)", run_),
                  fmt::format("{} burst clients in a run that stopped {}, {} declared", burst_clients_, reason,
                              s_.traffic.clients));
  // The arrival statistics: runs cut at the horizon, every arrival before tau recorded.
  const bool complete = exact_durations() || last_start_ >= tau_;
  if (reason == "horizon" && tau_ > 0 && complete) {
    count_ += steady_;
    exposure_ += tau_;
    ++runs_counted_;
    gaps_.insert(gaps_.end(), run_gaps_.begin(), run_gaps_.end());
  }
}

std::string TrafficRules::stats_na() const {
  if (!sv_.arrivals_na.empty()) return sv_.arrivals_na;
  if (burst_unknown_) return "no burst column: steady clients cannot be told from burst ones";
  return "";
}

void TrafficRules::finish(std::vector<TraceCheck>& out, std::vector<StatCheck>& stats) const {
  if (burst_unknown_) {
    Finding f = arrivals_;
    out.push_back(applies(f, "no burst column in burst-on-steady traffic: burst clients cannot be told apart", 0, ""));
  } else {
    Finding f = arrivals_;
    out.push_back(f.finish(checked_, "clients"));
  }
  if (!steady_traffic(s_)) return;
  const montecarlo::LoadProfile& profile = s_.traffic.load_profile;
  const std::string count_form =
      profile.set() ? fmt::format(
                          "Poisson arrivals under the load profile: the count before tau = {} in {} runs is "
                          "Poisson(Lambda(tau) * runs), Lambda(tau) = {:.6g}",
                          tau_, runs_counted_, profile.integral(0.0, std::max(tau_, 0.0)))
                    : fmt::format(
                          "Poisson arrivals at rate {}: the count before tau = {} in {} runs is "
                          "Poisson(rate * tau * runs)",
                          s_.traffic.rate, tau_, runs_counted_);
  const std::string gap_form =
      profile.set() ? "KS of 1 - exp(-(Lambda(t_i) - Lambda(t_(i-1)))) against U(0,1) (time-rescaled gaps)"
                    : fmt::format("KS of 1 - exp(-{} * gap) against U(0,1) (Exp gaps)", s_.traffic.rate);
  if (const std::string na = stats_na(); !na.empty()) {
    for (const auto& [name, form] : {std::pair{"arrival count", count_form}, std::pair{"arrival gaps", gap_form}})
      stats.push_back(
          {make_check(name, "statistic", form, "not applicable: " + na, CheckVerdict::not_applicable), std::nan("")});
    return;
  }
  if (runs_counted_ == 0) return;
  const double mu =
      profile.set() ? profile.integral(0.0, tau_) * static_cast<double>(runs_counted_) : s_.traffic.rate * exposure_;
  const double p = poisson_two_sided_p(count_, mu);
  stats.push_back({make_check("arrival count", "statistic", count_form,
                              fmt::format("{} arrivals, {:.6g} expected, p = {:.3g}", count_, mu, p)),
                   p,
                   {PowerBasis::Kind::count, 0, 0, mu}});
  if (gaps_.size() < 20) return;
  const KsResult r = ks_test(gaps_, [](double x) { return std::clamp(x, 0.0, 1.0); });
  stats.push_back({make_check("arrival gaps", "statistic", gap_form,
                              fmt::format("D = {:.4g}, n = {}, p = {:.3g}", r.statistic, r.n, r.pvalue)),
                   r.pvalue,
                   {PowerBasis::Kind::ks, r.n}});
}

}  // namespace retrylab::validation::trace
