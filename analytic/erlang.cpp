#include "analytic/erlang.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

namespace {

void need_finite_at_least(const char* field, double x, double lo) {
  if (!(x >= lo) || !std::isfinite(x))
    throw InputError(field, fmt::format("must be a finite number >= {} (got {})", lo, x));
}

}  // namespace

double erlang_b(std::int64_t places, double load) {
  if (places < 0 || places >= 1'000'000'000)
    throw InputError("places", fmt::format("must be an integer in [0, 10^9) (got {})", places));
  need_finite_at_least("load", load, 0.0);
  // proofs/Erlang.v: erlang_b_recurrence (each step stays in [0, 1]: erlang_b_bounds)
  double b = 1.0;
  for (std::int64_t k = 1; k <= places; ++k) b = load * b / (static_cast<double>(k) + load * b);
  return b;
}

double retries_in_flight_load(double rate, double failure_prob, double mean_sleep, double mean_attempt) {
  need_finite_at_least("rate", rate, 0.0);
  if (!(failure_prob >= 0.0 && failure_prob <= 1.0))
    throw InputError("failure_prob", fmt::format("must be in [0, 1] (got {})", failure_prob));
  need_finite_at_least("mean_sleep", mean_sleep, 0.0);
  if (!(mean_attempt > 0.0) || !std::isfinite(mean_attempt))
    throw InputError("mean_attempt", fmt::format("must be a finite number > 0 (got {})", mean_attempt));
  return rate * failure_prob * (mean_sleep + mean_attempt);
}

}  // namespace retrylab
