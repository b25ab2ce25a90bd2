#pragma once
// A FIFO lock per row (docs/models.md §3): an admitted attempt whose row is busy waits for it in
// the row's queue; when the row's holder leaves the server, the next waiter starts its service.
// A cancelled waiter leaves its row's queue (withdraws).
// Fault lock_released_early (planted build): the lock passes on when service starts, so no one waits.
#include <cstdint>
#include <vector>

#include "montecarlo/component.hpp"
#include "montecarlo/engine_parts.hpp"
#include "montecarlo/faults.hpp"

namespace retrylab::montecarlo::detail {

class Lock : public Component {
 public:
  static constexpr bool delays_start = true;
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{Field{.name = "lock",
                                           .group = FieldGroup::resource,
                                           .rank = 170,
                                           .kind = FieldKind::on_off,
                                           .hi = 1,
                                           .meaning = "on: a FIFO lock per row (attempts wait, then run alone)",
                                           .access = member<&Scenario::resource, &Resource::lock>()}};
  static bool active(const Scenario& s) noexcept { return s.resource.lock; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Lock(const Scenario& s, const Faults& /*faults*/) : on_(s.resource.lock) {
    if (on_) {
      busy_.assign(static_cast<std::size_t>(s.resource.rows), 0);
      queue_.assign(static_cast<std::size_t>(s.resource.rows), Fifo{});
    }
  }

  template <class E>
  [[gnu::always_inline]] bool holds_back(E& e, std::int32_t j) {
    if (!on_) return false;
    const std::size_t r = e.row_of(j);
    if (busy_[r]) {
      e.push(queue_[r], j);
      return true;
    }
    busy_[r] = 1;
    if (e.faults()(Fault::lock_released_early)) busy_[r] = 0;  // planted fault: passes on at service start
    return false;
  }
  // A cancelled attempt waiting for its row leaves the row's queue (it was admitted: the core frees
  // its place in the limit).
  template <class E>
  Withdrawn withdraws(E& e, std::int32_t j) noexcept {
    return on_ && e.unlink(queue_[e.row_of(j)], j) ? Withdrawn::after_admission : Withdrawn::not_held;
  }
  template <class E>
  [[gnu::always_inline]] void on_release(E& e, std::int32_t j) {
    if (!on_) return;
    const std::size_t r = e.row_of(j);
    if (queue_[r].empty()) {
      busy_[r] = 0;
    } else {
      e.start_service(e.pop(queue_[r]), e.draw_service());
    }
  }

 private:
  bool on_;
  std::vector<char> busy_;
  std::vector<Fifo> queue_;
};

}  // namespace retrylab::montecarlo::detail
