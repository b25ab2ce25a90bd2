#include "analytic/amplification.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

void check_amplification(const RetryAmplification& m) {
  if (m.layers < 1 || m.layers > 1000)
    throw InputError("layers", fmt::format("must be an integer in [1, 1000] (got {})", m.layers));
  if (m.attempts < 1 || m.attempts > 10000)
    throw InputError("attempts", fmt::format("must be an integer in [1, 10000] (got {})", m.attempts));
  if (!(m.failure >= 0.0 && m.failure <= 1.0))
    throw InputError("failure", fmt::format("must be a probability in [0, 1] (got {})", m.failure));
  if (m.layers * std::log10(static_cast<double>(m.attempts)) > 300.0)
    throw InputError("layers", fmt::format("must keep attempts^layers <= 1e300 (got {}^{})", m.attempts, m.layers));
}

double expected_bottom_calls(const RetryAmplification& m) {
  check_amplification(m);
  double calls = 1.0;
  double q = m.failure;  // q_l = p^(a^l)
  for (int l = 0; l < m.layers; ++l) {
    // Σ_(i<a) q^i by Horner: exact at q = 1 (gives a) and stable as q → 1, unlike (1 − q^a)/(1 − q).
    double sum = 1.0;
    for (int i = 1; i < m.attempts; ++i) sum = 1.0 + q * sum;
    calls *= sum;
    q = std::pow(q, m.attempts);
  }
  return calls;
}

double amplification_bound(const RetryAmplification& m) {
  check_amplification(m);
  return std::pow(static_cast<double>(m.attempts), m.layers);
}

double top_failure_probability(const RetryAmplification& m) {
  check_amplification(m);
  double q = m.failure;
  for (int l = 0; l < m.layers; ++l) q = std::pow(q, m.attempts);
  return q;
}

}  // namespace retrylab
