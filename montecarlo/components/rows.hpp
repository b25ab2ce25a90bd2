#pragma once
// Rows (docs/models.md §1): each attempt touches one of M rows, uniformly at random (rows stream),
// drawn when it is sent; conflicts (the contention model) and row locks are per row. The row lives
// in the core's per-attempt record (CoreJobState::row, 0 with one row), since the model and the
// lock read it. Fault rows_ignored (planted build): the row is drawn, then every attempt is put on row 0.
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/faults.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

class Rows : public Component {
 public:
  // Its parameters (rows of the field table, montecarlo/fields.hpp).
  static constexpr std::array fields{
      Field{.name = "rows",
            .group = FieldGroup::resource,
            .rank = 120,
            .kind = FieldKind::integer,
            .lo = 1,
            .hi = static_cast<double>(max_rows),
            .meaning = "M rows, each attempt on one uniformly at random; conflicts only within a row",
            .access = member<&Scenario::resource, &Resource::rows>()}};
  static constexpr std::array streams{StreamId::rows};  // its draws (montecarlo/random.hpp)
  static bool active(const Scenario& s) noexcept { return s.resource.rows > 1; }
  static bool allows_several_in_flight(const Scenario& /*s*/) noexcept { return true; }
  static bool allows_one_event(const Scenario& /*s*/) noexcept { return true; }
  template <class Faults>
  Rows(const Scenario& s, const Faults& /*faults*/) : rows_(s.resource.rows) {}

  template <class E>
  [[gnu::always_inline]] void on_send(E& e, std::int32_t /*c*/, std::int32_t j) {
    if (rows_ > 1) e.extra(j).row = draw(e);
    if (e.faults()(Fault::rows_ignored)) e.extra(j).row = 0;  // planted fault: as if M = 1
  }
  // A row, uniformly (0 with one row: no draw).
  template <class E>
  std::int32_t draw(E& e) {
    return rows_ > 1
               ? static_cast<std::int32_t>(e.template stream<StreamId::rows>().index(static_cast<std::uint64_t>(rows_)))
               : 0;
  }

 private:
  std::int64_t rows_;
};

}  // namespace retrylab::montecarlo::detail
