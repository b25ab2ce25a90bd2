#include "analytic/classic.hpp"

#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"

namespace retrylab {

namespace {
constexpr std::int64_t max_clients = 1'000'000'000'000'000;  // 10^15: N and N(N+1)/2 stay exact enough in double
}

bool has_classic_closed_form(Model model, Strategy strategy) noexcept {
  return (model == Model::free || model == Model::collision) &&
         (strategy == Strategy::none || strategy == Strategy::nojitter);
}

void check_classic(const ClassicTest& t) {
  if (t.clients < 1 || t.clients > max_clients)
    throw InputError("clients", fmt::format("must be an integer in [1, {}] (got {})", max_clients, t.clients));
  if (t.model != Model::free && t.model != Model::collision)
    throw InputError("model", fmt::format("must be free or collision for the classic closed form (got {}); "
                                          "simulate the others",
                                          to_string(t.model)));
  if (t.backoff.strategy != Strategy::none && t.backoff.strategy != Strategy::nojitter)
    throw InputError("strategy", fmt::format("must be none or nojitter for the classic closed form (got {}); "
                                             "jitter has no closed form, simulate it",
                                             to_string(t.backoff.strategy)));
  check_backoff(t.backoff);
  if (t.backoff.multiplier != 2.0)
    throw InputError("multiplier",
                     fmt::format("must be 2 for the classic closed form (proved for doubling windows; got {})",
                                 t.backoff.multiplier));
}

ClassicResult classic(const ClassicTest& t) {
  check_classic(t);
  const double n = static_cast<double>(t.clients);
  if (t.model == Model::collision) {
    if (t.clients == 1) return {true, 1.0, 1.0};
    return {false, std::nullopt, std::nullopt};
  }
  const double attempts = 0.5 * (n + 1.0);
  if (t.backoff.strategy == Strategy::none) return {true, attempts, n};
  // Σ_(k=1..N−1) min(c, b·2^(k−1)): j uncapped terms sum to b·(2^j − 1), the rest are c each.
  const double b = t.backoff.base, c = t.backoff.cap;
  std::int64_t j = 0;
  while (j < t.clients - 1 && std::ldexp(b, static_cast<int>(j)) < c) ++j;  // j <= 1100 for any finite c
  const double sleeps = b * (std::ldexp(1.0, static_cast<int>(j)) - 1.0) +
                        (j < t.clients - 1 ? static_cast<double>(t.clients - 1 - j) * c : 0.0);
  if (!std::isfinite(n + sleeps))
    throw InputError("clients",
                     fmt::format("must be smaller with cap {}: the makespan exceeds the double range (got {})",
                                 format_cap(c), t.clients));
  return {true, attempts, n + sleeps};
}

}  // namespace retrylab
