#pragma once
// The shared machinery of the catalogue's case constructors (internal to validation/): number and
// backoff formatting, running a scenario's runs, and the mean rule every statistical mean case
// applies: |mean − expected| <= t_(1−α/2, n−1)·sd/√n + floor (validation/README.md).
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "analytic/strategy.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"
#include "validation/case.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation::detail {

std::string g(double x);  // 4 significant digits
std::string backoff_text(const Backoff& b);

// `runs` runs of s from the suite seed on the case's threads.
std::vector<montecarlo::RunResult> run(const montecarlo::Scenario& s, std::int64_t runs, const CaseContext& ctx);

double half_width(const MeanSummary& m);
double relative(double observed, double expected);  // NaN when expected = 0

// The mean rule over one value per independent run; a NaN value fails the case (never dropped).
void apply_mean_rule(CaseResult& r, std::span<const double> values, double expected, double floor,
                     const std::string& floor_why, double alpha);

ValidationCase make_case(std::string name, std::string parameters, CaseKind kind, double cost,
                         std::function<CaseResult(const CaseContext&)> body);

}  // namespace retrylab::validation::detail
