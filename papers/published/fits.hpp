#pragma once
// Fits of a measured mean y(N) against the number of clients N, for statements about how something
// grows with N (docs/published.md): the model is the one the statement's words state.
//   power_exponent: ln y = a + b ln N, b with its 95% interval ("grows as N^b"; over two neighbouring
//     N it is the local exponent);
//   quadratic_share: y = a + bN + cN², and the share of the quadratic term in the fitted y at the
//     largest N, c·N²/y, with its 95% interval ("the N² nature": how much of y the N² term is);
//   local_exponents: the exponent between each pair of neighbouring N, to show how it moves with N.
// Fits are weighted least squares with weights 1/se² (each point's standard error); the covariance
// is scaled by chi²/dof when that exceeds 1, so a model that does not fit has a wider interval, not
// a falsely narrow one. A point with no spread (se = 0) makes every weight relative (1/y²).
#include <vector>

#include "papers/render.hpp"

namespace retrylab::papers::published {

struct FitPoint {
  double n;   // clients
  double y;   // mean
  double se;  // its standard error
};

Estimate power_exponent(std::vector<FitPoint> points);
Estimate quadratic_share(std::vector<FitPoint> points);

struct LocalExponent {
  double n_lo, n_hi;
  Estimate exponent;
};
std::vector<LocalExponent> local_exponents(std::vector<FitPoint> points);

}  // namespace retrylab::papers::published
