#pragma once
// The contention models without conflicts (docs/models.md §1): `ps`, a processor-sharing server
// in virtual time (dV/dt = 1/n), and `none`, an uncontended dependency: every attempt served alone
// at rate 1 (real time). An attempt fails only by injection (failure_prob, the outage).
// Contract with the core: as montecarlo/models/collision.hpp.
#include <cstdint>
#include <vector>

#include "analytic/model.hpp"

namespace retrylab::montecarlo::detail {

template <bool Full, Model M>
class NoConflictModel {
 public:
  static constexpr Model model = M;
  static constexpr bool virtual_time = M == Model::ps;

  void assign_rows(std::size_t /*rows*/) noexcept {}
  template <class E>
  void on_start(E& /*e*/, std::int32_t /*j*/) noexcept {}
  template <class E>
  void on_service_start(E& /*e*/, std::int32_t /*j*/) noexcept {}
  template <class E>
  void on_leave(E& /*e*/, std::int32_t /*j*/) noexcept {}
  template <class E>
  [[gnu::always_inline]] bool decide_one(E& e, std::int32_t j) {
    return !e.injected(j);
  }
  template <class E>
  void decide(E& e, const std::vector<std::int32_t>& g) {
    for (const std::int32_t j : g) e.job(j).success = !e.job(j).rejected && !e.injected(j);
  }
};

template <bool Full>
using PsModel = NoConflictModel<Full, Model::ps>;
template <bool Full>
using NoneModel = NoConflictModel<Full, Model::none>;

}  // namespace retrylab::montecarlo::detail
