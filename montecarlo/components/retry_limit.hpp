#pragma once
// A retry limit (docs/models.md §4): a client makes at most max_attempts attempts; when its last
// fails (or times out, or is rejected) it gives up: the request is lost. A link of the client
// policy chain, asked before the sleep is drawn. Fault retry_limit_off_by_one (planted build): one
// attempt too many.
#include <cstdint>

#include "montecarlo/component.hpp"
#include "montecarlo/faults.hpp"

namespace retrylab::montecarlo::detail {

class RetryLimit : public Component {
 public:
  static bool active(const Scenario& s) noexcept { return s.server.max_attempts > 0; }
  template <class Faults>
  RetryLimit(const Scenario& s, const Faults& faults) : limit_(s.server.max_attempts) {
    if (faults(Fault::retry_limit_off_by_one) && limit_ > 0) ++limit_;  // planted fault
  }

  template <class E>
  [[gnu::always_inline]] bool gives_up_before_sleep(E& e, std::int32_t c) noexcept {
    return limit_ > 0 && e.client(c).failures >= limit_;
  }

 private:
  std::int64_t limit_;  // 0: none
};

}  // namespace retrylab::montecarlo::detail
