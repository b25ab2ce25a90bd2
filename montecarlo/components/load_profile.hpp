#pragma once
// A load that changes over time (docs/models.md §1): steady arrivals at rate λ(t), a load profile
// (montecarlo/profile.hpp), drawn as an exact non-homogeneous Poisson process by thinning (Lewis &
// Shedler 1979). The core draws candidate arrivals at λmax = the profile's maximum (candidate_rate,
// the same gap draw on the arrivals stream as a plain rate); this component keeps each candidate at
// t with probability λ(t)/λmax, a uniform from its own stream (load). A candidate at an instant
// where λ(t) = λmax is kept without a draw, so a constant profile keeps every candidate and its
// arrivals are those of the same plain rate, bit for bit, under the same key. Active only with a
// profile; the profile replaces rate (both given is an error).
#include <fmt/format.h>

#include <cstdint>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class LoadThinning : public Component {
 public:
  static bool active(const Scenario& s) noexcept { return s.traffic.load_profile.set(); }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static void check(const Scenario& s) {
    if (s.traffic.load_profile.set() && s.traffic.rate != 0.0)
      throw InputError("load_profile", fmt::format("replaces rate: give one of them (got rate={} and load_profile={})",
                                                   s.traffic.rate, s.traffic.load_profile.text()));
  }
  template <class Faults>
  LoadThinning(const Scenario& s, const Faults& /*faults*/)
      : profile_(&s.traffic.load_profile), max_(s.traffic.load_profile.max_rate()) {}

  // A steady arrival's candidate at t: kept with probability λ(t)/λmax.
  template <class E>
  [[gnu::always_inline]] bool accepts_arrival(E& e, double t) {
    if (!profile_->set()) return true;
    const double rate = profile_->rate(t);
    if (rate >= max_) return true;
    return uniform_open(e.template stream<StreamId::load>().next_u64()) * max_ < rate;
  }

 private:
  const LoadProfile* profile_;
  double max_;
};

}  // namespace retrylab::montecarlo::detail
