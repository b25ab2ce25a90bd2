#include "analytic/rows.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

namespace {
void check_rate_rows(double rate, std::int64_t rows) {
  if (!(rate >= 0.0) || !std::isfinite(rate))
    throw InputError("rate", fmt::format("must be a finite number >= 0 (got {})", rate));
  if (rows < 1) throw InputError("rows", fmt::format("must be >= 1 (got {})", rows));
}
}  // namespace

void check_aloha_rows(const AlohaRows& m) { check_rate_rows(m.rate, m.rows); }
void check_free_rows(const FreeRows& m) { check_rate_rows(m.rate, m.rows); }

void check_fifo(const FifoQueue& m) {
  if (!(m.rate >= 0.0) || !(m.rate < 1.0))
    throw InputError("rate", fmt::format("must be in [0, 1) for a stable queue (got {})", m.rate));
  if (!(m.second_moment >= 1.0) || !std::isfinite(m.second_moment))
    throw InputError("second_moment", fmt::format("must be a finite number >= 1 (got {})", m.second_moment));
}

double success_probability(const AlohaRows& m) {
  check_aloha_rows(m);
  return std::exp(-2.0 * m.rate / static_cast<double>(m.rows));
}

double goodput(const AlohaRows& m) { return m.rate * success_probability(m); }

double goodput(const FreeRows& m) {
  check_free_rows(m);
  return m.rate / (1.0 + m.rate / static_cast<double>(m.rows));
}

double mean_wait(const FifoQueue& m) {
  check_fifo(m);
  return m.rate * m.second_moment / (2.0 * (1.0 - m.rate));
}

double mean_time(const FifoQueue& m) { return 1.0 + mean_wait(m); }

void check_fifo_timeout(const FifoTimeout& m) {
  if (!(m.rate >= 0.0) || !(m.rate < 1.0))
    throw InputError("rate", fmt::format("must be in [0, 1) for a stable queue (got {})", m.rate));
  if (!(m.timeout > 0.0) || !std::isfinite(m.timeout))
    throw InputError("timeout", fmt::format("must be a finite number > 0 (got {})", m.timeout));
}

double loss_probability(const FifoTimeout& m) {
  check_fifo_timeout(m);
  return std::exp(-(1.0 - m.rate) * m.timeout);
}

double service_second_moment_exponential() noexcept { return 2.0; }

double service_second_moment_lognormal(double cv) {
  if (!(cv >= 0.0) || !std::isfinite(cv))
    throw InputError("cv", fmt::format("must be a finite number >= 0 (got {})", cv));
  return 1.0 + cv * cv;
}

}  // namespace retrylab
