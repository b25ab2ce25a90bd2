#pragma once
// The `collision` contention model (pure ALOHA per row, docs/models.md §1): an attempt fails iff
// another attempt on its row overlaps its service [start, end); every attempt is served at rate 1
// (real time). State per row: the attempts in service and a mark, the highest service-start order
// of an attempt that started while another was in service on the row: an attempt succeeds iff it
// started after the mark (nothing it overlapped started before it, and nothing started during it).
// The plain tier (Full = false) has one row whose count is the core's in_service and whose
// service-start order is the attempt id.
// Contract with the core (montecarlo/engine.hpp): on_start for every service start (rejections
// that cost work too), on_service_start/on_leave for attempts that are not rejections, decide_one
// for an attempt ending alone, decide for a group ending at one instant.
#include <cstdint>
#include <vector>

#include "analytic/model.hpp"

namespace retrylab::montecarlo::detail {

template <bool Full>
class CollisionModel {
 public:
  static constexpr Model model = Model::collision;
  static constexpr bool virtual_time = false;

  void assign_rows(std::size_t rows) {
    if constexpr (Full) {
      inflight_.assign(rows, 0);
      mark_.assign(rows, -1);
    }
  }

  template <class E>
  std::int64_t seq_of(E& e, std::int32_t j) noexcept {
    if constexpr (Full) {
      return e.extra(j).seq;
    } else {
      return e.job(j).id;
    }
  }
  template <class E>
  [[gnu::always_inline]] void on_start(E& e, std::int32_t j) noexcept {
    if constexpr (Full) e.extra(j).seq = seq_++;
  }
  // It and every attempt in flight on its row overlap.
  template <class E>
  [[gnu::always_inline]] void on_service_start(E& e, std::int32_t j) noexcept {
    const std::size_t r = e.row_of(j);
    if (inflight(e, r) > 0) mark(r) = seq_of(e, j);
    if constexpr (Full) ++inflight(e, r);
  }
  template <class E>
  [[gnu::always_inline]] bool decide_one(E& e, std::int32_t j) {
    return seq_of(e, j) > mark(e.row_of(j)) && !e.injected(j);
  }
  template <class E>
  void decide(E& e, const std::vector<std::int32_t>& g) {
    for (const std::int32_t j : g) {
      auto& job = e.job(j);
      job.success = !job.rejected && seq_of(e, j) > mark(e.row_of(j)) && !e.injected(j);
    }
  }
  template <class E>
  [[gnu::always_inline]] void on_leave(E& e, std::int32_t j) noexcept {
    if constexpr (Full) --inflight(e, e.row_of(j));
  }

 private:
  template <class E>
  std::int64_t& inflight(E& e, std::size_t r) noexcept {
    if constexpr (Full) {
      return inflight_[r];
    } else {
      return e.in_service_count();
    }
  }
  std::int64_t& mark(std::size_t r) noexcept {
    if constexpr (Full) {
      return mark_[r];
    } else {
      return row0_mark_;
    }
  }

  std::int64_t row0_mark_ = -1;  // the plain tier's one row
  std::int64_t seq_ = 0;         // service-start order (full tier)
  std::vector<std::int64_t> inflight_, mark_;
};

}  // namespace retrylab::montecarlo::detail
