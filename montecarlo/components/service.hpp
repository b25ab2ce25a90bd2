#pragma once
// An attempt's service requirement (docs/models.md §1; mean 1 = one attempt-duration): deterministic
// 1, exponential(1), lognormal with mean 1 and coefficient of variation service_cv (σ² = ln(1+cv²),
// μ = −σ²/2), or a network round trip (two legs of the delay distribution, montecarlo/legs.hpp).
// Drawn from the service stream when service starts. Faults (planted build): lognormal_sigma_is_cv
// (σ = cv; the mean is then not 1), exponential_service_rate (mean 1/2).
#include <fmt/format.h>
#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/faults.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/normal.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Service : public Component {
 public:
  static constexpr bool decides_service = true;
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "service",
            .group = FieldGroup::resource,
            .rank = 130,
            .kind = FieldKind::choice,
            .choices = service_names,
            .meaning =
                "service requirement of an attempt (mean 1), or round-trip: two network legs of the delay distribution",
            .access = member<&Scenario::resource, &Resource::service>()},
      Field{.name = "service_cv",
            .group = FieldGroup::resource,
            .rank = 140,
            .kind = FieldKind::number,
            .hi = max_service_cv,
            .meaning = "coefficient of variation of lognormal service (> 0 with it, else 0)",
            .access = member<&Scenario::resource, &Resource::service_cv>()}};
  static constexpr std::array streams{StreamId::service};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept { return s.resource.service != ServiceDist::deterministic; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const Resource& o = s.resource;
    if (o.service == ServiceDist::lognormal) {
      if (!(o.service_cv > 0.0))
        throw InputError("service_cv", fmt::format("must be in (0, {}] for lognormal service (got {})", max_service_cv,
                                                   o.service_cv));
    } else if (o.service_cv != 0.0) {
      throw InputError("service_cv",
                       fmt::format("only applies to lognormal service: must be 0 with {} service (got {})",
                                   to_string(o.service), o.service_cv));
    }
  }
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Service(const Scenario& s, const Faults& faults) : on_(active(s)), o_(&s.resource) {
    if (o_->service == ServiceDist::lognormal) {
      sigma_ = std::sqrt(std::log1p(o_->service_cv * o_->service_cv));
      if (faults(Fault::lognormal_sigma_is_cv)) sigma_ = o_->service_cv;  // planted fault: σ taken to be the CV
      mu_ = -0.5 * sigma_ * sigma_;                                       // E[S] = exp(μ + σ²/2) = 1
    }
  }

  template <class E>
  [[gnu::always_inline]] double service_time(E& e) {
    if (!on_) return 1.0;
    Stream& rng = e.template stream<StreamId::service>();
    switch (o_->service) {
      case ServiceDist::deterministic: return 1.0;
      case ServiceDist::exponential:
        if (e.faults()(Fault::exponential_service_rate)) return rng.exponential() / 2.0;  // planted fault: mean 1/2
        return rng.exponential();
      case ServiceDist::lognormal: return std::exp(mu_ + sigma_ * standard_normal(rng));
      case ServiceDist::round_trip: return draw_round_trip(*o_, rng);
    }
    return 1.0;
  }

 private:
  bool on_;
  const Resource* o_;
  double mu_ = 0.0, sigma_ = 0.0;
};

}  // namespace retrylab::montecarlo::detail
