#include "analytic/burst.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/steady.hpp"

namespace retrylab {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
using State = Eigen::VectorXd;  // x_1..x_S, y_1..y_S, z (burst successes so far)

struct Stages {
  Model model;
  double rate;
  std::vector<double> inv_m;  // 1/m_k (a zero sleep: retry at once, taken as rate 1/1e-9)

  int S() const { return static_cast<int>(inv_m.size()); }

  void operator()(const State& s, State& ds, double /*t*/) const {
    const int n = S();
    double G = rate;
    for (int k = 0; k < n; ++k) G += (s[k] + s[n + k]) * inv_m[static_cast<std::size_t>(k)];
    const double P = attempt_success(model, G);
    for (int part = 0; part < 2; ++part) {
      const int o = part * n;
      double inflow = part == 0 ? 0.0 : rate * (1.0 - P);
      for (int k = 0; k < n; ++k) {
        const double r = std::max(0.0, s[o + k]) * inv_m[static_cast<std::size_t>(k)];
        const bool last = k == n - 1;
        ds[o + k] = inflow - (last ? P * r : r);
        inflow = (1.0 - P) * r;
      }
    }
    double burst_success = 0.0;
    for (int k = 0; k < n; ++k) burst_success += P * std::max(0.0, s[k]) * inv_m[static_cast<std::size_t>(k)];
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
}

BurstPrediction predict_burst(const BurstModel& m) {
  check_burst_model(m);
  Stages f{m.model, m.rate, {}};
  for (double mk : stage_means(m.backoff)) f.inv_m.push_back(1.0 / std::max(mk, 1e-9));
  const int n = f.S();
  State s = State::Zero(2 * n + 1);
  const double B = static_cast<double>(m.clients);
  s[0] = B;
  namespace ode = boost::numeric::odeint;
  using Stepper = ode::runge_kutta_dopri5<State, double, State, double, ode::vector_space_algebra>;
  auto stepper = ode::make_dense_output(1e-9, 1e-7, Stepper());
  stepper.initialize(s, 1.0, 1e-3);  // t = 1: the burst's first attempts have ended
  BurstPrediction out;
  out.drain_time = out.drain_time_p99 = nan;
  auto burst = [n](const State& v) { return v.head(n).sum(); };
  auto total = [n](const State& v) { return v.head(2 * n).sum(); };
  double t_prev = 1.0, b_prev = B;
  while (stepper.current_time() < m.horizon) {
    stepper.do_step(f);
    const State& v = stepper.current_state();
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
  const State& v = stepper.current_state();
  out.burst_left = burst(v);
  out.burst_successes = v[2 * n];
  if (out.drained && out.drain_time > m.horizon) out.drained = false, out.drain_time = nan;
  return out;
}

std::optional<double> burst_cap_threshold(BurstModel m, double max_cap) {
  check_burst_model(m);
  for (int i = 0;; ++i) {
    const double cap = m.backoff.base * std::exp2(i / 8.0);
    if (cap > max_cap) return std::nullopt;
    m.backoff.cap = cap;
    if (predict_burst(m).drained) return cap;
  }
}

}  // namespace retrylab
