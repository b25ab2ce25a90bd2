#include "validation/trace/sleep_rules.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "analytic/strategy.hpp"

namespace retrylab::validation::trace {

namespace {

double width(const Backoff& b, std::int64_t k) {
  return window_width(b, static_cast<int>(std::min<std::int64_t>(k, 100000)));
}

std::string strategy_support(const Backoff& b) {
  switch (b.strategy) {
    case Strategy::none: return "sleep = 0";
    case Strategy::nojitter: return "sleep = w_k = min(c, b*2^(k-1))";
    case Strategy::full: return "sleep in [0, w_k]";
    case Strategy::equal: return "sleep in [w_k/2, w_k]";
    case Strategy::decorrelated: return "sleep in [b, min(c, 3*previous sleep)]";
    case Strategy::window: return "sleep in [0, W]";
    case Strategy::memoryless:
      return "sleep in [0, inf) (exponential, mean w_k/2: support only, no KS: censoring is unbounded)";
  }
  return "";
}

}  // namespace

std::pair<double, double> SleepRules::bounds(const Backoff& b, std::int64_t k, double prev) {
  if (std::isnan(prev)) prev = b.base;
  switch (b.strategy) {
    case Strategy::none: return {0.0, 0.0};
    case Strategy::nojitter: return {width(b, k), width(b, k)};
    case Strategy::full: return {0.0, width(b, k)};
    case Strategy::equal: return {width(b, k) / 2, width(b, k)};
    case Strategy::decorrelated: return {b.base, std::min(b.cap, 3.0 * prev)};
    case Strategy::window: return {0.0, b.window};
    case Strategy::memoryless: return {0.0, inf};
  }
  return {0.0, inf};
}

double SleepRules::max_sleep_any(std::int64_t k, double prev) const {
  double hi = max_sleep(k, prev);
  if (sv_.strategies_mix) hi = std::max(hi, bounds(s_.client.mix_backoff, k, prev).second);
  return std::max(hi, sv_.retry_after_max);
}

bool SleepRules::allowed(const Backoff& b, std::int64_t k, double prev, double x) const {
  const double eps = 1e-12;
  const auto [lo, hi] = bounds(b, k, prev);
  if (x < lo - eps * std::max(1.0, lo)) return false;
  if (x <= hi + eps * std::max(1.0, hi)) return true;
  if (sv_.retry_after_max <= 0) return false;
  const double ra = sv_.retry_after_max;
  return sv_.retry_after_fixed ? std::fabs(x - ra) <= eps * std::max(1.0, ra) : x <= ra + eps * std::max(1.0, ra);
}

std::string SleepRules::support_text() const {
  std::string t = strategy_support(s_.backoff);
  if (sv_.strategies_mix)
    t += fmt::format("; or, for the mixed population ({}): {}", to_string(s_.client.mix_backoff.strategy),
                     strategy_support(s_.client.mix_backoff));
  if (sv_.retry_after_max > 0)
    t += sv_.retry_after_fixed ? fmt::format("; Retry-After can only lengthen it: or exactly {}", sv_.retry_after_max)
                               : fmt::format("; Retry-After can only lengthen it: or up to {}", sv_.retry_after_max);
  return t;
}

}  // namespace retrylab::validation::trace
