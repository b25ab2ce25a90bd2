#pragma once
// A metric of a run of a build that holds a test's own component (a recorder, a toy): such a build
// is its own universe (montecarlo/builds.hpp, universe_t), so its metric slots are its own, not the
// standard registry's that RunResult::metric reads. build_metric<P>(r, key) finds key among the
// metrics of P's components, in P's slots; NaN when none has it.
#include <cstddef>
#include <iterator>
#include <limits>
#include <string_view>

#include "montecarlo/builds.hpp"
#include "montecarlo/result.hpp"

namespace retrylab::montecarlo::testing {

template <class P>
struct BuildMetric;

template <class... Cs>
struct BuildMetric<detail::Parts<Cs...>> {
  static double of(const RunResult& r, std::string_view key) {
    using table = detail::metric_table<detail::universe_t<detail::Parts<Cs...>>>;
    double out = std::numeric_limits<double>::quiet_NaN();
    bool found = false;
    const auto look = [&]<class C>() {
      for (std::size_t k = 0; k < std::size(C::metrics) && !found; ++k)
        if (C::metrics[k].key == key) {
          out = r.extra[table::template offset<C> + k];
          found = true;
        }
    };
    (look.template operator()<Cs>(), ...);
    return out;
  }
};

template <class P>
double build_metric(const RunResult& r, std::string_view key) {
  return BuildMetric<P>::of(r, key);
}

}  // namespace retrylab::montecarlo::testing
