// 14. Arrivals under a load profile (montecarlo/profile.hpp, components/load_profile.hpp): steady
// arrivals on model `none` with no retries and no burst, their rate λ(t) a profile, drawn as a
// non-homogeneous Poisson process by thinning. The arrivals of a run in [0, T) are Poisson of mean
// Λ(T) = ∫_0^T λ(t) dt, so "profile-arrivals-<form>-T<T>" holds the runs' mean count (clients_arrived)
// to profile.integral(0, T) by the mean rule at the case's α, floor 0 (exact: no edge effect), for a
// ramp, steps, a sine and a constant profile (the constant one is the plain Poisson rate's law; the
// bit-for-bit equality with the plain rate is a unit test, tests/montecarlo/load_profile_test.cpp).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "montecarlo/profile.hpp"
#include "validation/catalogue.hpp"
#include "validation/rules.hpp"

namespace retrylab::validation {

using namespace detail;

namespace {

montecarlo::Scenario profile_scenario(const montecarlo::LoadProfile& p, double horizon) {
  montecarlo::Scenario s;
  s.model = Model::none;  // no contention: each arrival is one attempt
  s.client.retries = false;
  s.traffic.clients = 0;
  s.traffic.load_profile = p;
  s.measurement.horizon = horizon;
  return s;
}

ValidationCase profile_case(const std::string& form, const std::string& text, double horizon, std::int64_t runs) {
  const montecarlo::LoadProfile p = montecarlo::LoadProfile::parse(text);
  const std::string name = fmt::format("profile-arrivals-{}-T{}", form, g(horizon));
  const std::string params =
      fmt::format("model=none retries=off load_profile={} T={} runs={}", p.text(), g(horizon), runs);
  const double cost = static_cast<double>(runs) * p.max_rate() * horizon * 2e-7;
  return make_case(name, params, CaseKind::statistical, cost, [p, horizon, runs](const CaseContext& ctx) {
    const auto results = run(profile_scenario(p, horizon), runs, ctx);
    std::vector<double> v;
    v.reserve(results.size());
    for (const auto& r : results) v.push_back(static_cast<double>(r.clients_arrived));
    CaseResult out;
    const double expected = p.integral(0.0, horizon);
    out.closed_form = fmt::format("Λ(T) = ∫_0^T λ(t) dt = {}", g(expected));
    apply_mean_rule(out, v, expected, 0.0, "none: Poisson arrivals counted in [0, T) exactly", ctx.alpha);
    return out;
  });
}

}  // namespace

std::vector<ValidationCase> profile_cases(Scale scale) {
  const std::int64_t runs = scale == Scale::full ? 2000 : 400;
  std::vector<ValidationCase> out;
  for (const double horizon : {30.0, 100.0}) {
    out.push_back(profile_case("ramp", "0:0,50:4,100:1", horizon, runs));
    out.push_back(profile_case("steps", "step:0:1,30:5,70:0.5", horizon, runs));
    out.push_back(profile_case("sine", "sine:40:1.5:2", horizon, runs));
    out.push_back(profile_case("constant", "0:0.75", horizon, runs));
  }
  return out;
}

}  // namespace retrylab::validation
