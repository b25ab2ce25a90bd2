#pragma once
// InvariantRules: the rules every row of a trace must keep under the declared model, strategy and
// server options (docs/models.md, docs/traces.md): time order, durations, timeouts, overlap both
// ways (collision: a success overlaps nothing, a failure overlaps something), commits (free,
// shared: spacing, no success after a commit, no failure on an idle resource; ps: no failure), the
// lock, the retry sequence and limit, the sleep support, and clients that vanished at a run's end.
// Memory: state only for clients still waiting, a bounded window of attempts that can still
// overlap, and the group of rows ending together. A rule that does not hold under the options is
// reported n/a with the reason. Knows nothing of the statistics: a sleep inside its support is
// handed back to the caller (row()) for them.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "validation/trace/findings.hpp"
#include "validation/trace/record.hpp"
#include "validation/trace/server_rules.hpp"
#include "validation/trace/sleep_rules.hpp"

namespace retrylab::validation::trace {

// A retry's sleep that lies inside the declared support: the statistics' sample.
struct SleepSample {
  std::int64_t retry = 0;
  double sleep = 0, prev = 0, start = 0;  // prev: the client's previous sleep, NaN before its first
  std::int64_t client = 0;
};

class InvariantRules {
 public:
  InvariantRules(const montecarlo::Scenario& s, const ServerRules& sv, const SleepRules& sleeps);

  std::optional<SleepSample> row(const Row& r, std::int64_t line, std::string_view text);
  void begin_run(std::int64_t run) { run_ = run; }
  void end_run(const std::optional<RunEnd>& stop, double stop_time);
  void finish(std::vector<TraceCheck>& out);

 private:
  struct ClientState {
    double arrival = 0, last_end = 0, prev_sleep = 0;
    std::int64_t retry = 0;
    bool burst = false;
    std::int64_t last_line = 0;
    std::string last_text;
    bool ended = false;  // its last failure was of a kind the client does not retry: its request ended
  };
  struct GroupRow {
    double start;
    bool success;
    std::int64_t line;
    std::string text;
  };
  struct Overlap {
    double end;
    bool success;
    std::int64_t line, client;
  };
  // collision: the one failure no attempt has been seen to overlap yet (a row that finds the
  // overlap window non-empty overlaps every attempt in it, so at most the last row is unconfirmed).
  struct Lonely {
    double end;
    std::int64_t line;
    std::string text;
  };

  void row_rules(const Row& r, std::int64_t line, std::string_view text);
  bool duration_ok(const Row& r, double d) const;
  void collision(const Row& r, std::int64_t line, std::string_view text);
  void tie_group(const Row& r, std::int64_t line, std::string_view text);
  void flush_group();
  void lonely_at_end(const std::string& reason, double stop_time);
  std::optional<SleepSample> client(const Row& r, std::int64_t line, std::string_view text);
  bool sleep_check(const Row& r, double prev, std::int64_t line, std::string_view text);

  const montecarlo::Scenario& s_;
  const ServerRules& sv_;
  const SleepRules& sleeps_;
  Finding order_, duration_, timeout_, overlap_, lonely_, spacing_, commit_, idle_, lock_, sequence_, limit_, support_,
      vanish_, kind_, not_retried_;
  // Failure kinds (version 3): failures whose kind was checked, failures of a kind not retried;
  // whether rows carry kinds; a failure without a kind (versions 1, 2) while the client retries
  // only some kinds.
  std::int64_t kind_n_ = 0, not_retried_n_ = 0;
  bool kinds_seen_ = false, kinds_unknown_ = false;
  std::int64_t lonely_n_ = 0, commit_n_ = 0;
  std::optional<Lonely> lonely_pending_;
  std::int64_t lock_n_ = 0;
  std::int64_t rows_ = 0, order_n_ = 0, idle_n_ = 0, support_n_ = 0, vanish_n_ = 0, successes_seen_ = 0;
  std::int64_t run_ = 0;
  std::unordered_map<std::int64_t, ClientState> clients_;
  std::deque<Overlap> overlap_window_;
  std::int64_t overlap_successes_ = 0;
  std::vector<GroupRow> group_;
  double group_end_ = 0, last_commit_ = -inf;
};

}  // namespace retrylab::validation::trace
