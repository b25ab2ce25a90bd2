#include "api/sanity.hpp"

#include <fmt/format.h>
#include <cmath>

#include "api/format.hpp"

namespace retrylab::api {

std::vector<std::string> sanity_warnings(const ResolvedScenario& s, Spelling how) {
  std::vector<std::string> out;
  const montecarlo::Scenario& sc = s.scenario;
  const montecarlo::TimeUnit& u = s.unit;
  const auto rate_in_unit = [&](double per_attempt) { return u.out(montecarlo::Dim::per_time, per_attempt); };
  const auto time_in_unit = [&](double attempts) { return u.out(montecarlo::Dim::time, attempts); };
  // The resource serves at most `rows` attempts per attempt-duration (the uncontended `none` has no limit).
  const double capacity = static_cast<double>(sc.resource.rows);
  const double horizon = sc.measurement.horizon;
  double load = sc.traffic.rate;
  std::string what = spelled("rate", how);
  if (sc.traffic.load_profile.set() && horizon > 0.0) {
    load = sc.traffic.load_profile.integral(0.0, horizon) / horizon;
    what = fmt::format("the mean of {}", spelled("load_profile", how));
  }
  if (sc.model != Model::none && load >= capacity)
    out.push_back(fmt::format(
        "{} {} per {} is at or above the resource's capacity ({} attempt{} per attempt-duration = {} per {}): "
        "clients wait without bound until the collapse rule ({} waiting) stops the run",
        what, number_text(rate_in_unit(load)), u.singular(), sc.resource.rows, sc.resource.rows == 1 ? "" : "s",
        number_text(rate_in_unit(capacity)), u.singular(), sc.measurement.collapse));
  if (horizon > 0.0 && horizon < 1.0)
    out.push_back(fmt::format("{} {} {} is shorter than one attempt ({} {}): no attempt can end within it",
                              spelled("horizon", how), number_text(time_in_unit(horizon)), u.plural(),
                              number_text(time_in_unit(1.0)), u.plural()));
  const Backoff& b = sc.backoff;
  const bool grows = b.strategy == Strategy::nojitter || b.strategy == Strategy::full ||
                     b.strategy == Strategy::equal || b.strategy == Strategy::decorrelated;
  const double first = b.strategy == Strategy::decorrelated ? 3.0 * b.base : b.base;
  if (grows && std::isfinite(b.cap) && b.multiplier > 1.0 && b.cap <= first && sc.client.retries)
    out.push_back(
        fmt::format("{} {} {} is at or below the first retry's window ({} {}{}): the backoff never grows, every retry "
                    "sleeps within the same window",
                    spelled("cap", how), number_text(time_in_unit(b.cap)), u.plural(), number_text(time_in_unit(first)),
                    u.plural(), b.strategy == Strategy::decorrelated ? ", 3 x base for decorrelated" : ", the base"));
  return out;
}

}  // namespace retrylab::api
