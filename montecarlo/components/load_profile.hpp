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
  // Its parameter: a text field (montecarlo/fields.hpp), parsed and validated by LoadProfile::parse
  // and check (a sine without its mean waits for rate's: the front ends complete it). Its rank puts
  // it last of the fields it was printed after before it was a row, so no canonical string moved.
  static constexpr std::array fields{Field{
      .name = "load_profile",
      .group = FieldGroup::traffic,
      .rank = 1190,
      .kind = FieldKind::text,
      .meaning = "a load that changes over time: steady arrivals at rate λ(t), which replaces rate (needs horizon)",
      .access = no_number,
      .default_note = "none",
      .text = {.is_set = [](const Scenario& s) { return s.traffic.load_profile.set(); },
               .get =
                   [](const Scenario& s) {
                     return s.traffic.load_profile.set() ? s.traffic.load_profile.text() : std::string();
                   },
               .set =
                   [](Scenario& s, std::string_view text) {
                     LoadProfile p = LoadProfile::parse(text);
                     if (!p.needs_mean()) p.check();
                     s.traffic.load_profile = std::move(p);
                   },
               .scale = [](Scenario& s, double d) { s.traffic.load_profile = s.traffic.load_profile.scaled(d); },
               .forms = "t:rate,t:rate,... (piecewise-linear), step:t:rate[,t:rate...], "
                        "sine:period:amplitude[:mean] (mean: rate), or a CSV file of time,rate rows"}}};
  static constexpr std::array streams{StreamId::load};  // its draws (montecarlo/random.hpp)
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
