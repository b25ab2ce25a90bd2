// Compiled only into retrylab_montecarlo_faulty (see faults.hpp).
#include "montecarlo/faults.hpp"

#include <fmt/format.h>
#include <cstdlib>
#include <string>

#include "analytic/error.hpp"

namespace retrylab::montecarlo {

Fault parse_fault(std::string_view name) {
  if (name.empty()) return Fault::none;
  if (name == "window_exponent") return Fault::window_exponent;
  if (name == "free_ties_all_fail") return Fault::free_ties_all_fail;
  if (name == "shared_doomed_leave_at_commit") return Fault::shared_doomed_leave_at_commit;
  if (name == "decorrelated_uncapped_growth") return Fault::decorrelated_uncapped_growth;
  if (name == "biased_uniform") return Fault::biased_uniform;
  if (name == "rows_ignored") return Fault::rows_ignored;
  if (name == "lognormal_sigma_is_cv") return Fault::lognormal_sigma_is_cv;
  if (name == "exponential_service_rate") return Fault::exponential_service_rate;
  if (name == "lock_released_early") return Fault::lock_released_early;
  if (name == "retry_limit_off_by_one") return Fault::retry_limit_off_by_one;
  throw InputError(
      "RETRYLAB_FAULT",
      fmt::format("must be one of window_exponent, free_ties_all_fail, shared_doomed_leave_at_commit, "
                  "decorrelated_uncapped_growth, biased_uniform, rows_ignored, lognormal_sigma_is_cv, "
                  "exponential_service_rate, lock_released_early, retry_limit_off_by_one or empty (got {})",
                  name));
}

Fault fault_from_env() {
  const char* v = std::getenv("RETRYLAB_FAULT");
  return parse_fault(v ? std::string_view(v) : std::string_view());
}

}  // namespace retrylab::montecarlo
