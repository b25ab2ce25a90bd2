#pragma once
// Network delay (docs/models.md §1): an attempt reaches the server one leg after its send, and its
// outcome reaches the client one leg after the server is done (legs of the delay distribution,
// montecarlo/legs.hpp, drawn from the delay stream, each leg independently). Source of two event
// lanes: replies reaching clients and attempts reaching the server, each a (time, push order)
// queue (wake_queue.hpp).
#include <cstdint>
#include <limits>
#include <utility>

#include "montecarlo/component.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/random.hpp"
#include "montecarlo/wake_queue.hpp"

namespace retrylab::montecarlo::detail {

class Network : public Component {
 public:
  static constexpr bool delays_start = true;
  static constexpr unsigned lanes = lane_response | lane_reach;
  static bool active(const Scenario& s) noexcept { return s.server.delay > 0.0; }
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Network(const Scenario& s, const Faults& /*faults*/) : on_(active(s)), o_(&s.server) {}

  void lend(EngineScratch& scratch) noexcept;  // builds.hpp
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
  friend struct EngineScratch;
  bool on_;
  const ServerOptions* o_;
  MonotoneWakeQueue reaches_, responds_;
};

}  // namespace retrylab::montecarlo::detail
