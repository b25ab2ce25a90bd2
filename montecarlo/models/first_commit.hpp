#pragma once
// The first-commit-wins contention models (docs/models.md §1): `free` (every attempt served at rate
// 1, real time) and `shared` (one processor-sharing server for every row and for rejections that
// cost work, run in virtual time V, dV/dt = 1/n). Per row: a successful commit on its row in
// (start, end] dooms an attempt; simultaneous eligible commits on one row: one uniform winner
// (ties stream). The plain tier has one row, kept in a scalar.
// Contract with the core: as montecarlo/models/collision.hpp; commit_winners and last_commit are
// also the one-event shortcut's (montecarlo/one_event.hpp).
// Faults: free_ties_all_fail (planted build only): no eligible commit of a tie wins.
#include <cstdint>
#include <limits>
#include <vector>

#include "analytic/model.hpp"
#include "montecarlo/faults.hpp"
#include "montecarlo/random.hpp"

namespace retrylab::montecarlo::detail {

template <bool Full, Model M>
class FirstCommitModel {
 public:
  static constexpr Model model = M;
  static constexpr bool virtual_time = M == Model::shared;

  void assign_rows(std::size_t rows) {
    if constexpr (Full) last_commit_.assign(rows, -std::numeric_limits<double>::infinity());
    row_count_.assign(rows, 0);
    row_winner_.assign(rows, 0);
  }

  template <class E>
  void on_start(E& /*e*/, std::int32_t /*j*/) noexcept {}
  template <class E>
  void on_service_start(E& /*e*/, std::int32_t /*j*/) noexcept {}
  template <class E>
  void on_leave(E& /*e*/, std::int32_t /*j*/) noexcept {}

  template <class E>
  [[gnu::always_inline]] bool decide_one(E& e, std::int32_t j) {
    double& last = last_commit(e.row_of(j));
    const bool success = !(last > e.job(j).start) && !e.injected(j);
    if (success) last = e.now();
    return success;
  }
  // Eligibility against the commits before now (no commit on the row since the attempt started),
  // then one winner per row.
  template <class E>
  void decide(E& e, const std::vector<std::int32_t>& g) {
    for (const std::int32_t j : g) {
      auto& job = e.job(j);
      if (job.rejected) continue;
      job.success = !(last_commit(e.row_of(j)) > job.start) && !e.injected(j);
    }
    commit_winners(
        e, g, e.now(), [&](std::int32_t j) { return e.row_of(j); },
        [&](std::int32_t j) -> bool& { return e.job(j).success; });
  }

  // Simultaneous ends at te, each marked success when eligible (rejected ones false): per row with
  // >= 2 eligible, one uniform winner (ties stream, rows in first-seen order), the winner-th
  // eligible attempt of its row in end order; the winners commit at te.
  template <class E, class RowOf, class Success>
  void commit_winners(E& e, const std::vector<std::int32_t>& g, double te, RowOf row, Success success) {
    for (const std::int32_t x : g)
      if (success(x)) ++row_count_[row(x)];
    for (const std::int32_t x : g) {
      const std::size_t r = row(x);
      if (row_count_[r] > 0) {
        row_winner_[r] = row_count_[r] >= 2 ? static_cast<std::int64_t>(e.template stream<StreamId::ties>().index(
                                                  static_cast<std::uint64_t>(row_count_[r])))
                                            : 0;
        if (M == Model::free && e.faults()(Fault::free_ties_all_fail) && row_count_[r] >= 2)
          row_winner_[r] = row_count_[r];  // planted fault: no eligible commit wins
        row_count_[r] = -1;                // drawn
      }
    }
    for (const std::int32_t x : g) {
      bool& won = success(x);
      if (!won) continue;
      const std::size_t r = row(x);
      won = row_winner_[r]-- == 0;
      if (won) last_commit(r) = te;
    }
    for (const std::int32_t x : g) {
      const std::size_t r = row(x);
      row_count_[r] = 0;
      row_winner_[r] = 0;
    }
  }

  double& last_commit(std::size_t r) noexcept {
    if constexpr (Full) {
      return last_commit_[r];
    } else {
      return row0_last_commit_;
    }
  }

 private:
  double row0_last_commit_ = -std::numeric_limits<double>::infinity();  // the plain tier's one row
  std::vector<double> last_commit_;
  std::vector<std::int64_t> row_count_, row_winner_;
};

template <bool Full>
using FreeModel = FirstCommitModel<Full, Model::free>;
template <bool Full>
using SharedModel = FirstCommitModel<Full, Model::shared>;

}  // namespace retrylab::montecarlo::detail
