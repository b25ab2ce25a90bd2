#pragma once
// The statistics behind the validation gate's verdicts: Bonferroni split of a suite-wide
// false-alarm budget, the two-sided normal/Student-t multipliers of a mean check, and the
// one-sample Kolmogorov–Smirnov test.
// Invariants: every alpha is in (0, 1); a KS sample is non-empty; F is a CDF (non-decreasing in
// [0, 1]). For a CDF with atoms (decorrelated jitter at its cap) the continuous-F p-value is
// conservative: the false-alarm rate is at most the stated alpha (Conover 1999, §6.1).
#include <cstdint>
#include <functional>
#include <span>

namespace retrylab::validation {

// Per-check false-alarm probability when `total` is split evenly over `checks` checks
// (Bonferroni: P(any false alarm) <= sum of the per-check alphas = total).
double bonferroni_alpha(double total, std::int64_t checks);

// z with P(|Z| > z) = alpha for Z ~ N(0, 1).
double z_two_sided(double alpha);

// t with P(|T| > t) = alpha for T ~ Student-t with df degrees of freedom: the multiplier of sd/√n
// in a mean check over n = df + 1 independent runs (exact for normal run means, else by the CLT).
double t_two_sided(double alpha, double df);

// P(|T| > t) for T ~ Student-t with df degrees of freedom (df >= 1; an infinite t gives 0): the two-sided
// p-value of a mean check, 2·cdf(complement(students_t(df), |t|)) from Boost.Math.
double t_two_sided_p(double t, double df);

// Kolmogorov's limit distribution: P(sup|B(t)| > x) for a Brownian bridge B, by its two series
// (Smirnov 1948): the alternating one for x >= 1, the Jacobi-theta one below.
double kolmogorov_sf(double x);
double kolmogorov_cdf(double x);

// P(D_n < d) exactly for the one-sample two-sided statistic of n draws from a continuous F
// (Marsaglia, Tsang & Wang 2003, "Evaluating Kolmogorov's distribution", J. Stat. Soft. 8(18)),
// accurate to ~13 digits; cost O((n·d)^3 log n), so meant for n·d up to a few hundred.
double ks_exact_cdf(std::int64_t n, double d);

// p-value P(D_n >= d): exact (above) while n <= 1000 and n·d <= 50, else Kolmogorov's limit with
// Stephens' (1970) finite-n correction x = (√n + 0.12 + 0.11/√n)·d, good to a few per cent of p
// for n >= 100 (enough for a verdict at alpha, which is what it is used for).
double ks_pvalue(std::int64_t n, double d);

// The smallest d with ks_pvalue(n, d) <= alpha (the critical value, for printing a tolerance).
double ks_critical(std::int64_t n, double alpha);

// D_n = sup_x |F_n(x) − F(x)| of the sample against F. Sorts a copy of the sample. Works for any F
// (atoms included): both one-sided gaps are taken at every sample point, using F(x−) when
// `cdf_left` is given (else F(x) is assumed continuous).
struct KsResult {
  double statistic;
  double pvalue;
  std::int64_t n;
};
double ks_statistic(std::span<const double> sample, const std::function<double(double)>& cdf,
                    const std::function<double(double)>& cdf_left = {});
KsResult ks_test(std::span<const double> sample, const std::function<double(double)>& cdf,
                 const std::function<double(double)>& cdf_left = {});

}  // namespace retrylab::validation
