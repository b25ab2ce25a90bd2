#include <fmt/format.h>
#include <charconv>
#include <cmath>

#include "analytic/error.hpp"
#include "analytic/model.hpp"
#include "analytic/strategy.hpp"

namespace retrylab {

namespace {
constexpr std::string_view strategy_names[] = {"none",         "nojitter", "full",      "equal",
                                               "decorrelated", "window",   "memoryless"};
constexpr std::string_view model_names[] = {"collision", "free", "shared", "ps", "none"};
}  // namespace

std::string_view to_string(Strategy s) noexcept { return strategy_names[static_cast<int>(s)]; }
std::string_view to_string(Model m) noexcept { return model_names[static_cast<int>(m)]; }

std::optional<Strategy> parse_strategy(std::string_view name) noexcept {
  for (Strategy s : all_strategies)
    if (to_string(s) == name) return s;
  return std::nullopt;
}

std::optional<Model> parse_model(std::string_view name) noexcept {
  for (Model m : all_models)
    if (to_string(m) == name) return m;
  return std::nullopt;
}

void check_backoff(const Backoff& b) {
  if (!(b.base > 0.0) || !std::isfinite(b.base))
    throw InputError("base", fmt::format("must be a finite number > 0 (got {})", b.base));
  if (std::isnan(b.cap) || !(b.cap > 0.0))
    throw InputError("cap", fmt::format("must be > 0 or \"none\" (got {})", b.cap));
  if (b.cap < b.base) throw InputError("cap", fmt::format("must be >= base (got cap={}, base={})", b.cap, b.base));
  if (!(b.multiplier >= 1.0 && b.multiplier <= max_multiplier))
    throw InputError("multiplier", fmt::format("must be in [1, {}] (got {})", max_multiplier, b.multiplier));
  if (b.strategy == Strategy::window && (!(b.window > 0.0) || !std::isfinite(b.window)))
    throw InputError("window", fmt::format("must be a finite number > 0 for the window strategy (got {})", b.window));
}

double window_width(const Backoff& b, int k) {
  if (k < 1) throw InputError("retry", fmt::format("must be >= 1 (got {})", k));
  // b·m^(k−1) overflows to +inf for huge k, and min() then returns the cap: exact either way.
  return std::min(b.cap, grown_width(b.base, b.multiplier, k - 1));
}

double grown_width(double base, double multiplier, int e) noexcept {
  if (multiplier == 2.0) return std::ldexp(base, e);
  double power = 1.0, square = multiplier;
  for (unsigned n = static_cast<unsigned>(e); n != 0; n >>= 1) {
    if (n & 1u) power *= square;
    square *= square;
  }
  return base * power;
}

std::string format_cap(double cap) {
  if (std::isinf(cap)) return "none";
  return fmt::format("{}", cap);
}

}  // namespace retrylab
