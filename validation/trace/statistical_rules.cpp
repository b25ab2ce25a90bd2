#include "validation/trace/statistical_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analytic/aloha.hpp"
#include "analytic/error.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/rows.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/random.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation::trace {

namespace {

TraceCheck not_applicable(const std::string& name, const std::string& form, const std::string& why) {
  return make_check(name, "statistic", form, "not applicable: " + why, CheckVerdict::not_applicable);
}

}  // namespace

void StatisticalRules::row(const Row& r) {
  if (r.success) last_u_.erase(r.client);  // its sleeps are over
  ++run_attempts_;
  if (r.success) {
    ++run_successes_;
    run_last_success_ = r.end;
    if (r.end >= s_.measurement.warmup) ++run_window_successes_;
  }
  if (r.end >= s_.measurement.warmup) {
    run_sojourn_ += r.end - r.start;
    ++run_sojourn_n_;
  }
  run_last_end_ = r.end;
}

// splitmix64 (montecarlo/random.hpp's finaliser over a Weyl sequence): the deterministic
// tie-breaking uniform of the randomized PIT at an atom.
double StatisticalRules::pit_uniform() {
  pit_state_ += 0x9e3779b97f4a7c15ull;
  return static_cast<double>(montecarlo::mix64(pit_state_) >> 11) * 0x1.0p-53;
}

void StatisticalRules::sleep(const SleepSample& x) {
  if (!sv_.ks_na.empty()) return;  // no law to test the sleeps against
  const Backoff& b = s_.backoff;
  const double eps = 1e-12;
  double prev = x.prev;
  const double hi = SleepRules::bounds(b, x.retry, prev).second;
  if (std::isnan(prev)) prev = b.base;
  // probability integral transform: U(0,1) under the declared law (conditional on the previous
  // sleep for decorrelated jitter; randomized at its atom at the cap)
  if (!std::isfinite(hi)) return;  // cap none and a width past every double: no law to test against
  double u;
  switch (b.strategy) {
    case Strategy::none:
    case Strategy::nojitter: return;  // point masses: the support check is exact
    case Strategy::full:
    case Strategy::equal:
    case Strategy::window: {
      const auto f = sleep_cdf(x.retry, x.sleep);
      if (!f) return;
      u = *f;
      break;
    }
    case Strategy::decorrelated: {
      const double top = 3.0 * prev;  // the draw is U(b, 3·prev), then capped at c
      if (top <= b.cap || x.sleep < b.cap * (1 - eps)) {
        u = (x.sleep - b.base) / (top - b.base);
      } else {
        const double a = (b.cap - b.base) / (top - b.base);
        u = a + pit_uniform() * (1 - a);
      }
      break;
    }
    default: return;
  }
  // Censoring: a retry is written only if it ends before the stop, so long sleeps near the stop
  // would be missing. A sleep enters the KS sample only if its retry would have been written
  // whatever sleep was drawn (decided at the run's end, when the stop is known).
  u = std::clamp(u, 0.0, 1.0);
  const auto last = last_u_.find(x.client);
  const double pair = last == last_u_.end() ? std::nan("") : (last->second - 0.5) * (u - 0.5);
  last_u_[x.client] = u;
  if (pending_ks_.size() < static_cast<std::size_t>(max_pending))
    pending_ks_.push_back({u, x.start - x.sleep + sleeps_.max_sleep(x.retry, prev),
                           static_cast<int>(std::min<std::int64_t>(x.retry, 9) - 1), pair});
}

double StatisticalRules::stop_time(const std::optional<RunEnd>& stop) const {
  return stop ? stop->stop_time
              : (steady_traffic(s_) && !s_.client.retries ? montecarlo::effective_horizon(s_) : run_last_end_);
}

void StatisticalRules::end_run(const std::optional<RunEnd>& stop, double stop_time) {
  // goodput (retries off, steady traffic) and time in system (ps)
  const double span = stop_time - s_.measurement.warmup;
  if (span > 0) {
    goodput_.push_back(static_cast<double>(run_window_successes_) / span);
    if (run_sojourn_n_ > 0) sojourn_.push_back(run_sojourn_ / static_cast<double>(run_sojourn_n_));
  }
  // classic test
  const bool finished = stop ? stop->stop == "finished" : !steady_traffic(s_) && run_successes_ == s_.traffic.clients;
  flush_ks(finished, stop_time);
  classic_runs_.push_back({run_attempts_, run_successes_, run_last_success_, finished, run_line_});
  run_attempts_ = run_successes_ = run_window_successes_ = run_sojourn_n_ = 0;
  run_sojourn_ = 0;
  run_last_success_ = run_last_end_ = std::nan("");
}

void StatisticalRules::flush_ks(bool finished, double stop_time) {
  for (const auto& p : pending_ks_) {
    if (!finished && !(sv_.exact && p.latest_start + sv_.max_duration < stop_time - tol(stop_time))) continue;
    auto& bucket = ks_[static_cast<std::size_t>(p.bucket)];
    if (bucket.size() < static_cast<std::size_t>(ks_sample_cap)) bucket.push_back(p.u);
    if (ks_all_.size() < static_cast<std::size_t>(ks_sample_cap)) ks_all_.push_back(p.u);
    if (!std::isnan(p.pair)) {
      pair_sum_ += p.pair;
      pair_squares_ += p.pair * p.pair;
      ++pairs_;
    }
  }
  pending_ks_.clear();
  last_u_.clear();
}

// The exact CDF of the sleep before retry k (analytic/sleep.hpp), one law per k (cached).
// Empty when analytic/sleep.hpp has no law for this k (outside its stated limits).
std::optional<double> StatisticalRules::sleep_cdf(std::int64_t k, double x) {
  const int kk = static_cast<int>(std::min<std::int64_t>(k, 100000));
  auto it = laws_.find(kk);
  if (it == laws_.end()) {
    if (laws_.size() > 4096) laws_.clear();
    try {
      it = laws_.emplace(kk, SleepDistribution(s_.backoff, kk)).first;
    } catch (const InputError&) {
      return std::nullopt;
    }
  }
  return it->second.cdf(x);
}

// Two-sided t-test of the run means against the closed form; the p-value from Student's t.
StatisticalRules::Stat StatisticalRules::mean_check(const std::string& name, const std::string& form,
                                                    const std::vector<double>& xs, double expect) {
  const MeanSummary m = summarize_mean(xs);
  const double se = m.sd / std::sqrt(static_cast<double>(m.n));
  double p;
  if (se > 0) {
    const double t = std::fabs(m.mean - expect) / se;
    p = t_two_sided_p(t, static_cast<double>(m.n - 1));
  } else {
    p = std::fabs(m.mean - expect) <= tol(expect) ? 1.0 : 0.0;
  }
  TraceCheck c = make_check(name, "statistic", fmt::format("{} = {:.6g}", form, expect),
                            fmt::format("{:.6g} +- {:.3g} (sd/sqrt(n), n = {} runs), p = {:.3g}", m.mean, se, m.n, p));
  return {c, p, {PowerBasis::Kind::mean, m.n, se, expect}};
}

void StatisticalRules::finish(std::vector<Stat>& stats) const {
  ks_checks(stats);
  independence_check(stats);
  goodput_checks(stats);
  sojourn_checks(stats);
  classic_checks(stats);
}

void settle_statistics(std::vector<StatCheck>& stats, std::vector<TraceCheck>& out) {
  std::int64_t tests = 0;
  for (const auto& s : stats) tests += std::isfinite(s.p);
  const double alpha = tests > 0 ? bonferroni_alpha(trace_alpha_total, tests) : trace_alpha_total;
  for (auto& s : stats) {
    if (std::isfinite(s.p)) {
      s.check.verdict = s.p < alpha ? CheckVerdict::fail : CheckVerdict::pass;
      s.check.observed += fmt::format(" (fail if p < {:.2g})", alpha);
      s.check.detectable = detectable(s.power, alpha);
      s.check.power = power_text(s.power, s.check.detectable, alpha);
    }
    out.push_back(s.check);
  }
}

void StatisticalRules::ks_checks(std::vector<Stat>& stats) const {
  // KS of sleeps per retry index, and pooled
  const bool jittered = s_.backoff.strategy == Strategy::full || s_.backoff.strategy == Strategy::equal ||
                        s_.backoff.strategy == Strategy::window || s_.backoff.strategy == Strategy::decorrelated;
  if (s_.client.retries && jittered && !sv_.ks_na.empty())
    stats.push_back(
        {not_applicable("sleep distribution", "KS against the exact sleep CDF (analytic/sleep.hpp)", sv_.ks_na),
         std::nan("")});
  if (s_.client.retries && jittered && sv_.ks_na.empty()) {
    const auto uniform = [](double x) { return std::clamp(x, 0.0, 1.0); };
    for (std::size_t k = 0; k < ks_.size(); ++k) {
      if (ks_[k].size() < 20) continue;
      const KsResult r = ks_test(ks_[k], uniform);
      stats.push_back(
          {make_check(
               fmt::format("sleep distribution, retry {}", k < 8 ? std::to_string(k + 1) : "9+"), "statistic",
               "KS against the exact sleep CDF (analytic/sleep.hpp; decorrelated: conditional on the previous sleep)",
               fmt::format("D = {:.4g}, n = {}, p = {:.3g}", r.statistic, r.n, r.pvalue)),
           r.pvalue,
           {PowerBasis::Kind::ks, r.n}});
    }
    if (ks_all_.size() >= 20) {
      const KsResult r = ks_test(ks_all_, uniform);
      stats.push_back({make_check("sleep distribution, all retries", "statistic",
                                  "KS of F_k(sleep) pooled over retries against U(0,1)",
                                  fmt::format("D = {:.4g}, n = {}, p = {:.3g}", r.statistic, r.n, r.pvalue)),
                       r.pvalue,
                       {PowerBasis::Kind::ks, r.n}});
    }
  }
}

void StatisticalRules::independence_check(std::vector<Stat>& stats) const {
  if (pairs_ < 50 || !(pair_squares_ > 0)) return;
  const double z = pair_sum_ / std::sqrt(pair_squares_);
  const double p = std::erfc(std::fabs(z) / std::sqrt(2.0));  // two-sided normal
  // 12 x the mean centred product: the correlation of successive F_k(sleep) when the sleep law holds
  // (each u uniform, variance 1/12); a law that does not hold can put it outside [-1, 1].
  const double rho = 12.0 * pair_sum_ / static_cast<double>(pairs_);
  stats.push_back(
      {make_check("sleep independence", "statistic",
                  "a client's successive sleeps are independent: F(sleep) of retries k and k+1 "
                  "uncorrelated (self-normalised sum of (u_k - 1/2)(u_(k+1) - 1/2) ~ N(0, 1))",
                  fmt::format("12 x mean product {:.3g} (the correlation if the law holds), z = {:.3g}, n = {} pairs, "
                              "p = {:.3g}",
                              rho, z, pairs_, p)),
       p,
       {PowerBasis::Kind::correlation, pairs_}});
}

void StatisticalRules::goodput_checks(std::vector<Stat>& stats) const {
  const bool steady_only = s_.traffic.clients == 0 && s_.traffic.rate > 0;
  // goodput with retries off: ALOHA and the M/D/1/1 loss system
  if (steady_only && !s_.client.retries && (s_.model == Model::collision || s_.model == Model::free) &&
      goodput_.size() >= 2) {
    if (!sv_.any) {
      const double expect =
          s_.model == Model::collision ? goodput(PureAloha{s_.traffic.rate}) : goodput(OccFree{s_.traffic.rate});
      stats.push_back(mean_check(
          "goodput (retries off)",
          s_.model == Model::collision ? "lambda*exp(-2*lambda) (proofs/Aloha.v)" : "lambda/(1+lambda) (proofs/Occ.v)",
          goodput_, expect));
    } else if (sv_.only_rows) {
      const std::int64_t m = s_.resource.rows;
      const double expect =
          s_.model == Model::collision ? goodput(AlohaRows{s_.traffic.rate, m}) : goodput(FreeRows{s_.traffic.rate, m});
      stats.push_back(mean_check("goodput (retries off)",
                                 s_.model == Model::collision
                                     ? "lambda*exp(-2*lambda/M) (proofs/Rows.v: aloha_rows_goodput)"
                                     : "lambda/(1+lambda/M) (proofs/Rows.v: occ_rows_goodput)",
                                 goodput_, expect));
    } else {
      stats.push_back({not_applicable("goodput (retries off)", "the ALOHA / first-commit-wins closed forms (rows only)",
                                      fmt::format("no closed form with {}", sv_.fields)),
                       std::nan("")});
    }
  }
}

void StatisticalRules::sojourn_checks(std::vector<Stat>& stats) const {
  const bool steady_only = s_.traffic.clients == 0 && s_.traffic.rate > 0;
  // The FIFO lock with retries off: M/G/1 FIFO per row (each row sees λ/M by thinning; `shared`
  // and `ps` share one server between rows, so one row only there); mean time in system by
  // Pollaczek–Khinchine. No delay, no limit (it would add to or cut the queue).
  const montecarlo::Resource& so = s_.resource;
  if (steady_only && !s_.client.retries && so.lock && so.delay == 0 && s_.admission.limit == 0 && !s_.admission.aimd &&
      (so.rows == 1 || s_.model == Model::collision || s_.model == Model::free) &&
      s_.traffic.rate / static_cast<double>(so.rows) < 1 && sojourn_.size() >= 2) {
    const double m2 = so.service == montecarlo::ServiceDist::exponential ? service_second_moment_exponential()
                      : so.service == montecarlo::ServiceDist::lognormal
                          ? service_second_moment_lognormal(so.service_cv)
                          : 1.0;
    stats.push_back(mean_check("time in system (lock)",
                               fmt::format("1 + lambda*E[S^2]/(2(1-lambda)), lambda = {} per row, E[S^2] = {} "
                                           "(proofs/Rows.v: pk_mean_time)",
                                           s_.traffic.rate / static_cast<double>(so.rows), m2),
                               sojourn_, mean_time(FifoQueue{s_.traffic.rate / static_cast<double>(so.rows), m2})));
  }
  if (steady_only && s_.model == Model::ps && s_.traffic.rate < 1 && sojourn_.size() >= 2) {
    if (!sv_.any)
      stats.push_back(mean_check("time in system (ps)", "1/(1-rho) (proofs/Ps.v: ps_mean_time)", sojourn_,
                                 mean_time(ProcessorSharing{s_.traffic.rate, 1.0})));
    else
      stats.push_back({not_applicable("time in system (ps)", "1/(1-rho) (proofs/Ps.v: ps_mean_time)",
                                      fmt::format("no closed form with {}", sv_.fields)),
                       std::nan("")});
  }
}

void StatisticalRules::classic_checks(std::vector<Stat>& stats) const {
  // classic test: exact
  std::optional<ClassicResult> classic_form;
  if (sv_.any && !steady_traffic(s_) && s_.traffic.clients >= 1 && s_.client.retries &&
      has_classic_closed_form(s_.model, s_.backoff.strategy))
    stats.push_back(
        {not_applicable("classic test (exact)", "attempts per client and makespan (proofs/Classic.v)",
                        fmt::format("the classic closed forms assume no server options (here {})", sv_.fields)),
         std::nan("")});
  else if (!steady_traffic(s_) && s_.traffic.clients >= 1 && s_.client.retries &&
           has_classic_closed_form(s_.model, s_.backoff.strategy)) {
    try {
      classic_form = classic(ClassicTest{s_.model, s_.backoff, s_.traffic.clients});
    } catch (const InputError&) {
      // outside analytic/classic.hpp's limits (N > 10^15): no closed form to compare with
    }
  }
  if (classic_form) stats.push_back({classic_runs_check(*classic_form), std::nan("")});
}

TraceCheck StatisticalRules::classic_runs_check(const ClassicResult& c) const {
  TraceCheck t = make_check("classic test (exact)", "statistic", "", "", CheckVerdict::pass);
  const double n = static_cast<double>(s_.traffic.clients);
  std::int64_t checked = 0;
  if (c.finishes) {
    t.expected = fmt::format("attempts per client {} and makespan {} in every finished run (proofs/Classic.v)",
                             *c.attempts_per_client, *c.makespan);
    for (const auto& r : classic_runs_) {
      if (!r.finished) continue;
      ++checked;
      const double apc = static_cast<double>(r.attempts) / n;
      const double mtol = 4 * n * std::numeric_limits<double>::epsilon() * *c.makespan;
      if (apc != *c.attempts_per_client || std::fabs(r.makespan - *c.makespan) > mtol) {
        ++t.count;
        if (t.lines.size() < 10) t.lines.push_back(r.line);
        if (t.rows.size() < 3)
          t.rows.push_back(
              fmt::format("run starting at line {}: attempts per client {}, makespan {}", r.line, apc, r.makespan));
      }
    }
  } else {
    t.expected = "no success ever (clients that start together collide forever; proofs/Classic.v)";
    for (const auto& r : classic_runs_) {
      ++checked;
      if (r.successes > 0) {
        ++t.count;
        if (t.lines.size() < 10) t.lines.push_back(r.line);
      }
    }
  }
  t.observed = fmt::format("{} of {} runs differ", t.count, checked);
  t.verdict = checked == 0 ? CheckVerdict::skipped : t.count ? CheckVerdict::fail : CheckVerdict::pass;
  return t;
}

}  // namespace retrylab::validation::trace
