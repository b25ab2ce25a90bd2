#pragma once
// A metric of a run of a build that holds a test's own component (a recorder, a toy): such a build
// is its own universe (montecarlo/builds.hpp, universe_t), so its metric slots are its own, not the
// standard registry's that RunResult::metric reads. build_metric<P>(r, key) reads key in P's slots
// (metric_table's defs are in slot order); NaN when no component of P has it.
#include <cstddef>
#include <limits>
#include <string_view>

#include "montecarlo/builds.hpp"
#include "montecarlo/result.hpp"

namespace retrylab::montecarlo::testing {

template <class P>
double build_metric(const RunResult& r, std::string_view key) {
  const auto& defs = detail::metric_table<detail::universe_t<P>>::defs;
  for (std::size_t i = 0; i < defs.size(); ++i)
    if (defs[i].key == key) return r.extra[i];
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace retrylab::montecarlo::testing
