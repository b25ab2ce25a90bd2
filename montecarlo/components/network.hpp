#pragma once
// Network delay (docs/models.md §1): an attempt reaches the server one leg after its send, and its
// outcome reaches the client one leg after the server is done (legs of the delay distribution,
// montecarlo/legs.hpp, drawn from the delay stream, each leg independently). Source of two event
// lanes: replies reaching clients and attempts reaching the server, each a (time, push order)
// queue (wake_queue.hpp).
#include <fmt/format.h>
#include <cstdint>
#include <limits>
#include <utility>

#include "analytic/error.hpp"
#include "montecarlo/component.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/wake_queue.hpp"

namespace retrylab::montecarlo::detail {

class Network : public Component {
 public:
  static constexpr bool delays_start = true;
  static constexpr unsigned lanes = lane_response | lane_reach;
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "delay",
            .group = FieldGroup::resource,
            .rank = 150,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "one-way network delay, each way",
            .access = member<&Scenario::resource, &Resource::delay>()},
      Field{.name = "delay_dist",
            .group = FieldGroup::resource,
            .rank = 160,
            .kind = FieldKind::choice,
            .choices = delay_names,
            .meaning = "network delay: fixed, exponential with mean delay, or normal: the absolute value of "
                       "Normal(delay, delay_sd)",
            .access = member<&Scenario::resource, &Resource::delay_dist>()},
      Field{.name = "delay_sd",
            .group = FieldGroup::resource,
            .rank = 540,
            .kind = FieldKind::number,
            .unit = FieldUnit::time,
            .hi = inf,
            .hi_open = true,
            .meaning = "sd of each network leg with delay_dist normal (0 = every leg exactly delay)",
            .access = member<&Scenario::resource, &Resource::delay_sd>()}};
  static constexpr std::array streams{StreamId::delay};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept { return s.resource.delay > 0.0; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  // The rules between its parameters and the rest of the scenario (InputError naming the field).
  static void check(const Scenario& s) {
    const Resource& o = s.resource;
    if (o.delay == 0.0 && o.delay_dist != DelayDist::fixed)
      throw InputError("delay_dist",
                       fmt::format("needs delay > 0 (got delay_dist={} with delay=0)", to_string(o.delay_dist)));
    // The network owns the legs: a round trip is two of them.
    if (o.service == ServiceDist::round_trip && !(o.delay > 0.0))
      throw InputError("service", "round-trip is two network legs: it needs delay > 0 (got delay=0)");
    if (o.delay_sd != 0.0 && o.delay_dist != DelayDist::normal)
      throw InputError("delay_sd", fmt::format("only applies to delay_dist normal: must be 0 with {} delay (got {})",
                                               to_string(o.delay_dist), o.delay_sd));
  }
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Network(const Scenario& s, const Faults& /*faults*/) : on_(active(s)), o_(&s.resource) {}

  // The queues a worker lends to each run (component.hpp).
  struct Scratch {
    MonotoneWakeQueue reaches, responds;
  };
  void lend(Scratch& scratch) noexcept {
    std::swap(reaches_, scratch.reaches);
    std::swap(responds_, scratch.responds);
  }
  void reset() noexcept {
    reaches_.clear();
    responds_.clear();
  }
  bool on() const noexcept { return on_; }

  template <class E>
  double draw_delay(E& e) noexcept {
    return draw_leg(*o_, e.template stream<StreamId::delay>());
  }
  template <class E>
  [[gnu::always_inline]] bool carries(E& e, std::int32_t j) {
    if (!on_) return false;
    reaches_.push(e.now() + draw_delay(e), j);
    return true;
  }
  template <class E>
  [[gnu::always_inline]] bool carries_back(E& e, std::int32_t j) {
    if (!on_) return false;
    responds_.push(e.now() + draw_delay(e), j);
    return true;
  }

  template <unsigned L, class E>
  [[gnu::always_inline]] double next_time(E& /*e*/) noexcept {
    if (!on_) return std::numeric_limits<double>::infinity();
    return L == lane_response ? responds_.top_time() : reaches_.top_time();
  }
  template <unsigned L, class E>
  void fire(E& e) {
    MonotoneWakeQueue& q = L == lane_response ? responds_ : reaches_;
    const std::int32_t j = q.top().client;
    q.pop();
    if constexpr (L == lane_response) {
      e.deliver(j);
    } else {
      e.reach(j);
    }
  }

 private:
  bool on_;
  const Resource* o_;
  MonotoneWakeQueue reaches_, responds_;
};

}  // namespace retrylab::montecarlo::detail
