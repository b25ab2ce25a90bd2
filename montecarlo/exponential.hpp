#pragma once
// Standard exponential draws from a Stream by the ziggurat method with 256 layers (Marsaglia &
// Tsang 2000, "The Ziggurat Method for Generating Random Variables", J. Stat. Soft. 5(8), their
// exponential constants; the floating-point form of Doornik 2005, as in normal.hpp):
// R = 7.697117470131487, layer area V = 3.949659822581572e-3. One 64-bit draw per try: its low 8
// bits pick the layer, its top 52 bits the position (uniform_open); about 97.8% of tries are
// accepted in a layer's rectangle. The rest go to the wedge test, which draws one more uniform, or
// to the tail beyond R, which is R + Exp(1) exactly (the exponential forgets) drawn as R − ln U.
// Exact in distribution, and without the logarithm that −ln U costs on every draw: Poisson
// arrivals use it, one draw per arriving client.
#include <array>
#include <cmath>
#include <cstdint>

#include "montecarlo/random.hpp"
#include "montecarlo/ziggurat.hpp"

namespace retrylab::montecarlo {

namespace detail {

// The layers of f(x) = e^−x, built once (ziggurat.hpp).
struct ExpZiggurat : ZigguratLayers<256> {
  static constexpr double r = 7.697117470131487;
  static constexpr double v = 3.949659822581572e-3;

  ExpZiggurat() noexcept
      : ZigguratLayers(
            r, v, [](double at) { return std::exp(-at); }, [](double level) { return -std::log(level); }) {}
};

inline const ExpZiggurat exp_ziggurat_table{};  // built at load time: no guard on the hot path

// Tail or wedge of a rejected first try, then whole tries until one is accepted. In layer i >= 1 the
// point (x, y) with y uniform between f(x_i) and f(x_(i+1)) is under f when y < f(x); both sides are
// divided by f(x) = e^(−x).
[[gnu::noinline]] inline double exp_ziggurat_rare(const ExpZiggurat& z, int i, double u, Stream& s) noexcept {
  for (;;) {
    if (i == 0) return ExpZiggurat::r - std::log(s.uniform());
    const double x = u * z.x[i];
    const double f0 = std::exp(x - z.x[i]);      // f(x_i) / f(x) <= 1
    const double f1 = std::exp(x - z.x[i + 1]);  // f(x_(i+1)) / f(x) >= 1
    if (f0 + s.uniform() * (f1 - f0) < 1.0) return x;
    const std::uint64_t bits = s.next_u64();
    i = static_cast<int>(bits & (ExpZiggurat::layers - 1));
    u = uniform_open(bits);
    if (u < z.ratio[i]) return u * z.x[i];
  }
}

}  // namespace detail

inline double standard_exponential_ziggurat(Stream& s) noexcept {
  const detail::ExpZiggurat& z = detail::exp_ziggurat_table;
  const std::uint64_t bits = s.next_u64();
  const auto i = static_cast<int>(bits & (detail::ExpZiggurat::layers - 1));
  const double u = uniform_open(bits);  // (0, 1)
  if (u < z.ratio[i]) [[likely]]
    return u * z.x[i];
  return detail::exp_ziggurat_rare(z, i, u, s);
}

}  // namespace retrylab::montecarlo
