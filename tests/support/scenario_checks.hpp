// Helpers the component tests share: which field a scenario's check refuses, and bit-for-bit equality
// of two doubles (same seed, same bytes).
#pragma once

#include <cstring>
#include <string>

#include "analytic/error.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::test {

// The field named by check_scenario's refusal of s, or "(accepted)".
inline std::string refused_field(const montecarlo::Scenario& s) {
  try {
    montecarlo::check_scenario(s);
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

// a and b have the same bits (0.0 and -0.0 differ; a NaN equals itself).
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace retrylab::test
