#pragma once
// The backoff strategies of docs/models.md §2 and their parameters: a small value type shared by the
// closed forms (analytic/sleep.hpp) and the engine (montecarlo/). After the k-th failure (k >= 1):
//   none: 0;  nojitter: w_k = min(c, b·m^(k−1));  full: U(0, w_k);  equal: w_k/2 + U(0, w_k/2);
//   decorrelated: s_k = min(c, U(b, 3·s_(k−1))), s_0 = b;  window: U(0, W) for every k;
//   memoryless: exponential with mean w_k/2 (full jitter's mean, a memoryless law: with exponential
//   service the classic test is a finite Markov chain, analytic/markov.hpp).
// The multiplier m is 2 unless set (m = 1: constant backoff b); it applies to the strategies with
// windows w_k (nojitter, full, equal, memoryless) only.
// Invariants (checked by check_backoff): 0 < b <= c <= +inf (c = +inf is "cap none");
// window strategy: 0 < W < inf; 1 <= m <= max_multiplier. Proof of the window reaching the cap: proofs/Sleep.v:
// window_reaches_cap.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace retrylab {

// New strategies are appended (the enum's order is the CLI's listing order).
enum class Strategy { none, nojitter, full, equal, decorrelated, window, memoryless };
inline constexpr Strategy all_strategies[] = {Strategy::none,      Strategy::nojitter,     Strategy::full,
                                              Strategy::equal,     Strategy::decorrelated, Strategy::window,
                                              Strategy::memoryless};

std::string_view to_string(Strategy s) noexcept;
std::optional<Strategy> parse_strategy(std::string_view name) noexcept;

inline constexpr double unbounded_cap = std::numeric_limits<double>::infinity();

struct Backoff {
  Strategy strategy = Strategy::full;
  double base = 1.0;
  double cap = 1000.0;      // +inf: no cap
  double window = 0.0;      // W, window strategy only
  double multiplier = 2.0;  // m: the window grows by m per failure (nojitter, full, equal)
};

inline constexpr double max_multiplier = 100.0;

// Throws InputError naming the field (base, cap, window) when the invariants above fail.
void check_backoff(const Backoff& b);

// w_k = min(c, b·m^(k−1)) for k >= 1: the window of the exponential strategies before retry k.
double window_width(const Backoff& b, int k);

// b·m^e for e >= 0: exactly std::ldexp(b, e) when m = 2; otherwise m^e by repeated squaring (a fixed
// sequence of IEEE multiplications, so the same bytes on every machine, unlike std::pow).
double grown_width(double base, double multiplier, int e) noexcept;

// "none" for an unbounded cap, else the shortest decimal that round-trips.
std::string format_cap(double cap);

}  // namespace retrylab
