#pragma once
// Standard normal draws from a Stream.
//  - standard_normal: Box–Muller, the cosine half, z = sqrt(−2 ln u1)·cos(2π u2) with u1, u2 two
//    uniforms in (0, 1) drawn in that order. The one Box–Muller every simulator uses (lognormal
//    service times), so one stream gives the same z in each.
//  - standard_normal_ziggurat: the ziggurat method with 128 layers (Marsaglia & Tsang 2000, "The
//    Ziggurat Method for Generating Random Variables", J. Stat. Soft. 5(8); the floating-point form
//    of Doornik 2005, "An Improved Ziggurat Method to Generate Normal Random Samples"):
//    R = 3.442619855899, layer area V = 9.91256303526217e-3. One 64-bit draw per try: its low 7 bits
//    pick the layer, its top 52 bits the position (uniform_open); about 98.8% of tries are accepted
//    in a layer's rectangle, the rest go to the wedge or tail tests, which draw more. Exact in
//    distribution, and about a third of Box–Muller's cost: the network legs use it (legs.hpp), four
//    normals per attempt of Brooker's test.
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "montecarlo/random.hpp"
#include "montecarlo/ziggurat.hpp"

namespace retrylab::montecarlo {

inline double standard_normal(Stream& s) noexcept {
  const double u1 = s.uniform(), u2 = s.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

namespace detail {

// The layers of f(x) = e^(−x²/2), built once (ziggurat.hpp).
struct Ziggurat : ZigguratLayers<128> {
  static constexpr double r = 3.442619855899;
  static constexpr double v = 9.91256303526217e-3;

  Ziggurat() noexcept
      : ZigguratLayers(
            r, v, [](double at) { return std::exp(-0.5 * at * at); },
            [](double level) { return std::sqrt(-2.0 * std::log(level)); }) {}
};

inline const Ziggurat ziggurat_table{};  // built at load time: no guard on the hot path

// Wedge or tail of a rejected first try, then whole tries until one is accepted. Beyond R
// (Marsaglia 1964): x = −ln(U1)/R, y = −ln(U2), accepted when 2y >= x².
[[gnu::noinline]] inline double ziggurat_rare(const Ziggurat& z, int i, double u, Stream& s) noexcept {
  for (;;) {
    if (i == 0) {
      double x, y;
      do {
        x = -std::log(s.uniform()) / Ziggurat::r;
        y = -std::log(s.uniform());
      } while (2.0 * y < x * x);
      return u < 0.0 ? -(Ziggurat::r + x) : Ziggurat::r + x;
    }
    const double x = u * z.x[i];
    const double f0 = std::exp(-0.5 * (z.x[i] * z.x[i] - x * x));          // f(x_i) / f(x)
    const double f1 = std::exp(-0.5 * (z.x[i + 1] * z.x[i + 1] - x * x));  // f(x_(i+1)) / f(x)
    if (f1 + s.uniform() * (f0 - f1) < 1.0) return x;
    const std::uint64_t bits = s.next_u64();
    i = static_cast<int>(bits & (Ziggurat::layers - 1));
    u = 2.0 * uniform_open(bits) - 1.0;
    if (std::fabs(u) < z.ratio[i]) return u * z.x[i];
  }
}

}  // namespace detail

inline double standard_normal_ziggurat(Stream& s) noexcept {
  const detail::Ziggurat& z = detail::ziggurat_table;
  const std::uint64_t bits = s.next_u64();
  const auto i = static_cast<int>(bits & (detail::Ziggurat::layers - 1));
  const double u = 2.0 * uniform_open(bits) - 1.0;  // (−1, 1), never 0
  if (std::fabs(u) < z.ratio[i]) [[likely]]
    return u * z.x[i];
  return detail::ziggurat_rare(z, i, u, s);
}

}  // namespace retrylab::montecarlo
