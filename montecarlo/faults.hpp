#pragma once
// Planted faults ("a gate that can fail"): exists only in the retrylab_montecarlo_faulty
// build (compile definition RETRYLAB_PLANTED_FAULTS=1); the real engine has no trace of it. The
// fault is chosen at run time by the environment variable RETRYLAB_FAULT:
//   window_exponent               w_k = min(c, b·2^k) instead of b·2^(k−1) (nojitter, full, equal)
//   free_ties_all_fail            in `free`, simultaneous eligible commits all fail
//   shared_doomed_leave_at_commit in `shared`, doomed attempts leave the server at the winning commit
//   decorrelated_uncapped_growth  decorrelated jitter grows from the uncapped draw
//   biased_uniform                every uniform variate u becomes u^1.05 (mean 1/2.05, not 1/2)
// In the full tier (montecarlo/engine.hpp), which the faults above leave alone:
//   rows_ignored                  each attempt draws its row, then the server puts it on row 0: as if M = 1
//   lognormal_sigma_is_cv         lognormal service with σ = cv, not sqrt(ln(1+cv²)) (mean still 1)
//   exponential_service_rate      exponential service of mean 1/2 (rate 2), not 1
//   lock_released_early           a row's lock passes on when service starts, so attempts never wait
//   retry_limit_off_by_one        a client gives up after max_attempts + 1 attempts, not max_attempts
// Unset or empty: no fault. Any other value: InputError.
#if RETRYLAB_PLANTED_FAULTS
#include <string_view>

namespace retrylab::montecarlo {

enum class Fault {
  none,
  window_exponent,
  free_ties_all_fail,
  shared_doomed_leave_at_commit,
  decorrelated_uncapped_growth,
  biased_uniform,
  rows_ignored,
  lognormal_sigma_is_cv,
  exponential_service_rate,
  lock_released_early,
  retry_limit_off_by_one
};

Fault parse_fault(std::string_view name);  // throws InputError("RETRYLAB_FAULT", ...)
Fault fault_from_env();

}  // namespace retrylab::montecarlo
#endif
