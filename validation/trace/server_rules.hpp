#pragma once
// ServerRules: what the declared server options (montecarlo/engine.hpp) do to the trace
// rules: which hold as they are, which hold in a generalised form, and which do not hold (the
// reason, shown as "n/a", is the non-empty *_na string). Rows are the client's view: start = send,
// end = when the outcome (or the client's timeout) reached the client. Without server options
// every field gives the version-1 rules. A value computed once from the scenario; never changes.
#include <cstdint>
#include <string>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "validation/trace/record.hpp"

namespace retrylab::validation::trace {

// Steady traffic: a constant rate or a load profile (version 3), arrivals on [0, horizon).
inline bool steady_traffic(const montecarlo::Scenario& s) { return s.traffic.rate > 0 || s.traffic.load_profile.set(); }

struct ServerRules {
  explicit ServerRules(const montecarlo::Scenario& s);

  bool any = false, rejects = false, instant_reject = false, deterministic = true, exact = false;
  bool strategies_mix = false, retry_after_fixed = true, only_rows = false, lock = false;
  double timeout = inf;
  std::int64_t max_attempts = 0;
  double success_min = 1, failure_min = 1, success_value = 1, max_duration = inf, retry_after_max = 0;
  std::vector<double> failure_values;
  std::string duration_na, overlap_na, spacing_na, idle_na, lock_na, ks_na, sequence_na, vanish_na;
  // lonely_na: collision's "a failure overlaps another"; commit_na: free/shared's "a success saw no
  // commit"; service_na: shared/ps's processor-sharing rules; arrivals_na: the arrival statistics.
  std::string lonely_na, commit_na, service_na, arrivals_na;
  std::string fields;  // the server options as canonical() writes them, "rows=4 lock=on"
  // Failure kinds (bit k: montecarlo::FailureKind k): the kinds the client retries (retry_on; 7 =
  // every kind), and those a failure can have under the declared options (retryable always: a
  // collision, a timeout; another kind only from a source declared to produce it).
  unsigned retried_kinds = 7, possible_kinds = 1;
  std::string possible_text;  // e.g. "retryable (collisions, timeouts), fatal (failure_prob)"

 private:
  void durations(const montecarlo::Scenario& s);
  void model_rules(const montecarlo::Scenario& s);
  void client_rules(const montecarlo::Scenario& s);
};

}  // namespace retrylab::validation::trace
