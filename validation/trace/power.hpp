#pragma once
// The power of a trace's statistical checks: the smallest deviation each detects with probability
// at least `power` (0.9) at its sample size and false-alarm rate alpha (docs/traces.md, "Power").
//   ks     (sleep laws, arrival gaps): a law whose CDF is off by Delta anywhere (sup distance) is
//          detected when Delta >= c_alpha(n) + sqrt(ln(2/(1 - power))/(2n)): the sample's sup
//          distance to the true law exceeds the second term with probability at most 1 - power
//          (Dvoretzky–Kiefer–Wolfowitz with Massart's constant, Ann. Probab. 18(3), 1990). Rigorous.
//   mean   (goodput, time in system): a run mean off by (t_{alpha/2} + t_{1-power})·sd/√n, as a
//          fraction of the closed form (Student-t, df = runs - 1; normal run means assumed).
//   count  (steady arrivals): a rate off by that fraction, from the exact Poisson tails.
//   correlation (sleep independence): a correlation rho between a client's successive transformed
//          sleeps, detected when rho >= (z_{alpha/2} + z_{1-power})/sqrt(n) (normal approximation).
// Also the p-value of the count test. Values are NaN when the check has no such measure.
#include <cstdint>
#include <string>

namespace retrylab::validation::trace {

struct PowerBasis {
  enum class Kind { none, ks, mean, count, correlation };
  Kind kind = Kind::none;
  std::int64_t n = 0;  // ks: sample size; mean: runs; correlation: pairs
  double se = 0;       // mean: sd/√n of the run means
  double expect = 0;   // mean: the closed form; count: the expected count (lambda·exposure)
};

inline constexpr double detection_power = 0.9;

// The smallest deviation detected with probability >= power, in the basis's measure (above).
double detectable(const PowerBasis& b, double alpha, double power = detection_power);
// What a check's power says, e.g. "a law whose CDF is off by >= 0.052 (sup distance) is caught with
// probability >= 0.9 (n = 1000, alpha = 0.0001)".
std::string power_text(const PowerBasis& b, double detectable, double alpha, double power = detection_power);
// Two-sided exact p-value of a Poisson count: min(1, 2·min(P(X <= count), P(X >= count))), X ~ Poisson(mu).
double poisson_two_sided_p(std::int64_t count, double mu);

}  // namespace retrylab::validation::trace
