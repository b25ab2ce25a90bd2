#include "papers/intervals.hpp"

#include "analytic/stats.hpp"

#include <algorithm>
#include <array>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace retrylab::papers::intervals {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double t_quantile(std::int64_t n, double confidence) {
  const boost::math::students_t t(static_cast<double>(n - 1));
  return boost::math::quantile(t, 0.5 + confidence / 2.0);
}

double num(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : nan;
}

bool degenerate(double sd, std::int64_t n) { return n < 2 || !(sd > 0.0); }

}  // namespace

Quantity quantity_of(std::string_view m) noexcept {
  static constexpr std::array<std::string_view, 3> of_runs = {"collapsed", "drained", "recovered"};
  static constexpr std::array<std::string_view, 15> counts = {"unfinished",
                                                              "attempts",
                                                              "calls",
                                                              "reads",
                                                              "requests",
                                                              "retries",
                                                              "timeouts",
                                                              "timed_out",
                                                              "retries_blocked",
                                                              "breaker_opened",
                                                              "duplicate_effects",
                                                              "hidden_effects",
                                                              "rejected_by_breaker",
                                                              "rejected_by_capacity",
                                                              "rejected_by_throttle"};
  if (std::find(of_runs.begin(), of_runs.end(), m) != of_runs.end()) return Quantity::fraction_of_runs;
  if (std::find(counts.begin(), counts.end(), m) != counts.end()) return Quantity::count;
  if (m.size() >= 9 && m.substr(m.size() - 9) == "_fraction") return Quantity::fraction_mean;
  if (m.size() >= 5 && m.substr(m.size() - 5) == "_lead") return Quantity::signed_mean;
  return Quantity::positive;
}

Estimate wilson(std::int64_t k, std::int64_t n, double confidence) {
  if (n <= 0) return {nan, nan, nan};
  const Interval i = wilson_interval(k, n, confidence);
  return {static_cast<double>(k) / static_cast<double>(n), i.lo, i.hi};
}

Estimate clopper_pearson(std::int64_t k, std::int64_t n, double confidence) {
  if (n <= 0) return {nan, nan, nan};
  const Interval i = clopper_pearson_interval(k, n, confidence);
  return {static_cast<double>(k) / static_cast<double>(n), i.lo, i.hi};
}

Estimate poisson_mean(double total, std::int64_t n, double confidence) {
  if (n <= 0 || !(total >= 0.0)) return {nan, nan, nan};
  const double a = (1.0 - confidence) / 2.0, k = std::round(total), nn = static_cast<double>(n);
  const double lo = k == 0.0 ? 0.0 : boost::math::gamma_p_inv(k, a);
  const double hi = boost::math::gamma_p_inv(k + 1.0, 1.0 - a);
  return {total / nn, lo / nn, hi / nn};
}

Estimate log_scale(double mean, double sd, std::int64_t n, double confidence) {
  if (!std::isfinite(mean)) return {mean, nan, nan};
  if (degenerate(sd, n) || mean <= 0.0) return {mean, mean, mean};
  const double h = t_quantile(n, confidence) * sd / std::sqrt(static_cast<double>(n)) / mean;
  return {mean, mean * std::exp(-h), mean * std::exp(h)};
}

Estimate logit_scale(double mean, double sd, std::int64_t n, double confidence) {
  if (!std::isfinite(mean)) return {mean, nan, nan};
  if (degenerate(sd, n) || mean <= 0.0 || mean >= 1.0) return {mean, mean, mean};
  const double h = t_quantile(n, confidence) * sd / std::sqrt(static_cast<double>(n)) / (mean * (1.0 - mean));
  const double l = std::log(mean / (1.0 - mean));
  const auto inv = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  return {mean, inv(l - h), inv(l + h)};
}

Estimate for_metric(std::string_view metric, const nlohmann::json& e) {
  const auto n = e.contains("n") && e.at("n").is_number() ? e.at("n").get<std::int64_t>() : 0;
  switch (quantity_of(metric)) {
    case Quantity::fraction_of_runs:
      return e.contains("count") ? wilson(e.at("count").get<std::int64_t>(), n) : Estimate{nan, nan, nan};
    case Quantity::fraction_mean: return logit_scale(num(e, "mean"), num(e, "sd"), n);
    case Quantity::count: {
      const double m = num(e, "mean"), sd = num(e, "sd");
      if (!std::isfinite(m) || n <= 0) return {m, nan, nan};
      if (m > 0.0 && !(sd > 0.0)) return {m, m, m};  // every run the same count (e.g. capped): no spread
      Estimate p = poisson_mean(m * static_cast<double>(n), n);
      p.mean = m;                              // the recorded mean, not total / n re-rounded
      if (!(sd * sd > m)) return p;            // Poisson-like or underdispersed: the exact interval
      const Estimate l = log_scale(m, sd, n);  // overdispersed: the wider of the two
      return {m, std::min(p.lo, l.lo), std::max(p.hi, l.hi)};
    }
    case Quantity::signed_mean: {
      const double m = num(e, "mean"), sd = num(e, "sd");
      if (!std::isfinite(m)) return {m, nan, nan};
      if (degenerate(sd, n)) return {m, m, m};
      const double h = t_quantile(n, 0.95) * sd / std::sqrt(static_cast<double>(n));
      return {m, m - h, m + h};
    }
    case Quantity::positive: break;
  }
  return log_scale(num(e, "mean"), num(e, "sd"), n);
}

}  // namespace retrylab::papers::intervals
