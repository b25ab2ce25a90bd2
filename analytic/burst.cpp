#include "analytic/burst.hpp"

#include <fmt/format.h>
#include <Eigen/Core>
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/steady.hpp"

namespace retrylab {

namespace {

using Phases = Eigen::VectorXd;  // burst phases, steady phases, z (burst successes so far)

// Phases per stage matched to the sleep's squared coefficient of variation (method of phases:
// Erlang-r has CV² = 1/r): memoryless 1, full/window (uniform from 0) 3, equal 27, nojitter 32
// (the most we allow: a near-deterministic sleep), decorrelated 3 (its law is near-uniform within a
// stage), none 1.
int phases(Strategy s) {
  switch (s) {
    case Strategy::full:
    case Strategy::window:
    case Strategy::decorrelated: return 3;
    case Strategy::equal: return 27;
    case Strategy::nojitter: return 32;
    default: return 1;
  }
}

struct Stages {
  Model model;
  double rate;
  int r = 1;                  // phases per stage
  std::vector<double> phase;  // per stage: the rate r/m_k of each of its phases

  int S() const { return static_cast<int>(phase.size()); }
  int size() const { return S() * r; }  // one population

  void operator()(const Phases& s, Phases& ds, double /*t*/) const {
    const int n = size();
    double G = rate;
    for (int k = 0; k < S(); ++k)
      G += (std::max(0.0, s[k * r + r - 1]) + std::max(0.0, s[n + k * r + r - 1])) * phase[static_cast<std::size_t>(k)];
    const double P = attempt_success(model, G);
    double burst_success = 0.0;
    for (int part = 0; part < 2; ++part) {
      const int o = part * n;
      double inflow = part == 0 ? 0.0 : rate * (1.0 - P);  // failed first attempts enter stage 1
      for (int k = 0; k < S(); ++k) {
        const double mu = phase[static_cast<std::size_t>(k)];
        const bool last = k == S() - 1;
        const double attempts = std::max(0.0, s[o + k * r + r - 1]) * mu;
        // The cap's stage feeds its own failures back to its first phase.
        ds[o + k * r] = inflow + (last ? (1.0 - P) * attempts : 0.0) - std::max(0.0, s[o + k * r]) * mu;
        for (int j = 1; j < r; ++j)
          ds[o + k * r + j] = mu * (std::max(0.0, s[o + k * r + j - 1]) - std::max(0.0, s[o + k * r + j]));
        inflow = (1.0 - P) * attempts;
        if (part == 0) burst_success += P * attempts;
      }
    }
    ds[2 * n] = burst_success;
  }
};

}  // namespace

void check_burst_model(const BurstModel& m) {
  check_steady_model(SteadyModel{m.model, m.backoff});
  if (m.clients < 2 || m.clients > 1'000'000'000)
    throw InputError("clients", fmt::format("must be in [2, 1000000000] (got {})", m.clients));
  if (!(m.rate >= 0.0 && m.rate < 1.0)) throw InputError("rate", fmt::format("must be in [0, 1) (got {})", m.rate));
  if (!(m.horizon > 0.0) || !std::isfinite(m.horizon))
    throw InputError("horizon", fmt::format("must be a finite number > 0 (got {})", m.horizon));
  if (!(m.collapse >= 1.0) || !std::isfinite(m.collapse))
    throw InputError("collapse", fmt::format("must be a finite number >= 1 (got {})", m.collapse));
  if (m.phases < 0 || m.phases > 64)
    throw InputError("phases", fmt::format("must be in [0, 64] (0 = matched to the sleep law) (got {})", m.phases));
}

BurstPrediction predict_burst(const BurstModel& m) {
  check_burst_model(m);
  Stages f{m.model, m.rate, m.phases > 0 ? m.phases : phases(m.backoff.strategy), {}};
  for (double mk : stage_means(m.backoff)) f.phase.push_back(f.r / std::max(mk, 1e-9));
  const int n = f.size();
  Phases s = Phases::Zero(2 * n + 1);
  const double B = static_cast<double>(m.clients);
  s[0] = B;
  namespace ode = boost::numeric::odeint;
  using Stepper = ode::runge_kutta_dopri5<Phases, double, Phases, double, ode::vector_space_algebra>;
  auto stepper = ode::make_dense_output(1e-8, 1e-6, Stepper());
  stepper.initialize(s, 1.0, 1e-3);  // t = 1: the burst's first attempts have ended
  BurstPrediction out;
  out.drain_time = out.drain_time_p99 = std::numeric_limits<double>::quiet_NaN();
  auto burst = [n](const Phases& v) { return v.head(n).sum(); };
  auto total = [n](const Phases& v) { return v.head(2 * n).sum(); };
  double t_prev = 1.0, b_prev = B;
  while (stepper.current_time() < m.horizon) {
    stepper.do_step(f);
    const Phases& v = stepper.current_state();
    const double t = stepper.current_time(), b = burst(v);
    out.peak_backlog = std::max(out.peak_backlog, total(v));
    // Crossing times by linear interpolation inside the step.
    auto cross = [&](double level) { return t_prev + (t - t_prev) * (b_prev - level) / (b_prev - b); };
    if (std::isnan(out.drain_time_p99) && b <= 0.01 * B) out.drain_time_p99 = cross(0.01 * B);
    if (b <= 0.5) {
      out.drained = true;
      out.drain_time = cross(0.5);
      break;
    }
    if (total(v) >= m.collapse) {
      out.collapsed = true;
      break;
    }
    t_prev = t;
    b_prev = b;
  }
  const Phases& v = stepper.current_state();
  out.burst_left = burst(v);
  out.burst_successes = v[2 * n];
  if (out.drained && out.drain_time > m.horizon)
    out.drained = false, out.drain_time = std::numeric_limits<double>::quiet_NaN();
  return out;
}

std::optional<double> burst_cap_threshold(BurstModel m, double max_cap) {
  check_burst_model(m);
  auto drains = [&m](int i) {
    m.backoff.cap = m.backoff.base * std::exp2(i / 8.0);
    return predict_burst(m).drained;
  };
  // Doubling caps up to the first that drains, then the eighth-octave steps below it (the caps in
  // between are taken not to drain: draining is monotone in the cap until the horizon binds).
  // Start near B/16 (small caps are the slow integrations: they never drain, so run to the
  // horizon); walk down by octaves while that still drains.
  int hi = 8 * static_cast<int>(std::floor(std::log2(std::max(1.0, static_cast<double>(m.clients) / 16.0))));
  if (drains(hi)) {
    while (hi > 0 && drains(hi - 8)) hi -= 8;
  } else {
    do {
      hi += 8;
      if (m.backoff.base * std::exp2(hi / 8.0) > max_cap) return std::nullopt;
    } while (!drains(hi));
  }
  int lo = hi == 0 ? -1 : hi - 8;  // does not drain (or, at -1, below the base: never probed)
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (drains(mid) ? hi : lo) = mid;
  }
  return m.backoff.base * std::exp2(hi / 8.0);
}

}  // namespace retrylab
