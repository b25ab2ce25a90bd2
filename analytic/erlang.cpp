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

namespace {

// The M/M/c domain: servers in [1, 10^9), load in [0, servers) finite.
void need_mmc(std::int64_t servers, double load) {
  if (servers < 1 || servers >= 1'000'000'000)
    throw InputError("servers", fmt::format("must be an integer in [1, 10^9) (got {})", servers));
  if (!(load >= 0.0 && load < static_cast<double>(servers)))
    throw InputError("load", fmt::format("must be a number in [0, servers) = [0, {}) (got {})", servers, load));
}

}  // namespace

double erlang_c(std::int64_t servers, double load) {
  need_mmc(servers, load);
  const double c = static_cast<double>(servers);
  const double b = erlang_b(servers, load);
  // proofs/ErlangC.v: erlang_c_from_b. c − a > 0 and a·B >= 0, so the denominator is > 0 and no
  // difference of nearly equal terms is formed; C <= 1 since B <= 1.
  return c * b / ((c - load) + load * b);
}

double mmc_mean_wait(std::int64_t servers, double load) {
  const double wait_probability = erlang_c(servers, load);
  return wait_probability / (static_cast<double>(servers) - load);  // proofs/ErlangC.v: mmc_mean_wait_sum
}

double mmc_wait_survival(std::int64_t servers, double load, double t) {
  need_mmc(servers, load);
  need_finite_at_least("t", t, 0.0);
  // proofs/ErlangC.v: mmc_wait_survival_mixture
  return erlang_c(servers, load) * std::exp(-(static_cast<double>(servers) - load) * t);
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
