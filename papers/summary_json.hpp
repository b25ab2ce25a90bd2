#pragma once
// How a summary over runs is stored in results.jsonl (papers/store.hpp): a mean as
// {"mean", "sd", "n", "ci95": [lo, hi]}, a proportion as {"count", "fraction", "n", "ci95"}; a
// non-finite number (an undefined metric) as null. Shared by the engine sweeps (study.cpp) and the
// extension kinds (kinds.cpp), so both write the same shape that papers/report/ reads.
#include <cmath>
#include <nlohmann/json.hpp>

#include "analytic/stats.hpp"

namespace retrylab::papers {

inline nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

inline nlohmann::json to_json(const MeanSummary& s) {
  return {{"mean", number(s.mean)}, {"sd", number(s.sd)}, {"n", s.n}, {"ci95", {number(s.ci95.lo), number(s.ci95.hi)}}};
}

inline nlohmann::json to_json(const ProportionSummary& s) {
  return {{"count", s.count},
          {"fraction", number(s.fraction)},
          {"n", s.n},
          {"ci95", {number(s.ci95.lo), number(s.ci95.hi)}}};
}

}  // namespace retrylab::papers
