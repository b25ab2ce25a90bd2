#pragma once
// The layers of a ziggurat (Marsaglia & Tsang 2000) for a decreasing density f on [0, ∞), scaled so
// that f(0) = 1: `Layers` strips of equal area v, the base strip's right edge at r. x_0 = v / f(r) >
// r is the base strip's virtual width, x_1 = r, x_{i+1} = f⁻¹(v / x_i + f(x_i)), x_Layers = 0 (the
// peak); ratio_i = x_{i+1} / x_i, so a try in layer i at position u·x_i is inside the layer's
// rectangle when u < ratio_i. The exponential and normal samplers (exponential.hpp, normal.hpp)
// build their tables with it.
#include <array>

namespace retrylab::montecarlo::detail {

template <int Layers>
struct ZigguratLayers {
  static constexpr int layers = Layers;
  std::array<double, Layers + 1> x{};
  std::array<double, Layers> ratio{};

  template <class Density, class InverseDensity>
  ZigguratLayers(double r, double v, Density f, InverseDensity f_inverse) noexcept {
    x[0] = v / f(r);
    x[1] = r;
    for (int i = 2; i < Layers; ++i) x[i] = f_inverse(v / x[i - 1] + f(x[i - 1]));
    x[Layers] = 0.0;
    for (int i = 0; i < Layers; ++i) ratio[i] = x[i + 1] / x[i];
  }
};

}  // namespace retrylab::montecarlo::detail
