#pragma once
// Fits of a measured mean y(N) against the number of clients N, for statements about how something
// grows with N (docs/published.md): the model is the one the statement's words state.
//   power_exponent: ln y = a + b ln N, b with its 95% interval ("grows as N^b"; over two neighbouring
//     N it is the local exponent);
//   quadratic_share: y = a + bN + cN², and the share of the quadratic term in the fitted y at the
//     largest N, c·N²/y, with its 95% interval ("the N² nature": how much of y the N² term is);
//   local_exponents: the exponent between each pair of neighbouring N, to show how it moves with N;
//   exponent_trend: the slope of those local exponents against log2 N (the change per doubling of N),
//     with its 95% interval: a power law N^p has a flat local exponent (trend 0), a + bN + cN² one
//     that rises toward 2 (a + bN toward 1);
//   affine_r2: the (weighted) R² of y = a + bN, how much of y's variation a straight line explains
//     ("grows linearly"); the quadratic share then says the sign and size of the curvature.
// Which fits separate which laws: the quadratic share cannot tell N^1.63 from N² over a range of N
// this wide (both are mostly "N² term" at the largest N); the local exponent and its trend can (flat
// at 1.63 against rising toward 2); R² cannot tell a straight line from a gentle curve, the share can.
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
Estimate exponent_trend(std::vector<FitPoint> points);
double affine_r2(std::vector<FitPoint> points);  // NaN with fewer than 3 points

}  // namespace retrylab::papers::published
